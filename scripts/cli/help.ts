import { ORG_ROLES } from '@/lib/store/types';
import { EXIT, UsageError } from './args';

/**
 * The CLI's help, written once: each command's section below is what its
 * own help (`import --help`, `help keys create`) prints, and the full
 * reference (`help`) is every section in turn with what all commands share.
 */

const PROGRAM = 'npx org-events';

type ExitCode = (typeof EXIT)[keyof typeof EXIT];
type Value = keyof typeof VALUES;

/** One command or subcommand. */
type CommandHelp = {
  /** As typed: 'import', 'keys create'. */
  name: string;
  /** The usage after the name, a line each (the options that do not fit the first). */
  usage: string[];
  /** What it does, one paragraph (no blank line). */
  about: string;
  /** Command lines after `npx org-events ` (a pipe into another tool may follow). */
  examples: string[];
  /** Exit codes it may end with besides those of every command (0, 1, 64, 141). */
  exits?: ExitCode[];
  /** The kinds of value its options take, explained under Values. */
  values?: Value[];
  /** It takes the list's filters. */
  filters?: boolean;
};

/** A command made of subcommands (`keys create`, `keys list`...). */
type GroupHelp = { name: string; subcommands: CommandHelp[] };

type Topic = CommandHelp | GroupHelp;

const ORG = '65a1b2c3d4e5f6a7b8c9d0e1';

