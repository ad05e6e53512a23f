import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { createHash } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import Database from 'better-sqlite3';
import pgModule from 'pg';
import { generateEvents } from '@/lib/ingest/seed';
import { MIGRATION_NAMES } from '@/lib/store/migrations';
import { createTestDatabase } from '../helpers/postgres';
import { cli, cliWithInput, ROOT, startCli } from './run-cli';

const ORG = '6b1c2d3e4f5a6b7c8d9e0f1a';
const ORG_2 = '6b1c2d3e4f5a6b7c8d9e0f1b';

type Json = Record<string, unknown>;

/** The `n` column of a PostgreSQL query's first row, as a number. */
async function scalar(client: pgModule.Client, query: string): Promise<number> {
  return Number((await client.query<{ n: string }>(query)).rows[0]!.n);
}

describe('admin CLI', () => {
  let dir: string;
  let db: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-cli-'));
    db = path.join(dir, 'cli.db');
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('help exits 0; no command, unknown commands and options exit 64 (under --json with an error)', () => {
    const help = cli(db, 'help');
    assert.equal(help.code, 0);
    assert.match(help.stdout, /Exit codes:/);
    assert.equal(cli(db).code, 64);
    assert.equal(cli(db, 'help', '--json').code, 0);
    // --json without a command: a usage error like the others, not the help.
    const noCommand = cli(db, '--json');
    assert.equal(noCommand.code, 64);
    const noCommandError = (noCommand.json as { error: Json }).error;
    assert.equal(noCommandError.code, 'usage');
    assert.equal(noCommandError.exitCode, 64);
    assert.match(String(noCommandError.message), /^Missing command: migrate, .*, help$/);
    assert.match(noCommand.stderr, /Missing command/);
    const unknown = cli(db, 'frobnicate', '--json');
    assert.equal(unknown.code, 64);
    assert.deepEqual((unknown.json as Json).error, {
      code: 'usage',
      message: "Unknown command 'frobnicate'",
      exitCode: 64,
    });
    assert.match(unknown.stderr, /Unknown command 'frobnicate'/);
    // Names every object has (the command table is a plain object) are no commands either.
    for (const name of ['constructor', 'toString', '__proto__']) {
      const inherited = cli(db, name);
      assert.equal(inherited.code, 64, name);
      assert.match(inherited.stderr, new RegExp(`Unknown command '${name}'`), name);
    }
    assert.equal(cli(db, 'orgs', 'list', '--colour').code, 64);
  });

  test('bad values are usage errors with a clear one-line message', () => {
    const cases: [string[], RegExp][] = [
      [['orgs', 'create'], /--name is required/],
      [['orgs', 'create', '--name', 'X', '--id', 'ABC'], /--id must be 24 lowercase hexadecimal/],
      [['orgs', 'create', '--name', '😀'.repeat(65)], /--name must be at most 64 characters/],
      ...['a\tb', 'a\nb', 'a\u2028b', 'a\u007fb', 'abc\u202egnp.exe', 'a\u200bb'].map(
        (name): [string[], RegExp] => [
          ['orgs', 'create', '--name', name],
          /--name must be one line of visible characters/,
        ],
      ),
      [
        ['seed', '--org', ORG, '--events', '10', '--create-org', '--name', 'a\rb'],
        /--name must be one line of visible characters/,
      ],
      [['keys', 'create', '--org', ORG, '--role', 'ROOT'], /--role must be one of ORG_OWNER/],
      [['keys', 'revoke', '--key', 'NOPE'], /--key must be a public key/],
      [['seed', '--org', ORG, '--events', 'lots'], /--events must be a whole number/],
      [['seed', '--org', ORG, '--events', '0'], /--events must be a whole number from 1/],
      [['seed', '--org', ORG, '--events', '10', '--from', '01/02/2026'], /--from must be a date/],
      [['seed', '--org', ORG, '--events', '10', '--from', '2026-02-30'], /--from must be a date/],
      [
        ['seed', '--org', ORG, '--events', '10', '--from', '2026-03-01', '--to', '2026-02-01'],
        /--from must be before --to/,
      ],
      [['import', '--org', ORG], /Missing FILE/],
      ...(['abcdefgh\r', 'ab☃cdefg'] as const).map((key): [string[], RegExp] => [
        [
          ...['mirror', '--org', ORG, '--source', 'http://127.0.0.1:9/api/public/v1.0'],
          ...['--source-org', ORG, '--public-key', key, '--private-key', 'secret'],
        ],
        /--public-key holds a space, a control character \(a carriage return/,
      ]),
      [
        [
          ...['mirror', '--org', ORG, '--source', 'http://127.0.0.1:9/api/public/v1.0'],
          ...['--source-org', ORG, '--public-key', 'abcdefgh', '--private-key', 'secret\r'],
        ],
        /The private key holds a space, a control character/,
      ],
      [
        [
          ...['mirror', '--org', ORG, '--source', 'http://me:pw@127.0.0.1:9/api/public/v1.0'],
          ...['--source-org', ORG, '--public-key', 'abcdefgh', '--private-key', 'secret'],
        ],
        /--source must not hold a user name or password/,
      ],
      [
        [
          ...['mirror', '--org', ORG, '--source', 'http://127.0.0.1:9/api/public/v1.0?x=1'],
          ...['--source-org', ORG, '--public-key', 'abcdefgh', '--private-key', 'secret'],
        ],
        /--source is the API's base URL, without a query or fragment/,
      ],
      [
        [
          ...['mirror', '--org', ORG, '--source', 'http://127.0.0.1:9/api/public/v1.0?'],
          ...['--source-org', ORG, '--public-key', 'abcdefgh', '--private-key', 'secret'],
        ],
        /--source is the API's base URL, without a query or fragment/,
      ],
      [
        [
          ...['mirror', '--org', ORG, '--source', 'http://127.0.0.1:9/api/public/v1.0'],
          ...['--source-org', ORG, '--public-key', 'abcdefgh', '--private-key', 'secret'],
          ...['--since', new Date(Date.now() + 86_400_000).toISOString()],
        ],
        /--since lies in the future/,
      ],
      [
        [
          ...['mirror', '--org', ORG, '--source', 'http://127.0.0.1:9/api/public/v1.0'],
          ...['--source-org', ORG, '--public-key', 'abcdefgh', '--private-key', 'secret'],
          ...['--max-record-bytes', '1023'],
        ],
        /--max-record-bytes must be a whole number from 1,024 to/,
      ],
    ];
    for (const [args, message] of cases) {
      const result = cli(db, ...args);
      assert.equal(result.code, 64, `${args.join(' ')}: ${result.stderr}`);
      assert.match(result.stderr.split('\n')[0]!, message, args.join(' '));
    }
  });

  test('migrate names the migrations it applied, and says when there were none', () => {
    // It said "up to date" on a database it had just created.
    const fresh = `file:${path.join(dir, 'migrate.db')}`;
    const first = cli(fresh, 'migrate', '--json');
    assert.equal(first.code, 0, first.stderr);
    assert.deepEqual(first.json, { migrated: true, applied: MIGRATION_NAMES });
    const again = cli(fresh, 'migrate');
    assert.equal(again.code, 0, again.stderr);
    assert.equal(again.stdout, 'The database was up to date: no migration to apply.\n');
    const text = cli(`file:${path.join(dir, 'migrate-text.db')}`, 'migrate');
    assert.equal(
      text.stdout,
      `Applied ${MIGRATION_NAMES.length} migrations (${MIGRATION_NAMES[0]} to ${MIGRATION_NAMES.at(-1)}): the database is up to date.\n`,
    );
  });

  test('orgs create and list; a duplicate id fails with exit 1', () => {
    const created = cli(db, 'orgs', 'create', '--name', 'CLI Org', '--id', ORG, '--json');
    assert.equal(created.code, 0, created.stderr);
    assert.deepEqual(
      { ...(created.json as Json), created: undefined },
      {
        id: ORG,
        name: 'CLI Org',
        created: undefined,
      },
    );
    assert.equal(cli(db, 'orgs', 'create', '--name', 'Second', '--id', ORG_2).code, 0);
    // 64 characters, whatever their UTF-16 length (these 64 take 128 units).
    const emoji = cli(db, 'orgs', 'create', '--name', '😀'.repeat(64), '--json');
    assert.equal(emoji.code, 0, emoji.stderr);
    const emojiId = (emoji.json as Json).id as string;
    const duplicate = cli(db, 'orgs', 'create', '--name', 'Again', '--id', ORG, '--json');
    assert.equal(duplicate.code, 1);
    assert.match(((duplicate.json as Json).error as Json).message as string, /already exists/);
    const list = cli(db, 'orgs', 'list', '--json');
    assert.equal(list.code, 0);
    assert.deepEqual(
      (list.json as Json[]).map((o) => [o.id, o.name, o.events]),
      [
        [ORG, 'CLI Org', 0],
        [ORG_2, 'Second', 0],
        [emojiId, '😀'.repeat(64), 0],
      ],
    );
    assert.match(cli(db, 'orgs', 'list').stdout, /^ID\s+NAME\s+EVENTS\s+CREATED\n/);
  });

  test('keys: create shows the private key once, it is never stored, list never shows secrets', () => {
    const created = cli(
      db,
      'keys',
      'create',
      '--org',
      ORG,
      '--role',
      'org_member',
      '--description',
      'ci',
      '--json',
    );
    assert.equal(created.code, 0, created.stderr);
    const key = created.json as Json;
    assert.match(key.publicKey as string, /^[a-z]{8}$/);
    assert.match(key.privateKey as string, /^[0-9a-f-]{36}$/);
    assert.equal(key.role, 'ORG_MEMBER');
    assert.match(created.stderr, /shown only now/);

    const text = cli(db, 'keys', 'create', '--org', ORG, '--role', 'ORG_OWNER');
    assert.equal(text.code, 0);
    const secondPrivate = /Private key:\s+(\S+)/.exec(text.stdout)![1]!;

    // No private key in any of the database's files: main file, WAL, shared memory.
    const files = fs.readdirSync(dir).filter((f) => f.startsWith('cli.db'));
    assert.ok(files.includes('cli.db'));
    const bytes = Buffer.concat(files.map((f) => fs.readFileSync(path.join(dir, f))));
    for (const secret of [key.privateKey as string, secondPrivate]) {
      assert.equal(bytes.includes(secret), false, 'private key found in the database files');
      assert.equal(bytes.includes(secret.replace(/-/g, '')), false);
      assert.equal(bytes.includes(Buffer.from(secret, 'utf16le')), false);
    }
    // The scan does see the database's content: the public key is there.
    assert.equal(bytes.includes(key.publicKey as string), true);

    const list = cli(db, 'keys', 'list', '--org', ORG, '--json');
    assert.equal(list.code, 0);
    const listed = list.json as Json[];
    assert.equal(listed.length, 2);
    const serialized = JSON.stringify(listed);
    assert.doesNotMatch(serialized, /privateKey|ha1|[0-9a-f]{32}/i);
    assert.deepEqual(listed.find((k) => k.publicKey === key.publicKey)!.roles, [
      { orgId: ORG, role: 'ORG_MEMBER' },
    ]);
  });

  test('without ORG_EVENTS_SECRET keys are sealed with the secret file beside the database; keys rehash moves them to ORG_EVENTS_SECRET, after which keys are issued only with it', () => {
    // A database of its own: once sealed under the variable, keys are issued there only with it.
    const sealed = path.join(dir, 'sealed.db');
    const secretFile = path.join(dir, 'sealed.secret');
    assert.equal(cli(sealed, 'orgs', 'create', '--name', 'Sealed', '--id', ORG).code, 0);
    const created = cli(sealed, 'keys', 'create', '--org', ORG, '--role', 'ORG_MEMBER', '--json');
    assert.equal(created.code, 0, created.stderr);
    const { publicKey, privateKey } = created.json as { publicKey: string; privateKey: string };
    const md5 = createHash('md5').update(`${publicKey}:MMS Public API:${privateKey}`).digest('hex');
    const dbBytes = () =>
      Buffer.concat(
        fs
          .readdirSync(dir)
          .filter((f) => f.startsWith('sealed.db'))
          .map((f) => fs.readFileSync(path.join(dir, f))),
      );
    assert.equal(dbBytes().includes(md5), false, 'the HA1 is sealed, not stored as it is');
    const fileSecret = fs.readFileSync(secretFile, 'utf8').trim();
    assert.match(fileSecret, /^[0-9a-f]{64}$/);

    // Re-encrypted under the file's secret, which needs no variable.
    const again = cli(sealed, 'keys', 'rehash', '--json');
    assert.equal(again.code, 0, again.stderr);
    assert.deepEqual(again.json, { sealed: [], resealed: [publicKey], unreadable: [] });

    // Moved to ORG_EVENTS_SECRET, with the file's secret as the previous one.
    process.env.ORG_EVENTS_SECRET = 'a'.repeat(64);
    process.env.ORG_EVENTS_PREVIOUS_SECRET = fileSecret;
    try {
      const rehashed = cli(sealed, 'keys', 'rehash', '--json');
      assert.equal(rehashed.code, 0, rehashed.stderr);
      assert.deepEqual(rehashed.json, { sealed: [], resealed: [publicKey], unreadable: [] });
      delete process.env.ORG_EVENTS_PREVIOUS_SECRET;
      const withSecret = cli(sealed, 'keys', 'create', '--org', ORG, '--role', 'ORG_MEMBER');
      assert.equal(withSecret.code, 0, withSecret.stderr);
    } finally {
      delete process.env.ORG_EVENTS_SECRET;
      delete process.env.ORG_EVENTS_PREVIOUS_SECRET;
    }
    assert.equal(dbBytes().includes(md5), false, 'nor in the database files after');
    // Without the variable, the file's secret opens none of them: a key sealed with it would not authenticate.
    const unsealed = cli(sealed, 'keys', 'create', '--org', ORG, '--role', 'ORG_MEMBER', '--json');
    assert.equal(unsealed.code, 1);
    assert.match(
      (unsealed.json as { error: { message: string } }).error.message,
      /^The secret file .*sealed\.secret \(ORG_EVENTS_SECRET is not set\) opens none of this database's API keys/,
    );
  });

  test('keys rehash on PostgreSQL, where the generated secret is kept in the database, needs ORG_EVENTS_SECRET: a configuration error', async () => {
    const database = await createTestDatabase();
    try {
      assert.equal(cli(database.url, 'orgs', 'create', '--name', 'Plain', '--id', ORG).code, 0);
      const created = cli(database.url, 'keys', 'create', '--org', ORG, '--role', 'ORG_MEMBER');
      assert.equal(created.code, 0, created.stderr);
      // The environment lacks the secret, not the command line: a configuration error.
      const refused = cli(database.url, 'keys', 'rehash', '--json');
      assert.equal(refused.code, 1, refused.stderr);
      assert.deepEqual((refused.json as Json).error, {
        code: 'config',
        message:
          'keys rehash needs ORG_EVENTS_SECRET (at least 32 characters): the secret to encrypt with',
        exitCode: 1,
      });
      assert.doesNotMatch(refused.stderr, /for usage/, 'no hint about the command line');
    } finally {
      await database.drop();
    }
  });

  test('keys grant and revoke; unknown keys and orgs fail with exit 1', () => {
    const key = cli(db, 'keys', 'create', '--org', ORG, '--role', 'ORG_READ_ONLY', '--json')
      .json as Json;
    const publicKey = key.publicKey as string;
    const granted = cli(
      db,
      'keys',
      'grant',
      '--key',
      publicKey,
      '--org',
      ORG_2,
      '--role',
      'ORG_OWNER',
      '--json',
    );
    assert.equal(granted.code, 0, granted.stderr);
    const inOrg2 = cli(db, 'keys', 'list', '--org', ORG_2, '--json').json as Json[];
    assert.deepEqual(
      inOrg2.map((k) => [k.publicKey, k.roles]),
      [[publicKey, [{ orgId: ORG_2, role: 'ORG_OWNER' }]]],
    );
    const revoked = cli(db, 'keys', 'revoke', '--key', publicKey, '--json');
    assert.equal(revoked.code, 0);
    assert.deepEqual(revoked.json, { publicKey, disabled: true });
    const all = cli(db, 'keys', 'list', '--json').json as Json[];
    assert.equal(all.find((k) => k.publicKey === publicKey)!.disabled, true);

    assert.equal(cli(db, 'keys', 'revoke', '--key', 'zzzzzzzz').code, 1);
    assert.equal(
      cli(db, 'keys', 'grant', '--key', 'zzzzzzzz', '--org', ORG, '--role', 'ORG_OWNER').code,
      1,
    );
    const noOrg = cli(
      db,
      'keys',
      'create',
      '--org',
      'ffffffffffffffffffffffff',
      '--role',
      'ORG_OWNER',
    );
    assert.equal(noOrg.code, 1);
    assert.match(noOrg.stderr, /No organization with id ffffffffffffffffffffffff/);
  });

  test('seed is deterministic and idempotent, shows progress, and needs an existing org', () => {
    const args = [
      'seed',
      '--org',
      ORG,
      '--events',
      '3_000',
      '--seed',
      '9',
      '--from',
      '2026-01-01',
      '--to',
      '2026-02-01',
    ];
    const first = cli(db, ...args, '--json');
    assert.equal(first.code, 0, first.stderr);
    const summary = first.json as Json;
    assert.equal(summary.inserted, 3000);
    assert.equal(summary.from, '2026-01-01T00:00:00.000Z');
    assert.ok((summary.eventsPerSecond as number) > 0);
    assert.match(first.stderr, /Seeding\s+100% 3,000 \/ 3,000 events/);
    const again = cli(db, ...args, '--json').json as Json;
    assert.deepEqual([again.inserted, again.skipped], [0, 3000]);

    const missing = cli(db, 'seed', '--org', 'eeeeeeeeeeeeeeeeeeeeeeee', '--events', '10');
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /--create-org --name/);
    const created = cli(
      db,
      'seed',
      '--org',
      'eeeeeeeeeeeeeeeeeeeeeeee',
      '--events',
      '10',
      '--create-org',
      '--name',
      'Fresh',
      '--json',
    );
    assert.equal(created.code, 0, created.stderr);
    assert.equal((created.json as Json).inserted, 10);
  });

  test('import: exit 0 when clean, 2 when some records are invalid, 1 when the file is broken', () => {
    const events = [
      ...generateEvents({
        orgId: ORG_2,
        count: 300,
        seed: 3,
        from: Date.UTC(2026, 0, 1),
        to: Date.UTC(2026, 0, 2),
      }),
    ];
    const good = path.join(dir, 'good.json');
    fs.writeFileSync(good, JSON.stringify({ results: events, totalCount: 300 }, null, 2));
    const clean = cli(db, 'import', '--org', ORG_2, good, '--json');
    assert.equal(clean.code, 0, clean.stderr);
    assert.deepEqual(
      ['format', 'read', 'inserted', 'duplicates', 'invalid'].map((k) => (clean.json as Json)[k]),
      ['envelope', 300, 300, 0, 0],
    );
    const rerun = cli(db, 'import', '--org', ORG_2, good);
    assert.equal(rerun.code, 0);
    assert.match(rerun.stdout, /300 read, 0 inserted, 300 already present, 0 invalid/);
    // Nothing added, nothing to undo: no undo is offered.
    assert.doesNotMatch(rerun.stdout, /imports undo/);

    const mixed = path.join(dir, 'mixed.ndjson');
    fs.writeFileSync(mixed, ['{"id":"bad"}', JSON.stringify(events[0]), 'nonsense'].join('\n'));
    const partly = cli(db, 'import', '--org', ORG_2, mixed, '--json');
    assert.equal(partly.code, 2);
    const issues = (partly.json as Json).issues as Json[];
    assert.deepEqual(
      issues.map((i) => i.location),
      ['line 1', 'line 3'],
    );
    const partlyText = cli(db, 'import', '--org', ORG_2, mixed);
    assert.equal(partlyText.code, 2);
    assert.match(partlyText.stderr, /Skipped line 1: id: id must be 24 lowercase hex digits/);

    const piped = cliWithInput(
      db,
      events
        .slice(0, 2)
        .map((e) => JSON.stringify({ ...e, id: `${e.id.slice(0, 20)}ffff` }))
        .join('\n'),
      'import',
      '--org',
      ORG_2,
      '-',
      '--json',
    );
    assert.equal(piped.code, 0, piped.stderr);
    assert.deepEqual([(piped.json as Json).format, (piped.json as Json).inserted], ['ndjson', 2]);

    // A named pipe, as bash's process substitution gives one (/dev/fd/63).
    const substituted = path.join(dir, 'substituted.ndjson');
    fs.writeFileSync(
      substituted,
      events
        .slice(0, 3)
        .map((e) => JSON.stringify({ ...e, id: `${e.id.slice(0, 20)}eeee` }))
        .join('\n'),
    );
    const fromPipe = spawnSync(
      'bash',
      [
        '-c',
        'node bin/org-events.mjs import --org "$1" <(cat "$2") --database "$3" --json',
        'import-substituted',
        ORG_2,
        substituted,
        db,
      ],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_ENV: 'test' }, timeout: 120_000 },
    );
    assert.equal(fromPipe.status, 0, fromPipe.stderr);
    const pipeSummary = JSON.parse(fromPipe.stdout) as Json;
    assert.deepEqual([pipeSummary.format, pipeSummary.inserted], ['ndjson', 3]);
    assert.match(pipeSummary.file as string, /^\/dev\/fd\/\d+$/);

    const broken = path.join(dir, 'broken.json');
    fs.writeFileSync(broken, '[{"id": 1}');
    const fatal = cli(db, 'import', '--org', ORG_2, broken, '--json');
    assert.equal(fatal.code, 1);
    // The summary, its error in the shape of every command's error.
    const fatalJson = fatal.json as Json & { error: Json };
    assert.deepEqual([fatalJson.error.code, fatalJson.error.exitCode], ['failed', 1]);
    assert.match(fatalJson.error.message as string, /truncated/);
    assert.equal(typeof fatalJson.runId, 'string');
    assert.equal(fatalJson.format, 'array');
    // Three whole events before the break, batches of two: the third is read
    // but not imported, and the summary says so (read adds up).
    const cutShort = path.join(dir, 'cut-short.json');
    const three = events
      .slice(0, 3)
      .map((e) => JSON.stringify({ ...e, id: `${e.id.slice(0, 20)}cccc` }));
    fs.writeFileSync(cutShort, `[${three.join(',')},{"id": "65a1`);
    const cut = cli(db, 'import', '--org', ORG_2, cutShort, '--batch-size', '2', '--json');
    assert.equal(cut.code, 1, cut.stderr);
    const cutJson = cut.json as Json & { error: Json };
    assert.deepEqual(
      [cutJson.read, cutJson.inserted, cutJson.duplicates, cutJson.invalid, cutJson.notImported],
      [3, 2, 0, 0, 1],
    );
    assert.match(
      cutJson.error.message as string,
      /stay imported; the 1 event read after the last of them is not; fix the file/,
    );
    assert.match(
      cli(db, 'import', '--org', ORG_2, cutShort, '--batch-size', '2').stdout,
      /: 3 read, 0 inserted, 2 already present, 0 invalid, 1 not imported \(/,
    );
    // Refused before its format was known: the summary names none instead of a default.
    const csv = path.join(dir, 'events.csv');
    fs.writeFileSync(csv, 'id,created\n1,2\n');
    const refused = cli(db, 'import', '--org', ORG_2, csv, '--json');
    assert.equal(refused.code, 1);
    assert.equal((refused.json as Json).format, null);
    assert.match(
      cli(db, 'import', '--org', ORG_2, csv).stdout,
      /^Stopped .*events\.csv \(format not recognised, 15 B\)/m,
    );
    assert.equal(cli(db, 'import', '--org', ORG_2, path.join(dir, 'nope.json')).code, 1);
    assert.equal(cli(db, 'import', '--org', 'dddddddddddddddddddddddd', good).code, 1);
  });

  test('a crash mid-import leaves whole batches only, and re-running completes it', async () => {
    const crashDb = path.join(dir, 'crash.db');
    assert.equal(cli(crashDb, 'orgs', 'create', '--name', 'Crash', '--id', ORG).code, 0);
    const file = path.join(dir, 'big.ndjson');
    const count = 60_000;
    const out = fs.createWriteStream(file);
    for (const e of generateEvents({
      orgId: ORG,
      count,
      seed: 5,
      from: Date.UTC(2026, 0, 1),
      to: Date.UTC(2026, 2, 1),
    })) {
      out.write(`${JSON.stringify(e)}\n`);
    }
    await new Promise((resolve) => out.end(resolve));

    const batch = 400;
    const child = startCli(crashDb, 'import', '--org', ORG, file, '--batch-size', String(batch));
    const exited = new Promise((resolve) => child.once('exit', resolve));
    const reader = new Database(crashDb, { readonly: true, fileMustExist: true });
    const countRows = () =>
      (reader.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
    let seen = 0;
    const deadline = Date.now() + 60_000;
    while (seen === 0 && Date.now() < deadline && child.exitCode === null) {
      await new Promise((resolve) => setTimeout(resolve, 10));
      seen = countRows();
    }
    child.kill('SIGKILL');
    await exited;
    const stored = countRows();
    const counted = (
      reader
        .prepare("SELECT coalesce(sum(n), 0) AS n FROM event_counts WHERE event_type = ''")
        .get() as { n: number }
    ).n;
    reader.close();
    assert.ok(stored > 0 && stored < count, `killed after ${stored} of ${count} events`);
    assert.equal(stored % batch, 0, 'a partial batch was committed');
    assert.equal(counted, stored, 'counters disagree with the rows');

    const resumed = cli(crashDb, 'import', '--org', ORG, file, '--json');
    assert.equal(resumed.code, 0, resumed.stderr);
    assert.deepEqual(
      [(resumed.json as Json).inserted, (resumed.json as Json).duplicates],
      [count - stored, stored],
    );
  });

  test('an import in small batches with repeated ids: PostgreSQL (batches written at once) stores what SQLite does, counters exact', async () => {
    const events = [
      ...generateEvents({
        orgId: ORG,
        count: 6_000,
        seed: 9,
        from: Date.UTC(2026, 0, 1),
        to: Date.UTC(2026, 0, 11),
      }),
    ];
    // 300 ids again, near and far from their first copy (other batches).
    const lines = [...events, ...events.slice(0, 150), ...events.slice(2_900, 3_050)]
      .map((e) => JSON.stringify(e))
      .join('\n');
    const file = path.join(dir, 'small-batches.ndjson');
    fs.writeFileSync(file, lines);
    const sqliteDb = path.join(dir, 'small-batches.db');
    const pg = await createTestDatabase();
    try {
      const dictionaries: string[][] = [];
      for (const target of [sqliteDb, pg.url]) {
        assert.equal(cli(target, 'orgs', 'create', '--name', 'Small', '--id', ORG).code, 0);
        const imported = cli(target, 'import', '--org', ORG, file, '--batch-size', '250', '--json');
        assert.equal(imported.code, 0, imported.stderr);
        assert.deepEqual(
          ['read', 'inserted', 'duplicates'].map((k) => (imported.json as Json)[k]),
          [6_300, 6_000, 300],
        );
      }
      const reader = new Database(sqliteDb, { readonly: true, fileMustExist: true });
      try {
        dictionaries.push(
          (reader.prepare('SELECT term, n FROM term_dict ORDER BY term').all() as Json[]).map(
            (row) => `${String(row.term)} ${String(row.n)}`,
          ),
        );
      } finally {
        reader.close();
      }
      const client = new pgModule.Client({ connectionString: pg.url });
      await client.connect();
      try {
        assert.equal(await scalar(client, 'SELECT count(*) AS n FROM events'), 6_000);
        assert.equal(
          await scalar(client, "SELECT sum(n) AS n FROM event_counts WHERE event_type = ''"),
          6_000,
          'the all-types counters',
        );
        assert.equal(
          await scalar(
            client,
            `SELECT count(*) AS n FROM term_dict d
            WHERE d.n <> (SELECT count(*) FROM term_postings p WHERE p.term_id = d.id)
               OR d.n <> (SELECT coalesce(sum(t.n), 0) FROM term_days t WHERE t.term_id = d.id)`,
          ),
          0,
          'terms whose count differs from their postings or day counters',
        );
        dictionaries.push(
          (await client.query('SELECT term, n FROM term_dict ORDER BY term COLLATE "C"')).rows.map(
            (row: Json) => `${String(row.term)} ${String(row.n)}`,
          ),
        );
      } finally {
        await client.end();
      }
      assert.ok(dictionaries[0]!.length > 1_000, `${dictionaries[0]!.length} terms`);
      assert.deepEqual(dictionaries[1], dictionaries[0]);
    } finally {
      await pg.drop();
    }
  });

  test('PostgreSQL: a batch the database refuses stops the import; whole batches stay, and a re-run completes it', async () => {
    const events = [
      ...generateEvents({
        orgId: ORG,
        count: 3_000,
        seed: 11,
        from: Date.UTC(2026, 1, 1),
        to: Date.UTC(2026, 1, 5),
      }),
    ];
    const file = path.join(dir, 'refused.ndjson');
    fs.writeFileSync(file, events.map((e) => JSON.stringify(e)).join('\n'));
    const batch = 250;
    // Line 1,100 is in the fifth batch: a real trigger refuses its row.
    const refusedId = events[1_099]!.id;
    const pg = await createTestDatabase();
    const client = new pgModule.Client({ connectionString: pg.url });
    try {
      assert.equal(cli(pg.url, 'orgs', 'create', '--name', 'Refused', '--id', ORG).code, 0);
      await client.connect();
      await client.query(`CREATE FUNCTION refuse_marked() RETURNS trigger AS $$ BEGIN
          IF NEW.id = '${refusedId}' THEN RAISE EXCEPTION 'refused by the test'; END IF;
          RETURN NEW;
        END $$ LANGUAGE plpgsql`);
      await client.query(
        'CREATE TRIGGER refuse BEFORE INSERT ON events FOR EACH ROW EXECUTE FUNCTION refuse_marked()',
      );

      const stopped = cli(pg.url, 'import', '--org', ORG, file, '--batch-size', String(batch));
      assert.equal(stopped.code, 1, stopped.stdout);
      assert.match(stopped.stderr, /refused by the test/);
      const stored = await scalar(client, 'SELECT count(*) AS n FROM events');
      assert.equal(stored % batch, 0, `${stored} events: a partial batch was committed`);
      // The four batches before the refused one, and at most the one beside it.
      assert.ok(stored >= 4 * batch && stored <= 5 * batch, `${stored} events stored`);
      assert.equal(
        await scalar(
          client,
          "SELECT coalesce(sum(n), 0) AS n FROM event_counts WHERE event_type = ''",
        ),
        stored,
      );

      await client.query('DROP TRIGGER refuse ON events');
      const resumed = cli(pg.url, 'import', '--org', ORG, file, '--json');
      assert.equal(resumed.code, 0, resumed.stderr);
      assert.deepEqual(
        [(resumed.json as Json).inserted, (resumed.json as Json).duplicates],
        [3_000 - stored, stored],
      );
      assert.equal(await scalar(client, 'SELECT count(*) AS n FROM events'), 3_000);
      assert.equal(
        await scalar(client, "SELECT sum(n) AS n FROM event_counts WHERE event_type = ''"),
        3_000,
      );
    } finally {
      await client.end();
      await pg.drop();
    }
  });

  test('works the same on PostgreSQL', async () => {
    const pg = await createTestDatabase();
    try {
      assert.equal(cli(pg.url, 'orgs', 'create', '--name', 'PG', '--id', ORG).code, 0);
      const seeded = cli(
        pg.url,
        'seed',
        '--org',
        ORG,
        '--events',
        '2500',
        '--seed',
        '1',
        '--from',
        '2026-01-01',
        '--to',
        '2026-01-15',
        '--json',
      );
      assert.equal(seeded.code, 0, seeded.stderr);
      assert.equal((seeded.json as Json).inserted, 2500);
      const key = cli(pg.url, 'keys', 'create', '--org', ORG, '--role', 'ORG_OWNER', '--json');
      assert.equal(key.code, 0);
      const list = cli(pg.url, 'orgs', 'list', '--json').json as Json[];
      assert.equal(list[0]!.events, 2500);
    } finally {
      await pg.drop();
    }
  });
});
