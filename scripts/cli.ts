/**
 * The admin CLI: `npm run cli -- <command>`. See scripts/cli/help.ts (or
 * `npm run cli -- help`) for commands, options and exit codes.
 */
import { errorMessage } from '@/lib/domain/errors';
import fs from 'node:fs';
import path from 'node:path';
import { prettyJson } from '@/lib/domain/json-text';
import { ConfigError, getConfig } from '@/lib/config';
import type { EventStore } from '@/lib/store/types';
import { CommandError, EXIT, UsageError } from './cli/args';
import { logToStderr } from '@/lib/ops/log';
import { DatabaseUrlError, parseDatabaseUrl } from '@/lib/store/database-url';
import type { Command, CommandContext } from './cli/context';
import { HELP, helpCommandFor, helpFor } from './cli/help';
import { stopWhenNpmParentGoes } from './cli/parent-watch';

/**
 * Each command's module, loaded when that command runs: a process runs one
 * command, and loading every command's dependencies (ioredis for key
 * rotation, the mirror's HTTP client, the bulk loader...) was most of the
 * start of each.
 */
const COMMANDS: Record<string, () => Promise<Command>> = {
  migrate: async () => (await import('./cli/admin-commands')).migrate,
  backup: async () => (await import('./cli/admin-commands')).backup,
  orgs: async () => (await import('./cli/admin-commands')).orgs,
  keys: async () => (await import('./cli/admin-commands')).keys,
  seed: async () => (await import('./cli/bulk-commands')).seed,
  import: async () => (await import('./cli/bulk-commands')).importFile,
  events: async () => (await import('./cli/events-commands')).events,
  imports: async () => (await import('./cli/imports-commands')).imports,
  mirror: async () => (await import('./cli/mirror-command')).mirror,
};

/** Pulls the global options out wherever they appear. */
function globalOptions(argv: string[]): {
  args: string[];
  json: boolean;
  database?: string;
  help: boolean;
} {
  const args: string[] = [];
  let json = false;
  let help = false;
  let database: string | undefined;
  for (let i = 0; i < argv.length; i++) {
    const arg = argv[i]!;
    if (arg === '--json') json = true;
    else if (arg === '--help' || arg === '-h') help = true;
    else if (arg === '--database' || arg.startsWith('--database=')) {
      // Given twice is a mistake, not a choice of the last: most likely the
      // event field filter, which is --database-name.
      if (database !== undefined) {
        throw new UsageError(
          "Option '--database' (the store's URL) is given twice; filter on the event's database field with --database-name",
        );
      }
      database = arg === '--database' ? argv[++i] : arg.slice('--database='.length);
      // Empty ('--database=') is no store: it fell through to a file named ''.
      if (!database) throw new UsageError("Option '--database' needs a value");
      try {
        parseDatabaseUrl(database);
      } catch (error) {
        // A mistake on the command line (postgress://, file:x.db?mode=ro), not a file to create.
        if (error instanceof DatabaseUrlError) throw new UsageError(`--database: ${error.message}`);
        throw error;
      }
    } else args.push(arg);
  }
  return { args, json, database, help };
}

/**
 * A SQLite file that does not exist, for a command that only uses a store:
 * opened, it was created empty (a typo in --database left a new file behind)
 * and the command went on to say the organization does not exist.
 */
function refuseMissingFile(url: string): void {
  const target = parseDatabaseUrl(url);
  if (target.engine !== 'sqlite' || target.filename === ':memory:') return;
  if (fs.existsSync(target.filename)) return;
  throw new CommandError(
    `No database at ${path.resolve(target.filename)}: is --database (or DATABASE_URL) the store you meant? ('migrate' or 'orgs create' makes a new one)`,
  );
}