/** The commands in the full reference's order. */
const TOPICS: Topic[] = [
  {
    name: 'migrate',
    usage: [''],
    about: `
Create or upgrade the database schema (every command also does this),
naming the migrations it applied.`,
    examples: ['migrate', 'migrate --json'],
  },
  {
    name: 'backup',
    usage: ['--out FILE'],
    about: `
Copy a SQLite database to FILE (a new file, readable by its owner only)
while servers go on using it: one consistent moment, deleted content
left out. FILE is complete or not there (stopped by a signal, the
partial copy is removed). On PostgreSQL use pg_dump.`,
    examples: ['backup --out org-events-2026-01-31.db'],
  },
  {
    name: 'orgs',
    subcommands: [
      {
        name: 'orgs create',
        usage: ['--name NAME [--id ID]'],
        about: `
Create an organization. NAME: 1 to 64 characters on one line (trimmed).
ID: 24 lowercase hex digits (default: a new one).`,
        examples: ['orgs create --name "Acme Corp"', `orgs create --name Acme --id ${ORG}`],
      },
      {
        name: 'orgs list',
        usage: [''],
        about: `
List organizations with their event counts.`,
        examples: ['orgs list', "orgs list --json | jq -r '.[].id'"],
      },
    ],
  },
  {
    name: 'keys',
    subcommands: [
      {
        name: 'keys create',
        usage: ['--org ORG_ID --role ROLE [--description TEXT]'],
        about: `
Create an API key with a role in an organization. Prints the private key
once: only a hash of it is stored, so it can never be shown again.`,
        examples: [`keys create --org ${ORG} --role ORG_READ_ONLY --description "audit export"`],
        values: ['ROLE'],
      },
      {
        name: 'keys grant',
        usage: ['--key PUBLIC_KEY --org ORG_ID --role ROLE'],
        about: `
Give an existing key a role in (another) organization.`,
        examples: [`keys grant --key abcdefgh --org ${ORG} --role ORG_MEMBER`],
        values: ['ROLE'],
      },
      {
        name: 'keys list',
        usage: ['[--org ORG_ID]'],
        about: `
List keys (never their secrets), optionally only those of one organization.`,
        examples: ['keys list', `keys list --org ${ORG} --json`],
      },
      {
        name: 'keys revoke',
        usage: ['--key PUBLIC_KEY'],
        about: `
Disable a key; it can no longer authenticate.`,
        examples: ['keys revoke --key abcdefgh'],
      },
      {
        name: 'keys rotate',
        usage: ['--key PUBLIC_KEY'],
        about: `
Give a key a new private key, printed once; the old one is refused at
once. Public key, id and roles stay. A revoked key is refused: it would
stay revoked (issue a new one with keys create).`,
        examples: ['keys rotate --key abcdefgh'],
      },
      {
        name: 'keys rehash',
        usage: [''],
        about: `
Encrypt every stored key hash with the server secret: ORG_EVENTS_SECRET
(after setting it, or after rotating it: the old one in
ORG_EVENTS_PREVIOUS_SECRET), or on SQLite without it the secret file
beside the database (keys stored plain by an older version).`,
        examples: ['keys rehash'],
      },
    ],
  },
  {
    name: 'seed',
    usage: [
      '--org ORG_ID --events N [--seed S] [--from DATE] [--to DATE]',
      '[--variant hosted|self-hosted] [--batch-size N] [--create-org --name NAME]',
    ],
    about: `
Generate N realistic demo events. The organization must exist, or pass
--create-org --name NAME to create it if missing (NAME as for orgs
create; an existing organization is used as it is, and a NAME that
differs from its name is noted on stderr, not applied). Deterministic:
the same --seed (default 1), variant, organization and range give the
same events, so re-running adds nothing. Without --from/--to the range
is the 90 days up to the start of the current UTC hour.`,
    examples: [
      `seed --org ${ORG} --events 10000 --create-org --name Demo`,
      `seed --org ${ORG} --events 500 --from 2026-01-01 --to 2026-02-01 --variant self-hosted`,
    ],
    exits: [EXIT.interrupted],
    values: ['DATE'],
  },
  {
    name: 'import',
    usage: ['--org ORG_ID FILE [--rehome] [--batch-size N] [--max-record-bytes N]'],
    about: `
Import events from FILE ("-" for stdin): a list envelope as the API
returns it ({"results": [...]}), a JSON array, or NDJSON (one event per
line; a line may hold a page, or pages appended by curl >> FILE, or an
array), or one event (pretty-printed, as jq . writes it), any of them
gzip-compressed (events.ndjson.gz) or not. Invalid
records are reported with their line or index and skipped. A record
nesting more than 100 levels deep is invalid (MongoDB's limit), as is
an NDJSON line that is not UTF-8 (a JSON document that is not stops
the import at that byte).
Events already stored (same id) are skipped, so imports can be re-run.
Records naming another organization are refused unless --rehome.
Each record is stored as its own text (raw included), byte for byte.
A record over --max-record-bytes (default IMPORT_MAX_RECORD_BYTES,
1 MB) is reported and skipped. Each batch (--batch-size, default 20,000
events, or 64 MiB of text if that comes first) is written atomically.
A page whose totalCount is more than the
events the file holds (page 1 saved alone) imports with a warning.
Every import is recorded (see imports).`,
    examples: [
      `import --org ${ORG} events.ndjson.gz`,
      `import --org ${ORG} other-org-export.json --rehome`,
    ],
    exits: [EXIT.someInvalid, EXIT.interrupted],
  },
  {
    name: 'imports',
    subcommands: [
      {
        name: 'imports list',
        usage: ['[--org ORG_ID] [--limit N] [--status STATUS]...'],
        about: `
The import ledger: every import and mirror run with its source, start
and end, inserted / skipped (already present) / rejected counts, status;
of one organization, or of all of them (with an ORG column).
A run whose process is gone (killed, crashed, or silent for 60 s) is
shown and recorded as interrupted. --status lists only the runs in that
status: running, finished, failed, interrupted or undone (repeat it or
give a comma list for several; --status finished leaves out the failed
runs a mirror refused by a source that is down piles up). With --json: {orgId (with --org), statuses
(with --status), runs: [...], more}, more true when older runs (of
those statuses) were left out (an object, where orgs list and keys
list, never cut short, print an array).`,
        examples: [
          'imports list',
          `imports list --org ${ORG} --limit 20`,
          `imports list --org ${ORG} --status finished,interrupted`,
        ],
      },
      {
        name: 'imports undo',
        usage: ['ID [--force]'],
        about: `
Remove exactly the events run ID inserted (not those it skipped as
already present), counters kept exact; the run is marked undone. An
interrupted run is undone like any other; one still running (its
process alive) needs --force.`,
        examples: ['imports undo 66b0c1d2e3f4a5b6c7d8e9f0'],
        exits: [EXIT.interrupted],
      },
    ],
  },
  {
    name: 'events',
    subcommands: [
      {
        name: 'events list',
        usage: ['--org ORG_ID [FILTERS] [--page N] [--limit N] [--omit-count]', '[--include-raw]'],
        about: `
One page of the organization's events, newest first (default page 1,
100 per page, at most 500): a table, or with --json exactly the API's
list body ({links, results, totalCount}).`,
        examples: [
          `events list --org ${ORG} --type JOINED_ORG --min-date 2026-01-01`,
          `events list --org ${ORG} --username alice@example.com --json | jq .totalCount`,
        ],
        values: ['DATE'],
        filters: true,
      },
      {
        name: 'events get',
        usage: ['--org ORG_ID --id EVENT_ID [--include-raw]'],
        about: `
One event, as the API returns it.`,
        examples: [`events get --org ${ORG} --id 65a1b2c3d4e5f6a7b8c9d0ff --include-raw`],
      },
      {
        name: 'events export',
        usage: ['--org ORG_ID [--format ndjson|csv] [--out FILE] [FILTERS]', '[--include-raw]'],
        about: `
Every event of the filtered set, as the API's export writes it (NDJSON:
one list object per line; CSV: RFC 4180, one column per field), read
from one snapshot. Written to a temporary file renamed to FILE (default:
the export's own name, naming the org and range) once complete and
counted (a link's file is the one replaced; a device or named pipe is
written in place); "--out -" writes to stdout. SIGINT or SIGTERM
cancels it, leaving no file. Progress on stderr.`,
        examples: [
          `events export --org ${ORG} --format csv --min-date 2026-01-01 --out january.csv`,
          `events export --org ${ORG} --out - | gzip > events.ndjson.gz`,
        ],
        exits: [EXIT.interrupted],
        values: ['DATE'],
        filters: true,
      },
      {
        name: 'events prune',
        usage: ['--org ORG_ID --before DATE [--dry-run]'],
        about: `
Retention: delete every event created before DATE, in short
transactions, counters kept exact. --dry-run prints how many would go.`,
        examples: [
          `events prune --org ${ORG} --before 2025-01-01 --dry-run`,
          `events prune --org ${ORG} --before 2025-01-01`,
        ],
        exits: [EXIT.interrupted],
        values: ['DATE'],
      },
    ],
  },
  {
    name: 'mirror',
    usage: [
      '--org ORG_ID --source BASE_URL --source-org ORG_ID --public-key PUB',
      '[--private-key KEY] [--since DATE] [--follow [--interval SECONDS]]',
      '[--requests-per-minute N] [--items-per-page N] [--max-record-bytes N]',
    ],
    about: `
Copy a live organization through its own API (BASE_URL: the hosted
service's or a self-hosted installation's .../api/public/v1.0; a private
CA through NODE_EXTRA_CA_CERTS) into ORG_ID, with raw. The private key
comes from MIRROR_PRIVATE_KEY (better) or --private-key. Resumes from
its checkpoint; --follow keeps the copy current every --interval seconds
(default 60) until SIGINT/SIGTERM, which end it after the current page.
Defaults: 500 requests per minute, 500 events per page. A record over
--max-record-bytes (default IMPORT_MAX_RECORD_BYTES, 1 MB) is reported
and not copied; an answer longer than a page of such records ends the
mirror.`,
    examples: [
      `mirror --org ${ORG} --source https://cloud.mongodb.com/api/public/v1.0 --source-org 5f1a2b3c4d5e6f7a8b9c0d1e --public-key abcdefgh`,
      `mirror --org ${ORG} --source https://cloud.mongodb.com/api/public/v1.0 --source-org 5f1a2b3c4d5e6f7a8b9c0d1e --public-key abcdefgh --since 2026-01-01 --follow`,
    ],
    exits: [EXIT.someInvalid, EXIT.interrupted],
    values: ['DATE'],
  },
  {
    name: 'help',
    usage: ['[COMMAND [SUBCOMMAND]]'],
    about: `
Every command's reference (this text); with COMMAND (as <command>
--help), that command's own usage, examples and exit codes.`,
    examples: ['help', 'help events export'],
  },
];

