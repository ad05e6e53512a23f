import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { privateKeyMatches } from '@/lib/auth/api-keys';
import { openStore } from '@/lib/store';
import { parseCsv } from '@/tests/helpers/csv';
import { CLOSED_REDIS_URL } from '@/tests/helpers/redis';
import { cli, cliWith, ROOT } from './run-cli';

const ORG = '6b1c2d3e4f5a6b7c8d9e0e01';
const COPY = '6b1c2d3e4f5a6b7c8d9e0e02';
const REALM = 'MMS Public API';

type Json = Record<string, unknown>;
type ListBody = { links: { href: string; rel: string }[]; results: Json[]; totalCount: number };

function lines(file: string): string[] {
  const text = fs.readFileSync(file, 'utf8');
  assert.ok(text.endsWith('\n'));
  return text.slice(0, -1).split('\n');
}

describe('CLI: events list, get, export and keys rotate', () => {
  let dir: string;
  let db: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-cli-events-'));
    db = path.join(dir, 'events.db');
    const seeded = cli(
      db,
      ...['seed', '--org', ORG, '--events', '3000', '--create-org', '--name', 'Round Trip Co'],
      ...['--from', '2026-01-01', '--to', '2026-02-01'],
    );
    assert.equal(seeded.code, 0, seeded.stderr);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('events list --json prints only the API list body; pages and filters like the API', () => {
    const first = cli(db, 'events', 'list', '--org', ORG, '--limit', '40', '--json');
    assert.equal(first.code, 0, first.stderr);
    const body = first.json as ListBody;
    assert.deepEqual(Object.keys(body), ['links', 'results', 'totalCount']);
    assert.equal(body.totalCount, 3000);
    assert.equal(body.results.length, 40);
    assert.deepEqual(
      body.links.map((l) => l.rel),
      ['self', 'next'],
    );
    const type = body.results[0]!.eventTypeName as string;
    const second = cli(
      db,
      ...['events', 'list', '--org', ORG, '--type', type, '--page', '2', '--limit', '3'],
      ...['--omit-count', '--json'],
    );
    const filtered = second.json as ListBody;
    assert.ok(filtered.results.every((e) => e.eventTypeName === type));
    assert.equal(filtered.totalCount, 0, 'includeCount=false still sends totalCount 0, as the API');
    assert.match(filtered.links[0]!.href, /[?&]eventType=[A-Z_]+&includeCount=false/);
    const table = cli(db, 'events', 'list', '--org', ORG, '--limit', '5');
    assert.match(table.stdout, /^CREATED +TYPE +ACTOR +ID\n/);
    assert.match(table.stdout, /Events 1–5 of 3,000; next: --page 2/);
    const bad = cli(db, 'events', 'list', '--org', ORG, '--type', 'not a type', '--json');
    assert.equal(bad.code, 64);
    assert.equal(((bad.json as Json).error as Json).code, 'usage');
  });

  test("the event's database field is filtered with --database-name; a second --database is a usage error, one naming a store without organizations says it may be the wrong one", () => {
    const file = path.join(dir, 'all.ndjson');
    assert.equal(cli(db, 'events', 'export', '--org', ORG, '--out', file).code, 0);
    const byDatabase = new Map<string, number>();
    for (const line of lines(file)) {
      const { database } = JSON.parse(line) as { database?: string };
      if (database) byDatabase.set(database, (byDatabase.get(database) ?? 0) + 1);
    }
    const [name, count] = [...byDatabase].sort((a, b) => b[1] - a[1])[0]!;
    assert.ok(count < 3000);
    const filtered = cli(db, 'events', 'list', '--org', ORG, '--database-name', name, '--json');
    assert.equal(filtered.code, 0, filtered.stderr);
    const body = filtered.json as ListBody;
    assert.equal(body.totalCount, count);
    assert.ok(body.results.every((e) => e.database === name));
    const twice = cli(db, 'events', 'list', '--org', ORG, '--database', name);
    assert.equal(twice.code, 64);
    assert.match(twice.stderr, /'--database' .* given twice.*--database-name/);
    // --database alone names the store: a file that is not there is refused, and not made.
    const elsewhere = cli(path.join(dir, name), 'events', 'list', '--org', ORG);
    assert.equal(elsewhere.code, 1);
    assert.match(elsewhere.stderr, /No database at .*: is --database .* the store you meant\?/);
    assert.equal(fs.existsSync(path.join(dir, name)), false);
    // One that holds no organization says it may be the wrong one.
    const empty = path.join(dir, `${name}-empty.db`);
    assert.equal(cli(empty, 'migrate').code, 0);
    const none = cli(empty, 'events', 'list', '--org', ORG);
    assert.equal(none.code, 1);
    assert.match(none.stderr, /this database holds none\. Is --database .*--database-name/);
  });

  test('events get prints the event as the API returns it, raw when asked', () => {
    const list = cli(db, 'events', 'list', '--org', ORG, '--limit', '1', '--json').json as ListBody;
    const id = list.results[0]!.id as string;
    const got = cli(db, 'events', 'get', '--org', ORG, '--id', id, '--include-raw', '--json');
    assert.equal(got.code, 0, got.stderr);
    const event = got.json as Json;
    const { raw, ...fields } = event;
    assert.deepEqual(fields, list.results[0]);
    assert.equal(typeof raw, 'object');
    const missing = cli(db, 'events', 'get', '--org', ORG, '--id', '0'.repeat(24));
    assert.equal(missing.code, 1);
    assert.match(missing.stderr, /0{24}/);
  });

  test("events get and list --json print the API's text: big integers and 1.0 as the source wrote them", () => {
    const id = '6b1c2d3e4f5a6b7c8d9e0eff';
    const line = `{"id":"${id}","created":"2020-01-01T00:00:00Z","eventTypeName":"JOINED_ORG","username":"big@example.com","raw":{"n":9007199254740993,"x":1.0}}`;
    const file = path.join(dir, 'big.ndjson');
    fs.writeFileSync(file, `${line}\n`);
    // Its own org: the other tests count ORG's events.
    const org = '6b1c2d3e4f5a6b7c8d9e0e03';
    assert.equal(cli(db, 'orgs', 'create', '--name', 'Big numbers', '--id', org).code, 0);
    assert.equal(cli(db, 'import', '--org', org, file).code, 0);
    const got = cli(db, 'events', 'get', '--org', org, '--id', id, '--include-raw', '--json');
    assert.equal(got.code, 0, got.stderr);
    assert.match(got.stdout, /"n": 9007199254740993,\n\s*"x": 1\.0\n/);
    const shown = cli(db, 'events', 'get', '--org', org, '--id', id, '--include-raw');
    assert.match(shown.stdout, /"n": 9007199254740993,\n\s*"x": 1\.0\n/);
    const listed = cli(
      db,
      'events',
      'list',
      '--org',
      org,
      '--actor',
      'big@example.com',
      '--include-raw',
      '--json',
    );
    assert.equal(listed.code, 0, listed.stderr);
    assert.match(listed.stdout, /"n": 9007199254740993,\n\s*"x": 1\.0\n/);
  });

  test('round trip: an NDJSON export with raw, imported into a new org, gives the same documents but for the org ids', () => {
    const file = path.join(dir, 'org.ndjson');
    const exported = cli(
      db,
      ...['events', 'export', '--org', ORG, '--format', 'ndjson', '--include-raw'],
      ...['--out', file, '--json'],
    );
    assert.equal(exported.code, 0, exported.stderr);
    assert.deepEqual(
      { ...(exported.json as Json), seconds: 0, bytes: 0 },
      { orgId: ORG, format: 'ndjson', file, events: 3000, bytes: 0, seconds: 0 },
    );
    assert.match(exported.stderr, /Exporting.*100% 3,000 \/ 3,000 events/);
    assert.deepEqual(
      fs.readdirSync(dir).filter((name) => name.includes('partial')),
      [],
      'the temporary file was renamed',
    );
    assert.equal(cli(db, 'orgs', 'create', '--name', 'Copy', '--id', COPY).code, 0);
    const imported = cli(db, 'import', '--org', COPY, '--rehome', file, '--json');
    assert.equal(imported.code, 0, imported.stderr);
    const copy = path.join(dir, 'copy.ndjson');
    const again = cli(db, ...['events', 'export', '--org', COPY, '--include-raw', '--out', copy]);
    assert.equal(again.code, 0, again.stderr);
    const original = lines(file);
    assert.equal(original.length, 3000);
    const withRaw = original.filter((line) => line.includes('"raw":')).length;
    assert.ok(withRaw > 2000, `${withRaw} events carry their raw document`);
    // --rehome moves the document into the new org; the raw document stays verbatim.
    const orgNeutral = (line: string) => line.replaceAll(ORG, '<org>').replaceAll(COPY, '<org>');
    const copied = lines(copy);
    assert.ok(copied.every((line) => line.includes(`"orgId":"${COPY}"`)));
    assert.deepEqual(copied.map(orgNeutral), original.map(orgNeutral));
  });

  test('a CSV export reads back with a strict RFC 4180 reader, one record per event', () => {
    const file = path.join(dir, 'org.csv');
    const result = cli(db, 'events', 'export', '--org', ORG, '--format', 'csv', '--out', file);
    assert.equal(result.code, 0, result.stderr);
    assert.equal(result.stdout, '', 'stdout stays empty; notes go to stderr');
    const [header, ...records] = parseCsv(fs.readFileSync(file, 'utf8'));
    assert.deepEqual(header!.slice(0, 3), ['id', 'created', 'eventTypeName']);
    assert.equal(records.length, 3000);
    const bad = cli(db, 'events', 'export', '--org', ORG, '--format', 'xml');
    assert.equal(bad.code, 64);
  });

  test('events export checks --out before exporting: a directory, or one missing, is named as given', () => {
    const target = fs.mkdtempSync(path.join(dir, 'out-'));
    const intoDirectory = cli(db, 'events', 'export', '--org', ORG, '--out', target, '--json');
    assert.equal(intoDirectory.code, 64, intoDirectory.stderr);
    assert.equal(
      (intoDirectory.json as { error: Json }).error.message,
      `--out ${target} is a directory: name the file to write (e.g. ${path.join(target, 'events.ndjson')})`,
    );
    const missing = path.join(target, 'missing', 'events.ndjson');
    const intoNowhere = cli(db, 'events', 'export', '--org', ORG, '--out', missing);
    assert.equal(intoNowhere.code, 1, intoNowhere.stderr);
    assert.match(
      intoNowhere.stderr,
      new RegExp(`^Error: Cannot write ${missing}: no directory ${path.dirname(missing)}\n`),
    );
    for (const result of [intoDirectory, intoNowhere]) {
      // Refused before any event was read.
      assert.doesNotMatch(result.stderr, /partial|Exporting/);
    }
    assert.deepEqual(fs.readdirSync(target), []);
  });

  test('events export --out - into a reader that stops early (| head) ends at once and quietly, exit 141', () => {
    // 3,000 events are megabytes: far more than the pipe holds once head has gone.
    const run = spawnSync(
      'bash',
      [
        '-c',
        'node bin/org-events.mjs events export --org "$1" --out - --database "$2" | head -c 100 >/dev/null; echo "${PIPESTATUS[0]}"',
        'export-to-head',
        ORG,
        db,
      ],
      { cwd: ROOT, encoding: 'utf8', env: { ...process.env, NODE_ENV: 'test' }, timeout: 120_000 },
    );
    assert.equal(run.stdout.trim(), '141', run.stderr);
    assert.equal(run.stderr, '');
  });

  test('keys rotate: a new private key printed once, the old one refused at once', async () => {
    const created = cli(db, 'keys', 'create', '--org', ORG, '--role', 'ORG_MEMBER', '--json');
    const { publicKey, privateKey } = created.json as { publicKey: string; privateKey: string };
    const rotated = cli(db, 'keys', 'rotate', '--key', publicKey, '--json');
    assert.equal(rotated.code, 0, rotated.stderr);
    const fresh = (rotated.json as { privateKey: string }).privateKey;
    assert.notEqual(fresh, privateKey);
    const store = await openStore(`file:${db}`);
    try {
      const record = (await store.getApiKeyByPublicKey(publicKey))!;
      assert.equal(privateKeyMatches(store, record, privateKey, REALM), false);
      assert.equal(privateKeyMatches(store, record, fresh, REALM), true);
    } finally {
      await store.close();
    }
    assert.equal(cli(db, 'keys', 'rotate', '--key', 'zzzzzzzz').code, 1);
  });

  test('keys rotate of a revoked key is refused, saying so, and stores no new private key', async () => {
    // It printed a new private key and 'the old private key is refused from
    // now on', exit 0: the key stayed revoked, so the new one was refused too.
    const created = cli(db, 'keys', 'create', '--org', ORG, '--role', 'ORG_MEMBER', '--json');
    const { publicKey, privateKey } = created.json as { publicKey: string; privateKey: string };
    assert.equal(cli(db, 'keys', 'revoke', '--key', publicKey).code, 0);
    const rotated = cli(db, 'keys', 'rotate', '--key', publicKey, '--json');
    assert.equal(rotated.code, 1, rotated.stdout);
    const message = (rotated.json as { error: { message: string } }).error.message;
    assert.match(message, new RegExp(`API key ${publicKey} is revoked`));
    assert.match(message, /keys create/);
    const store = await openStore(`file:${db}`);
    try {
      const record = (await store.getApiKeyByPublicKey(publicKey))!;
      assert.equal(privateKeyMatches(store, record, privateKey, REALM), true);
    } finally {
      await store.close();
    }
  });

  test('keys rotate with Redis unreachable: nothing rotated, a clear error, and the process ends', async () => {
    const created = cli(db, 'keys', 'create', '--org', ORG, '--role', 'ORG_MEMBER', '--json');
    const { publicKey, privateKey } = created.json as { publicKey: string; privateKey: string };
    const started = Date.now();
    const rotated = cliWith(
      { env: { REDIS_URL: CLOSED_REDIS_URL } },
      db,
      'keys',
      'rotate',
      '--key',
      publicKey,
      '--json',
    );
    assert.equal(rotated.code, 1, rotated.stderr);
    assert.ok(Date.now() - started < 30_000, 'exits, not reconnecting forever');
    const message = (rotated.json as { error: { message: string } }).error.message;
    assert.match(
      message,
      /Could not end the key's dashboard sessions: Redis \(REDIS_URL\) did not answer/,
    );
    assert.match(message, /the key was not rotated/);
    // The message alone: not also the server's outage log line, with its stack.
    assert.doesNotMatch(rotated.stderr, /Redis unreachable|"level"|ECONNREFUSED/);
    const store = await openStore(`file:${db}`);
    try {
      const record = (await store.getApiKeyByPublicKey(publicKey))!;
      assert.equal(
        privateKeyMatches(store, record, privateKey, REALM),
        true,
        'the old key still works',
      );
    } finally {
      await store.close();
    }
  });
});
