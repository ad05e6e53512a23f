import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { cli, cliWith } from './run-cli';

type Json = Record<string, unknown>;

/** The command line's mistakes: each a usage error (64) with a clear message, and one JSON document under --json. */
describe('CLI: command lines', () => {
  let dir: string;
  let db: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-cli-options-'));
    db = path.join(dir, 'options.db');
    assert.equal(cli(db, 'migrate').code, 0);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('names every object has are no subcommands (the tables are plain objects)', () => {
    for (const group of ['events', 'orgs', 'keys', 'imports']) {
      for (const name of ['constructor', 'toString', '__proto__', 'valueOf', 'hasOwnProperty']) {
        const result = cli(db, group, name, '--json');
        assert.equal(result.code, 64, `${group} ${name}: ${result.stderr}`);
        const error = (result.json as { error: Json }).error;
        assert.equal(error.code, 'usage', `${group} ${name}`);
        assert.match(
          String(error.message),
          new RegExp(`^Unknown (sub)?command '${group} ${name}'`),
        );
        assert.doesNotMatch(result.stderr, /\n\s+at /, `${group} ${name}: a stack trace`);
      }
    }
  });

  test('--private-key given twice with different values is a usage error that shows neither value', () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0c04';
    const result = cli(
      db,
      ...['mirror', '--org', org, '--source', 'http://127.0.0.1:9/api/public/v1.0'],
      ...['--source-org', org, '--public-key', 'abcdefgh'],
      ...['--private-key', 'first-private-key-0000', '--private-key=second-private-key-0000'],
      '--json',
    );
    assert.equal(result.code, 64, result.stderr);
    const message = String((result.json as { error: Json }).error.message);
    assert.match(
      message,
      /^Option '--private-key' is given twice with different values; give it once/,
    );
    for (const output of [result.stdout, result.stderr]) {
      assert.doesNotMatch(output, /first-private-key|second-private-key/);
    }
  });

  test('a stray argument that may be a key is refused without being shown; others are quoted', () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0c04';
    const mirror = [
      ...['mirror', '--org', org, '--source', 'http://127.0.0.1:9/api/public/v1.0'],
      ...['--source-org', org],
    ];
    const privateKey = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const cases: [string[], RegExp][] = [
      // The private key pasted after the public one.
      [
        [...mirror, '--public-key', 'abcdefgh', privateKey],
        /^Unexpected argument after --public-key's value \(not shown: it may be a key\)/,
      ],
      [
        [...mirror, '--public-key=abcdefgh', 'not-uuid-shaped-secret'],
        /^Unexpected argument after --public-key's value \(not shown: it may be a key\)/,
      ],
      [
        [
          ...mirror,
          '--public-key',
          'abcdefgh',
          '--private-key',
          privateKey,
          'not-uuid-shaped-secret',
        ],
        /^Unexpected argument after --private-key's value \(not shown: it may be a key\)/,
      ],
      // keys revoke --key PUB PRIV: the same paste on another command.
      [
        ['keys', 'revoke', '--key', 'abcdefgh', 'not-uuid-shaped-secret'],
        /^Unexpected argument after --key's value \(not shown: it may be a key\)/,
      ],
      // Anywhere else, one shaped like a private key (a UUID).
      [
        [...mirror, privateKey, '--public-key', 'abcdefgh'],
        /^Unexpected argument shaped like a private key \(not shown\)/,
      ],
    ];
    for (const [args, expected] of cases) {
      const result = cli(db, ...args, '--json');
      assert.equal(result.code, 64, `${args.join(' ')}: ${result.stderr}`);
      assert.match(String((result.json as { error: Json }).error.message), expected);
      for (const output of [result.stdout, result.stderr]) {
        assert.doesNotMatch(output, /0f8fad5b|not-uuid-shaped-secret/, args.join(' '));
      }
    }
    // Any other stray argument is quoted, to say which one it was.
    const other = cli(db, 'orgs', 'list', 'extra', '--json');
    assert.equal(other.code, 64, other.stderr);
    assert.match(
      String((other.json as { error: Json }).error.message),
      /^Unexpected argument 'extra'/,
    );
    const afterFlag = cli(db, ...mirror, '--follow', '30', '--json');
    assert.equal(afterFlag.code, 64, afterFlag.stderr);
    assert.match(
      String((afterFlag.json as { error: Json }).error.message),
      /^Unexpected argument '30'/,
    );
  });

  test("a usage line's optional part pasted with its brackets is named as such, even after a key's value", () => {
    // The README's mirror example, pasted as written, was refused as
    // "Unexpected argument after --public-key's value (not shown: it may be a
    // key)": the person looked for a pasted key where there was none.
    const org = '6b1c2d3e4f5a6b7c8d9e0c04';
    const result = cli(
      db,
      ...['mirror', '--org', org, '--source', 'http://127.0.0.1:9/api/public/v1.0'],
      ...['--source-org', org, '--public-key', 'abcdefgh', '[--since', '2025-01-01]'],
      '--json',
    );
    assert.equal(result.code, 64, result.stderr);
    assert.equal(
      (result.json as { error: Json }).error.message,
      "Unexpected argument '[--since': square brackets in a usage line mark an optional part; type it without them, or leave it out",
    );
  });

  test('a --source holding a user name and password is refused without showing them, however else it is wrong', () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0c04';
    const secret = '0f8fad5b-d9cb-469f-a165-70867728950e';
    const cases: [string, RegExp][] = [
      [`https://abcdefgh:${secret}@host:abc/api/public/v1.0`, /^--source must be a URL such as/],
      [`https://abcdefgh:${secret}/x@host/api/public/v1.0`, /^--source must be a URL such as/],
      [`ftp://abcdefgh:${secret}@host/api/public/v1.0`, /^--source must be an http or https URL/],
    ];
    for (const [source, expected] of cases) {
      const result = cli(
        db,
        ...['mirror', '--org', org, '--source', source, '--source-org', org],
        ...['--public-key', 'abcdefgh', '--private-key', 'a-private-key', '--json'],
      );
      assert.equal(result.code, 64, `${source}: ${result.stderr}`);
      const message = String((result.json as { error: Json }).error.message);
      assert.match(message, expected, source);
      assert.match(message, /got '[a-z]+:\/\/\*\*\*@host/, source);
      assert.doesNotMatch(result.stdout + result.stderr, /0f8fad5b/, source);
    }
  });

  test('seed: a range holding no whole second, or a --from after the default --to, is a usage error', () => {
    const seed = ['seed', '--org', '6b1c2d3e4f5a6b7c8d9e0c01', '--events', '10'];
    const short = cli(
      db,
      ...seed,
      ...['--from', '2026-01-01T00:00:00.100Z', '--to', '2026-01-01T00:00:00.900Z', '--json'],
    );
    assert.equal(short.code, 64, short.stderr);
    assert.match(
      String((short.json as { error: Json }).error.message),
      /^--from to --to \(2026-01-01T00:00:00.100Z to 2026-01-01T00:00:00.900Z\) holds no whole second/,
    );
    assert.doesNotMatch(short.stderr, /\n\s+at /);

    const late = cli(db, ...seed, '--from', '2030-01-01');
    assert.equal(late.code, 64, late.stderr);
    assert.match(
      late.stderr.split('\n')[0]!,
      /--from \(2030-01-01T00:00:00.000Z\) must be before --to, which defaults to the start of the current UTC hour \(\d{4}-\d\d-\d\dT\d\d:00:00.000Z\)/,
    );
  });

  test('seed: a range outside the seconds an ObjectId holds (before 1970, after 2106) is a usage error, nothing seeded', () => {
    // A database of its own: the organization is created in the end.
    const db = path.join(dir, 'epoch.db');
    const org = '6b1c2d3e4f5a6b7c8d9e0c02';
    const seed = ['seed', '--org', org, '--events', '5', '--create-org', '--name', 'Epoch'];
    for (const [from, to] of [
      ['1960-01-01', '1960-01-02'],
      ['1960-03-01', '1960-03-02'],
      ['1969-12-31', '1970-01-02'],
      ['2106-02-07', '2106-02-08'],
    ] as const) {
      const result = cli(db, ...seed, '--from', from, '--to', to, '--json');
      assert.equal(result.code, 64, `${from} to ${to}: ${result.stderr}`);
      assert.match(
        String((result.json as { error: Json }).error.message),
        /^--from and --to must lie within 1970-01-01T00:00:00.000Z to 2106-02-07T06:28:15.000Z/,
      );
    }
    assert.ok(!fs.existsSync(db), 'the refused seed made a database');
    // The first second and the last an ObjectId holds are seeded.
    const edges = cli(db, ...seed, '--from', '1970-01-01', '--to', '1970-01-02', '--json');
    assert.equal(edges.code, 0, edges.stderr);
    assert.equal((edges.json as Json).inserted, 5);
    const last = cli(db, ...seed, '--from', '2106-02-06', '--to', '2106-02-07T06:28:15Z', '--json');
    assert.equal(last.code, 0, last.stderr);
    assert.equal((last.json as Json).inserted, 5);
  });

  test('an invalid configuration is reported like any error: one JSON document under --json, exit 1', () => {
    for (const [name, value] of [
      ['ORG_EVENTS_SECRET', 'short'],
      ['LOG_LEVEL', 'bogus'],
    ] as const) {
      const result = cliWith({ env: { [name]: value } }, db, 'orgs', 'list', '--json');
      assert.equal(result.code, 1, result.stderr);
      const error = (result.json as { error: Json }).error;
      assert.deepEqual([error.code, error.exitCode], ['config', 1], name);
      assert.match(String(error.message), new RegExp(`^Invalid configuration: ${name}: `));
      assert.match(result.stderr, new RegExp(`^Error: Invalid configuration: ${name}: `));
      assert.doesNotMatch(result.stderr, /\n\s+at /);
    }
    // Help needs no configuration.
    const help = cliWith({ env: { LOG_LEVEL: 'bogus' } }, db, 'help');
    assert.equal(help.code, 0, help.stderr);
  });

  test('a database URL of no supported form is refused, never taken for a file name', () => {
    const work = fs.mkdtempSync(path.join(dir, 'urls-'));
    const supported =
      /\(supported: file:PATH, sqlite:PATH, a file path, :memory:, postgres:\/\/\.\.\. or postgresql:\/\/\.\.\.\)/;
    const cases: [string, RegExp][] = [
      ['postgress://localhost/events', /unsupported scheme 'postgress:\/\/'/],
      ['mysql://x', /unsupported scheme 'mysql:\/\/'/],
      [`file:${work}/q.db?mode=ro`, /no query string/],
      [`sqlite:${work}/q.db#x`, /no query string/],
    ];
    for (const [url, problem] of cases) {
      // On the command line: a usage error naming --database.
      const given = cliWith({ cwd: work }, url, 'orgs', 'list', '--json');
      assert.equal(given.code, 64, `${url}: ${given.stderr}`);
      const message = String((given.json as { error: Json }).error.message);
      assert.match(message, /^--database: /, url);
      assert.match(message, problem, url);
      assert.match(message, supported, url);
      // In the environment: an invalid configuration.
      const configured = cliWith(
        { cwd: work, env: { DATABASE_URL: url } },
        undefined,
        ...['orgs', 'list', '--json'],
      );
      assert.equal(configured.code, 1, `${url}: ${configured.stderr}`);
      const error = (configured.json as { error: Json }).error;
      assert.equal(error.code, 'config', url);
      assert.match(String(error.message), /^Invalid configuration: DATABASE_URL: /, url);
      assert.match(String(error.message), problem, url);
    }
    assert.deepEqual(fs.readdirSync(work), [], 'no file was created');

    for (const empty of [['--database='], ['--database', '']]) {
      const result = cliWith({ cwd: work }, undefined, 'orgs', 'list', ...empty, '--json');
      assert.equal(result.code, 64, result.stderr);
      assert.equal(
        (result.json as { error: Json }).error.message,
        "Option '--database' needs a value",
      );
    }
  });

  test('a PostgreSQL URL its driver cannot read is refused as configuration (DATABASE_URL) or usage (--database), its password never shown', () => {
    const password = 'hunter2-not-shown';
    const cases: [string, RegExp][] = [
      [`postgres://u:${password}@127.0.0.1:abc/db`, /its port is not a number from 0 to 65535/],
      [`postgres://u:${password}@127.0.0.1:99999/db`, /its port is not a number from 0 to 65535/],
      // A '/' in the password, not percent-encoded: the host would be 'u', the port the password.
      [`postgres://u:${password}/x@127.0.0.1:5432/db`, /percent-encoded.*%2F/],
      [`postgres://u:${password}@127.0.0.1:5432/db%`, /a % not followed by two hexadecimal digits/],
      [
        `postgres://u:${password}@127.0.0.1:5432/db?sslmode=verify-full&sslrootcert=/nonexistent/ca.pem`,
        /cannot read the file its sslrootcert names \(ENOENT: no such file or directory, open '\/nonexistent\/ca.pem'\)/,
      ],
    ];
    for (const [url, problem] of cases) {
      const configured = cliWith(
        { env: { DATABASE_URL: url } },
        undefined,
        ...['orgs', 'list', '--json'],
      );
      assert.equal(configured.code, 1, `${url}: ${configured.stderr}`);
      const error = (configured.json as { error: Json }).error;
      assert.equal(error.code, 'config', url);
      assert.match(String(error.message), /^Invalid configuration: DATABASE_URL: /, url);
      assert.match(String(error.message), problem, url);

      const given = cliWith({}, url, 'orgs', 'list', '--json');
      assert.equal(given.code, 64, `${url}: ${given.stderr}`);
      const message = String((given.json as { error: Json }).error.message);
      assert.match(message, /^--database: /, url);
      assert.match(message, problem, url);
      for (const output of [configured.stdout, configured.stderr, given.stdout, given.stderr]) {
        assert.doesNotMatch(output, /hunter2/, url);
      }
    }
  });

  test('a REDIS_URL Redis clients cannot read is an invalid configuration naming REDIS_URL and what is wrong, its password never shown', () => {
    const password = 'hunter2-not-shown';
    const cases: [string, RegExp][] = [
      [`redis://:${password}%zz@127.0.0.1:6379`, /a % not followed by two hexadecimal digits/],
      [`redis://:${password}@127.0.0.1:abc`, /its port is not a number from 0 to 65535/],
      [
        `redis://:${password}@127.0.0.1:6379/abc`,
        /its path must be a database number, such as \/0/,
      ],
      [`rediss://:${password}/x@127.0.0.1:6379`, /percent-encoded.*%2F/],
    ];
    for (const [url, problem] of cases) {
      const result = cliWith({ env: { REDIS_URL: url } }, db, 'orgs', 'list', '--json');
      assert.equal(result.code, 1, `${url}: ${result.stderr}`);
      const error = (result.json as { error: Json }).error;
      assert.equal(error.code, 'config', url);
      assert.match(String(error.message), /^Invalid configuration: REDIS_URL: /, url);
      assert.match(String(error.message), problem, url);
      assert.doesNotMatch(result.stdout + result.stderr, /hunter2/, url);
    }
    // A database number and a password that is percent-encoded are read.
    const good = cliWith(
      { env: { REDIS_URL: 'redis://:p%40ss@127.0.0.1:6379/2' } },
      db,
      ...['orgs', 'list', '--json'],
    );
    assert.equal(good.code, 0, good.stderr);
  });

  test("npx org-events uses the project's tsconfig, whatever TSX_TSCONFIG_PATH an enclosing tsx run left set", () => {
    const work = fs.mkdtempSync(path.join(dir, 'tsconfig-'));
    const foreign = path.join(work, 'tsconfig.json');
    fs.writeFileSync(foreign, '{"compilerOptions":{}}');
    const result = cliWith(
      { cwd: work, env: { TSX_TSCONFIG_PATH: foreign } },
      db,
      'orgs',
      'list',
      '--json',
    );
    assert.equal(result.code, 0, result.stderr);
    assert.ok(Array.isArray(result.json), result.stdout);
  });

  test('a single-value option given twice with different values is a usage error; filters repeat', () => {
    const org = '6b1c2d3e4f5a6b7c8d9e0c02';
    const cases: [string[], string][] = [
      [
        ['events', 'list', '--org', org, '--min-date', '2026-01-01', '--min-date', '2026-02-01'],
        'min-date',
      ],
      [['orgs', 'create', '--name', 'X', '--id', org, '--id', '6b1c2d3e4f5a6b7c8d9e0c03'], 'id'],
      [['orgs', 'create', '--name=X', '--name', 'Y'], 'name'],
    ];
    for (const [args, option] of cases) {
      const result = cli(db, ...args, '--json');
      assert.equal(result.code, 64, `${args.join(' ')}: ${result.stderr}`);
      assert.match(
        String((result.json as { error: Json }).error.message),
        new RegExp(`^Option '--${option}' is given twice \\('[^']+' and '[^']+'\\)`),
      );
    }
    assert.deepEqual(cli(db, 'orgs', 'list', '--json').json, [], 'nothing was created');

    // The same value twice is no conflict; several values of a filter are its values.
    assert.equal(cli(db, 'orgs', 'create', '--name', 'Twice', '--id', org, '--id', org).code, 0);
    const filtered = cli(
      db,
      ...['events', 'list', '--org', org, '--type', 'JOINED_ORG', '--type', 'REMOVED_FROM_ORG'],
      ...['--username', 'a@example.com,b@example.com', '--username', 'c@example.com', '--json'],
    );
    assert.equal(filtered.code, 0, filtered.stderr);
    const self = (filtered.json as { links: { rel: string; href: string }[] }).links[0]!.href;
    assert.match(self, /eventType=JOINED_ORG&eventType=REMOVED_FROM_ORG/);
    assert.match(self, /username=c%40example.com/);
  });
});