const FILTERS = `Filters (events list and export; repeat an option or give a comma list for
any of several values):
  --type T, --exclude-type T, --min-date DATE, --max-date DATE,
  --actor A (username, userId, publicKey or apiKeyId), --q WORDS, and a field
  by the API's name: --username, --groupId, --clusterName, --hostname,
  --remoteAddress (also a CIDR block), ... (every field filter of the API;
  the event's database field is --database-name, --database being the store)`;

const OPTIONS = `Options for every command:
  --json            Print exactly one JSON document on stdout (errors too:
                    {"error": {"code": "usage"|"failed"|"config", "message",
                    "exitCode"}}; an import that stops prints its summary with
                    that "error" in it). Progress and notes still go to stderr.
  --database URL    Use this database instead of DATABASE_URL
                    (file:./data/org-events.db, a file path, or postgres://...;
                    any other scheme://, or a file: URL with a ?query, is refused;
                    so is a file that is not there, but by migrate, orgs create
                    and seed, which make it).
Every other option takes one value: given twice with different values, it is
a usage error.`;

const VALUES = {
  ROLE: ORG_ROLES.join(', '),
  DATE: '2026-01-31 (00:00 UTC) or 2026-01-31T12:00:00Z (any ISO 8601 zone)',
};

/** Every exit code; those a command's `exits` does not name apply to every command. */
const EXIT_CODES: [ExitCode, string][] = [
  [EXIT.ok, 'success'],
  [
    EXIT.failed,
    `the command failed (not found, already exists, unreadable or broken file, database error,
an invalid configuration in the environment or a variable the command needs missing, as
ORG_EVENTS_SECRET for keys rehash: error code "config" under --json)`,
  ],
  [EXIT.someInvalid, 'import or mirror finished but some records were invalid and skipped'],
  [EXIT.usage, 'bad command line (unknown command or option, missing or malformed value)'],
  [
    EXIT.interrupted,
    `import, seed, imports undo, events prune, or mirror without --follow, stopped by
SIGINT/SIGTERM (Ctrl-C) before it was done: what was written stays, the summary is
printed (an import's run recorded as interrupted); run again, it skips what is
stored, or goes on deleting, or resumes. events export stopped so: no file is left`,
  ],
  [
    EXIT.readerGone,
    'whatever read the output stopped reading (| head): the command ends there, quietly',
  ],
];
const OPTIONAL_EXITS: readonly ExitCode[] = [EXIT.someInvalid, EXIT.interrupted];