async function main(argv: string[]): Promise<number> {
  const json = argv.includes('--json');
  let emitted = false;
  let store: EventStore | undefined;
  let databaseUrl: string | undefined;
  /** The command makes a store where there is none ('migrate', 'orgs create', 'seed'). */
  let makesStore = false;
  const context: CommandContext = {
    json,
    store: async () => {
      if (!store) {
        const url = databaseUrl ?? getConfig().DATABASE_URL;
        if (!makesStore) refuseMissingFile(url);
        // Imported here: help and usage errors never load the store's engines and drivers.
        const { openStore } = await import('@/lib/store');
        const { secureSecretsAtOpen } = await import('@/lib/auth/ha1-at-rest');
        store = await openStore(url);
        // As a server does at start: keys stored plain are sealed, a loose secret file named.
        for (const note of await secureSecretsAtOpen(store, { servesWithSecret: false })) {
          context.note(note.message);
        }
      }
      return store;
    },
    say: (text) => {
      if (!json) process.stdout.write(`${text}\n`);
    },
    note: (text) => process.stderr.write(`${text}\n`),
    emit: (document) => {
      if (!json) return;
      emitted = true;
      process.stdout.write(`${JSON.stringify(document, null, 2)}\n`);
    },
    emitText: (jsonText) => {
      if (!json) return;
      emitted = true;
      process.stdout.write(`${prettyJson(jsonText)}\n`);
    },
  };

  /** The command line without its global options, once read: whose help a usage error points at. */
  let words: string[] = [];
  try {
    const options = globalOptions(argv);
    databaseUrl = options.database;
    words = options.args;
    const [name, ...rest] = options.args;
    if (options.help || name === 'help') {
      // `help import` and `import --help` alike: that command's help
      // (`help --help`, the help command's).
      const words =
        name !== 'help' ? options.args : rest.length > 0 || !options.help ? rest : [name];
      const text = helpFor(words);
      if (json) context.emit({ help: text });
      else process.stdout.write(text);
      return EXIT.ok;
    }
    if (name === undefined) {
      // A script that forgot its command gets a usage error in the shape of
      // every other under --json (it got {"help": ...}, exit 64); a person, the help.
      if (json) {
        throw new UsageError(`Missing command: ${[...Object.keys(COMMANDS), 'help'].join(', ')}`);
      }
      process.stdout.write(HELP);
      return EXIT.usage;
    }
    makesStore = name === 'migrate' || name === 'seed' || (name === 'orgs' && rest[0] === 'create');
    const load = Object.hasOwn(COMMANDS, name) ? COMMANDS[name] : undefined;
    if (!load) throw new UsageError(`Unknown command '${name}'`);
    // Inside the try (help needs no configuration): an invalid configuration
    // (the logger reads LOG_LEVEL) is reported as every error is, --json too.
    getConfig();
    // stdout carries the command's output only (`--json | jq`).
    logToStderr();
    const command = await load();
    return await command(rest, context);
  } catch (error) {
    const usage = error instanceof UsageError;
    const config = error instanceof ConfigError;
    const known = usage || config || error instanceof CommandError;
    const message = errorMessage(error);
    const code = usage ? EXIT.usage : error instanceof CommandError ? error.exitCode : EXIT.failed;
    process.stderr.write(`Error: ${message}\n`);
    if (usage) process.stderr.write(`Run '${helpCommandFor(words)}' for usage.\n`);
    else if (!known && process.env.DEBUG) process.stderr.write(`${(error as Error).stack}\n`);
    if (json && !emitted) {
      context.emit({
        error: { code: usage ? 'usage' : config ? 'config' : 'failed', message, exitCode: code },
      });
    }
    return code;
  } finally {
    await store?.close();
  }
}

// A reader that stops reading (`events export --out - | head`, or
// `2>&1 | head`, which carries the progress lines on stderr down the same
// pipe) ends the command there and quietly, as Unix tools end on SIGPIPE
// (which Node ignores, turning each later write into an EPIPE error). What
// was written was whole batches or transactions; a bulk load's run is left
// running and recorded as interrupted by the next reader of the ledger.
for (const stream of [process.stdout, process.stderr]) {
  stream.on('error', (error: NodeJS.ErrnoException) => {
    if (error.code !== 'EPIPE') throw error;
    process.exit(EXIT.readerGone);
  });
}

stopWhenNpmParentGoes();

main(process.argv.slice(2)).then(
  (code) => {
    process.exitCode = code;
  },
  (error: unknown) => {
    process.stderr.write(`Error: ${errorMessage(error)}\n`);
    process.exitCode = EXIT.failed;
  },
);
