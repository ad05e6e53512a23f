import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cli, cliWith } from './run-cli';

/** Every command and subcommand with what its own help must say (its options, its values, its exit codes). */
const COMMANDS: [string, RegExp[]][] = [
  ['migrate', [/schema/]],
  ['backup', [/--out FILE/, /pg_dump/]],
  ['orgs create', [/--name NAME/, /--id ID/]],
  ['orgs list', [/event counts/]],
  ['keys create', [/--role ROLE/, /--description TEXT/, /ROLE +ORG_OWNER, /]],
  ['keys grant', [/--key PUBLIC_KEY --org ORG_ID --role ROLE/, /ROLE +ORG_OWNER, /]],
  ['keys list', [/--org ORG_ID/]],
  ['keys revoke', [/--key PUBLIC_KEY/]],
  ['keys rotate', [/new private key/]],
  ['keys rehash', [/ORG_EVENTS_SECRET/]],
  ['seed', [/--events N/, /--create-org/, /DATE +2026-01-31/, /^ +130 /m]],
  ['import', [/--rehome/, /--max-record-bytes N/, /^ +2 /m, /^ +130 /m]],
  ['imports list', [/--limit N/]],
  ['imports undo', [/--force/, /^ +130 /m]],
  ['events list', [/--page N/, /--exclude-type T/, /DATE +2026-01-31/]],
  ['events get', [/--id EVENT_ID/]],
  ['events export', [/--format ndjson\|csv/, /--exclude-type T/, /^ +130 /m]],
  ['events prune', [/--before DATE/, /--dry-run/, /^ +130 /m]],
  ['mirror', [/--source BASE_URL/, /MIRROR_PRIVATE_KEY/, /^ +2 /m, /^ +130 /m]],
  ['help', [/Every command's reference/]],
];
const GROUPS = ['orgs', 'keys', 'imports', 'events'];

const helps = new Map<string, string>();

/** The help of one command, as `<command> --help` prints it (run once per command: it reads no store). */
function helpOf(db: string, command: string): string {
  const known = helps.get(command);
  if (known !== undefined) return known;
  const result = cli(db, ...command.split(' '), '--help');
  assert.equal(result.code, 0, `${command}: ${result.stderr}`);
  assert.equal(result.stderr, '', command);
  helps.set(command, result.stdout);
  return result.stdout;
}

/** Another command's usage or example line in `text`: the whole reference, not one command's. */
function otherCommands(text: string, own: (other: string) => boolean): string[] {
  return COMMANDS.map(([name]) => name).filter(
    (other) =>
      !own(other) &&
      (new RegExp(`npx org-events ${other}(?: |$)`, 'm').test(text) ||
        new RegExp(`^ +${other} (?:-|[A-Z])`, 'm').test(text)),
  );
}

/** The description of a command in its own help: the paragraph after the usage lines. */
function description(help: string): string {
  const paragraphs = help.split('\n\n');
  assert.match(paragraphs[0]!, /^Usage: /);
  return paragraphs[1]!.replace(/\s+/g, ' ').trim();
}

/** A line of the examples as the arguments it gives the CLI (double quotes group words). */
function exampleArgs(line: string): string[] {
  const command = line.replace(/^ *npx org-events /, '').replace(/ \| .*$/, '');
  return [...command.matchAll(/"([^"]*)"|(\S+)/g)].map((m) => m[1] ?? m[2]!);
}

function examples(help: string): string[] {
  const section = help.split('\n\n').find((p) => p.startsWith('Examples:'));
  assert.ok(section, `no examples in:\n${help}`);
  return section.split('\n').slice(1);
}

describe('CLI help', () => {
  let dir: string;
  let db: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-help-'));
    db = path.join(dir, 'help.db');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test("each command's --help prints its own usage, options, examples and exit codes, not the whole reference", () => {
    for (const [command, says] of COMMANDS) {
      const help = helpOf(db, command);
      assert.ok(help.startsWith(`Usage: npx org-events ${command}`), `${command}:\n${help}`);
      for (const pattern of says) assert.match(help, pattern, command);
      assert.ok(
        examples(help).every((line) => line.startsWith(`  npx org-events ${command}`)),
        `${command}:\n${help}`,
      );
      assert.match(help, /--json /, command);
      assert.match(help, /--database URL /, command);
      assert.match(help, /^Exit codes:\n +0 +success\n +1 +the command failed/m, command);
      assert.match(help, /^ +64 +bad command line/m, command);
      assert.match(help, /Run 'npx org-events help' for every command/, command);
      assert.deepEqual(
        otherCommands(help, (other) => other === command),
        [],
        `${command}:\n${help}`,
      );
    }
    // Exit codes that are not the command's are not listed.
    assert.doesNotMatch(helpOf(db, 'orgs list'), /^ +(2|130) /m);
    assert.doesNotMatch(helpOf(db, 'events list'), /^ +(2|130) /m);
  });

  test("a command group's --help prints its subcommands, each with its usage", () => {
    for (const group of GROUPS) {
      const help = helpOf(db, group);
      assert.ok(help.startsWith(`Usage: npx org-events ${group} <subcommand>`), help);
      const subcommands = COMMANDS.map(([name]) => name).filter((name) =>
        name.startsWith(`${group} `),
      );
      assert.ok(subcommands.length >= 2, group);
      for (const subcommand of subcommands) {
        assert.match(help, new RegExp(`^  ${subcommand}(?: |$)`, 'm'), `${group}: ${subcommand}`);
        assert.ok(
          help.replace(/\s+/g, ' ').includes(description(helpOf(db, subcommand))),
          `${group}: ${subcommand}`,
        );
      }
      assert.match(help, new RegExp(`Run 'npx org-events ${group} <subcommand> --help'`));
      assert.deepEqual(
        otherCommands(help, (other) => other.startsWith(`${group} `)),
        [],
        `${group}:\n${help}`,
      );
    }
    assert.match(helpOf(db, 'keys'), /ROLE +ORG_OWNER, /);
    assert.match(helpOf(db, 'events'), /^ +130 /m);
    assert.doesNotMatch(helpOf(db, 'orgs'), /^ +(2|130) /m);
  });

  test("help COMMAND and -h print the command's help, as --help does; under --json in a JSON document", () => {
    assert.notEqual(helpOf(db, 'import'), helpOf(db, 'keys'));
    for (const command of ['keys', 'events export']) {
      const help = helpOf(db, command);
      const words = command.split(' ');
      for (const args of [
        ['help', ...words],
        [...words, '-h'],
        ['-h', ...words],
      ]) {
        const result = cli(db, ...args);
        assert.equal(result.code, 0, args.join(' '));
        assert.equal(result.stdout, help, args.join(' '));
      }
      const json = cli(db, ...words, '--help', '--json');
      assert.equal(json.code, 0);
      assert.deepEqual(json.json, { help });
    }
    // Options around the command's own words do not change whose help it is.
    assert.equal(
      cli(db, 'events', 'list', '--org', '65a1b2c3d4e5f6a7b8c9d0e1', '--help').stdout,
      helpOf(db, 'events list'),
    );
  });

  test("the full reference still holds every command's section, and the options, values and exit codes", () => {
    const full = cli(db, 'help').stdout;
    assert.deepEqual(cli(db, '--help').stdout, full);
    assert.deepEqual(cli(db, 'help', '--json').json, { help: full });
    const flat = full.replace(/\s+/g, ' ');
    for (const [command] of COMMANDS) {
      assert.match(full, new RegExp(`^  ${command}(?: |\n)`, 'm'), command);
      assert.ok(flat.includes(description(helpOf(db, command))), command);
    }
    for (const heading of ['Commands:', 'Filters', 'Options for every command:', 'Values:']) {
      assert.ok(full.includes(heading), heading);
    }
    for (const code of [0, 1, 2, 64, 130, 141]) {
      assert.match(full, new RegExp(`^Exit codes:\n(?:.*\n)*? +${code} `, 'm'), String(code));
    }
  });

  test('every example in the help is a valid command line', () => {
    const empty = path.join(dir, 'empty.db');
    assert.equal(cli(empty, 'migrate').code, 0);
    for (const [command] of COMMANDS) {
      for (const line of examples(helpOf(db, command))) {
        // Run where nothing exists (an empty store, an empty directory, no
        // network call: no organization to mirror into): the command fails
        // on its missing organization or file, if at all.
        const cwd = fs.mkdtempSync(path.join(dir, 'cwd-'));
        const store = path.join(cwd, 'store.db');
        fs.copyFileSync(empty, store);
        const result = cliWith(
          { cwd, input: '', env: { MIRROR_PRIVATE_KEY: 'example-private-key' } },
          store,
          ...exampleArgs(line),
        );
        assert.notEqual(result.code, 64, `${line}: ${result.stderr}`);
      }
    }
  });

  test('a usage error names the help of the command it is in', () => {
    const cases: [string[], string][] = [
      [['import', '--org'], 'import --help'],
      [['import', '--bogus'], 'import --help'],
      [
        ['keys', 'create', '--org', '65a1b2c3d4e5f6a7b8c9d0e1', '--role', 'KING'],
        'keys create --help',
      ],
      [['keys'], 'keys --help'],
      [['keys', 'bogus'], 'keys --help'],
      [['imports', 'bogus'], 'imports --help'],
      [['events', 'export', '--format', 'xml'], 'events export --help'],
      [['frobnicate'], 'help'],
      [['frobnicate', '--help'], 'help'],
      [['keys', 'bogus', '--help'], 'keys --help'],
      [['help', 'frobnicate'], 'help'],
    ];
    for (const [args, help] of cases) {
      const result = cli(db, ...args);
      assert.equal(result.code, 64, args.join(' '));
      assert.equal(result.stdout, '', args.join(' '));
      assert.match(
        result.stderr,
        new RegExp(
          `^Error: .*\nRun 'npx org-events ${help.replaceAll('-', '\\-')}' for usage\\.\n$`,
        ),
        args.join(' '),
      );
    }
    // Every command and subcommand: an unknown option points at its own help.
    for (const [command] of COMMANDS.filter(([name]) => name !== 'help')) {
      const result = cli(db, ...command.split(' '), '--no-such-option');
      assert.equal(result.code, 64, command);
      assert.match(result.stderr, /Unknown option '--no-such-option'/, command);
      assert.ok(
        result.stderr.includes(`Run 'npx org-events ${command} --help' for usage.`),
        `${command}: ${result.stderr}`,
      );
    }
  });
});