function indent(text: string, spaces: number): string {
  return text
    .trim()
    .split('\n')
    .map((line) => ' '.repeat(spaces) + line)
    .join('\n');
}

/** `prefix` and the usage's first line, its other lines aligned under the options. */
function usageLines(prefix: string, command: CommandHelp): string {
  const [first, ...more] = command.usage;
  const head = `${prefix}${command.name}${first ? ` ${first}` : ''}`;
  const align = ' '.repeat(prefix.length + command.name.length + 1);
  return [head, ...more.map((line) => align + line)].join('\n');
}

/** A command as listed in the full reference and in its group's help. */
function entry(command: CommandHelp): string {
  return `${usageLines('  ', command)}\n${indent(command.about, 6)}`;
}

function exitSection(commands: CommandHelp[] | 'all'): string {
  const listed = EXIT_CODES.filter(
    ([code]) =>
      commands === 'all' ||
      !OPTIONAL_EXITS.includes(code) ||
      commands.some((command) => command.exits?.includes(code)),
  );
  const lines = listed.map(([code, text]) => {
    const [first, ...more] = text.split('\n');
    return [`  ${String(code).padEnd(4)}${first}`, ...more.map((line) => `      ${line}`)].join(
      '\n',
    );
  });
  return `Exit codes:\n${lines.join('\n')}`;
}

function valuesSection(values: Value[]): string {
  const lines = (Object.keys(VALUES) as Value[])
    .filter((value) => values.includes(value))
    .map((value) => `  ${value.padEnd(8)}${VALUES[value]}`);
  return `Values:\n${lines.join('\n')}`;
}

/** What one command or a group's commands share with the reference: filters, options, values, exit codes. */
function sharedSections(commands: CommandHelp[]): string[] {
  const values = [...new Set(commands.flatMap((command) => command.values ?? []))];
  return [
    ...(commands.some((command) => command.filters) ? [FILTERS] : []),
    OPTIONS,
    ...(values.length > 0 ? [valuesSection(values)] : []),
    exitSection(commands),
  ];
}

function examplesSection(commands: CommandHelp[]): string {
  const lines = commands.flatMap((command) => command.examples);
  return `Examples:\n${lines.map((line) => `  ${PROGRAM} ${line}`).join('\n')}`;
}

function commandHelp(command: CommandHelp): string {
  return `${[
    usageLines(`Usage: ${PROGRAM} `, command),
    indent(command.about, 2),
    examplesSection([command]),
    ...sharedSections([command]),
    `Run '${PROGRAM} help' for every command.`,
  ].join('\n\n')}\n`;
}

function groupHelp(group: GroupHelp): string {
  return `${[
    `Usage: ${PROGRAM} ${group.name} <subcommand> [options]`,
    `Subcommands:\n${group.subcommands.map(entry).join('\n')}`,
    examplesSection(group.subcommands),
    ...sharedSections(group.subcommands),
    `Run '${PROGRAM} ${group.name} <subcommand> --help' for one subcommand, '${PROGRAM} help' for every command.`,
  ].join('\n\n')}\n`;
}

function isGroup(topic: Topic): topic is GroupHelp {
  return 'subcommands' in topic;
}

/** The full reference: every command's section, then what they share. */
export const HELP = `${[
  'org-events admin CLI',
  `Usage: ${PROGRAM} <command> [options] [--json] [--database URL]
       (or npm run cli -- <command> ...; npm prints its own banner on stdout,
       so pipe --json output from ${PROGRAM})`,
  `Commands:\n${TOPICS.map((topic) =>
    isGroup(topic) ? topic.subcommands.map(entry).join('\n') : entry(topic),
  ).join('\n\n')}`,
  FILTERS,
  OPTIONS,
  valuesSection(Object.keys(VALUES) as Value[]),
  exitSection('all'),
  `Run '${PROGRAM} <command> --help' for one command's usage, examples and exit codes.`,
].join('\n\n')}\n`;

/** The command `words` (the command line without its global options) names, as far as it names one. */
function topicOf(words: string[]): { topic?: Topic; sub?: CommandHelp; unknown?: string } {
  const [name, sub] = words;
  if (name === undefined || name.startsWith('-')) return {};
  const topic = TOPICS.find((candidate) => candidate.name === name);
  if (!topic) return { unknown: name };
  if (!isGroup(topic) || sub === undefined || sub.startsWith('-')) return { topic };
  const subcommand = topic.subcommands.find((candidate) => candidate.name === `${name} ${sub}`);
  return subcommand ? { topic, sub: subcommand } : { topic, unknown: `${name} ${sub}` };
}

/**
 * The help for `words` (`help WORDS`, or WORDS with --help): a command's or
 * a group's own, or the full reference when they name none. Naming a
 * command there is not is a usage error.
 */
export function helpFor(words: string[]): string {
  const { topic, sub, unknown } = topicOf(words);
  if (unknown !== undefined) throw new UsageError(`Unknown command '${unknown}'`);
  if (sub) return commandHelp(sub);
  if (!topic) return HELP;
  return isGroup(topic) ? groupHelp(topic) : commandHelp(topic);
}

/**
 * Where a usage error in the command line `words` sends its reader: the
 * help of the command or subcommand it is in, else the full reference.
 */
export function helpCommandFor(words: string[]): string {
  const { topic, sub } = topicOf(words);
  if (sub) return `${PROGRAM} ${sub.name} --help`;
  if (!topic || topic.name === 'help') return `${PROGRAM} help`;
  return `${PROGRAM} ${topic.name} --help`;
}
