import assert from 'node:assert/strict';
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { Worker } from 'node:worker_threads';
import BetterSqlite3 from 'better-sqlite3';
import { encodeEvent } from '@/lib/domain/encode';
import { objectIdAt } from '@/lib/domain/object-id';
import { StoreUnavailableError } from './errors';
import { SqliteStore } from './sqlite';
import { storeContract } from './store.contract';
import { openSqliteWriterThread } from './testing/sqlite-writer';
import { eventsOneMinuteApart } from './testing/fixtures';
import { MIGRATION_NAMES, migrationProvider } from './migrations';
import { countDeltas } from './kysely-store';
import type { Database } from './schema';
import { Kysely, Migrator, SqliteDialect } from 'kysely';
import { generateEventBatches } from '@/lib/ingest/seed';
import { MAX_INDEXED_VALUE_LENGTH } from '@/lib/domain/filters';
import { eventKey } from './terms';

storeContract('SQLite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-store-'));
  const file = path.join(dir, 'test.db');
  const store = await SqliteStore.open(file);
  return {
    store,
    openConcurrentWriter: () => openSqliteWriterThread(file),
    cleanup: async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

describe('SQLite bulk-load helper', () => {
  const orgId = objectIdAt(Date.UTC(2024, 0, 1), 'cccccccccccccccc');
  const events = eventsOneMinuteApart(orgId, 250);

  /**
   * How many events the database file holds on its own, without its WAL
   * (null when not even the schema has reached it): a copy of the file alone
   * sees only what a checkpoint has written there.
   */
  function eventsInMainFile(dir: string, file: string): number | null {
    const copy = path.join(dir, `copy-${Date.now()}-${Math.random()}.db`);
    fs.copyFileSync(file, copy);
    const db = new BetterSqlite3(copy);
    try {
      return (db.prepare('SELECT count(*) AS n FROM events').get() as { n: number }).n;
    } catch {
      return null;
    } finally {
      db.close();
    }
  }

  test('checkpoints the WAL into the file from its own connection on its own thread', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-helper-'));
    const file = path.join(dir, 'bulk.db');
    const store = await SqliteStore.open(file);
    try {
      await store.createOrg({ id: orgId, name: 'Helper Org', created: 0 });
      assert.deepEqual(await store.insertEvents(orgId, events), { inserted: 250, skipped: 0 });
      assert.equal(
        eventsInMainFile(dir, file),
        null,
        'nothing checkpointed before the helper runs',
      );

      const helper = store.startBulkLoadHelper();
      assert.ok(helper, 'a file-backed store offers a helper');
      helper.afterBatch();
      // close() returns once the checkpoint asked for has run and the thread has ended.
      await helper.close();
      assert.equal(eventsInMainFile(dir, file), 250);
      assert.deepEqual(
        await store.insertEvents(
          orgId,
          eventsOneMinuteApart(orgId, 10, { from: Date.UTC(2024, 1, 1) }),
        ),
        { inserted: 10, skipped: 0 },
        'the store writes on after the helper is gone',
      );
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an in-memory store offers none (no file another connection could open)', async () => {
    const store = await SqliteStore.open(':memory:');
    try {
      assert.equal(store.startBulkLoadHelper(), undefined);
    } finally {
      await store.close();
    }
  });
});

describe('SQLite batch that fails midway', () => {
  // The bulk statements are INSERT OR FAIL (no statement journal): a failing
  // statement keeps its earlier rows, and only the batch's transaction takes
  // them back. RAISE(FAIL) in a trigger fails a statement the same way.
  for (const table of ['events', 'term_postings', 'term_days'] as const) {
    test(`failing inside its ${table} statement leaves the store as it was; the same batch then goes in`, async () => {
      const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-fail-'));
      const file = path.join(dir, 'fail.db');
      const store = await SqliteStore.open(file);
      const other = new BetterSqlite3(file);
      const orgId = objectIdAt(Date.UTC(2024, 0, 1), 'eeeeeeeeeeeeeeee');
      const [first, ...rest] = [
        ...generateEventBatches(
          { orgId, count: 1_500, seed: 3, from: Date.UTC(2026, 0, 1), to: Date.UTC(2026, 0, 20) },
          500,
        ),
      ];
      const batch = rest.flat();
      try {
        await store.createOrg({ id: orgId, name: 'Fail Org', created: 0 });
        await store.insertEvents(orgId, first!);
        const before = await store.dumpOrg(orgId);
        const rows = other.prepare(`SELECT count(*) FROM ${table}`).pluck().get() as number;
        // Past the first full statement (400 rows), partway into a later one.
        other.exec(`CREATE TRIGGER fail_midway BEFORE INSERT ON ${table}
          WHEN (SELECT count(*) FROM ${table}) >= ${rows + 650}
          BEGIN SELECT RAISE(FAIL, 'injected failure'); END`);
        await assert.rejects(store.insertEvents(orgId, batch), /injected failure/);
        assert.deepEqual(await store.dumpOrg(orgId), before);
        assert.equal(await store.countEvents({ orgId }), first!.length);

        other.exec('DROP TRIGGER fail_midway');
        const result = await store.insertEvents(orgId, batch);
        assert.equal(result.inserted, batch.length);
        assert.equal(await store.countEvents({ orgId }), first!.length + batch.length);
      } finally {
        other.close();
        await store.close();
        fs.rmSync(dir, { recursive: true, force: true });
      }
    });
  }
});

describe('SQLite deletion', () => {
  test('deleted events leave none of their text in the database file or its WAL; the rest stay', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-erase-'));
    const file = path.join(dir, 'erase.db');
    const store = await SqliteStore.open(file);
    const orgId = objectIdAt(Date.UTC(2024, 0, 1), 'dddddddddddddddd');
    const from = Date.UTC(2026, 0, 1);
    // The first 100 events carry a marker in a field (so in the document, the
    // term dictionary and its words) and in raw; the others do not.
    const events = eventsOneMinuteApart(orgId, 200, {
      from,
      extra: (i) =>
        i < 100
          ? { username: `qzxmarker${i}@example.com`, raw: { note: `qzxmarker raw ${i}` } }
          : { username: 'kept@example.com' },
    });
    const markerIn = (name: string) => {
      const bytes = fs.existsSync(name) ? fs.readFileSync(name) : Buffer.alloc(0);
      return bytes.includes('qzxmarker');
    };
    try {
      await store.createOrg({ id: orgId, name: 'Erase Org', created: 0 });
      await store.insertEvents(orgId, events);
      assert.ok(markerIn(file) || markerIn(`${file}-wal`), 'the marker was written');
      assert.equal(await store.deleteEvents(orgId, { before: from + 100 * 60_000 }), 100);
      assert.equal(markerIn(file), false, 'no marker left in the database file');
      assert.equal(markerIn(`${file}-wal`), false, 'no marker left in the WAL');
      assert.equal(
        await store.countEvents({ orgId, fields: { username: ['kept@example.com'] } }),
        100,
      );
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite deletion beside a reader', () => {
  test("a reader holding an old snapshot holds up the deletion's WAL truncation a moment, not the 10 s busy timeout", async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-erase-reader-'));
    const file = path.join(dir, 'erase.db');
    const store = await SqliteStore.open(file);
    const reader = new BetterSqlite3(file, { readonly: true });
    const orgId = objectIdAt(Date.UTC(2024, 0, 1), 'dddddddddddddddf');
    const from = Date.UTC(2026, 0, 1);
    try {
      await store.createOrg({ id: orgId, name: 'Erase Org', created: 0 });
      await store.insertEvents(orgId, eventsOneMinuteApart(orgId, 20, { from }));
      // A snapshot older than the deletion's frames: the truncation must wait for it.
      reader.exec('BEGIN');
      reader.prepare('SELECT count(*) FROM events').get();
      const started = performance.now();
      assert.equal(await store.deleteEvents(orgId, { before: from + 10 * 60_000 }), 10);
      const waited = performance.now() - started;
      // The truncation holds the write lock while it waits: other writers wait behind it.
      assert.ok(waited < 5_000, `deletion took ${Math.round(waited)} ms`);
      reader.exec('COMMIT');
      // The connection's own busy timeout is back for every later statement.
      const connection = (store as unknown as { sqlite: BetterSqlite3.Database }).sqlite;
      assert.equal(connection.pragma('busy_timeout', { simple: true }), 10_000);
    } finally {
      reader.close();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite store when another connection holds the write lock', () => {
  const orgId = objectIdAt(Date.UTC(2024, 0, 1), 'eeeeeeeeeeeeeeee');
  const event = encodeEvent(orgId, {
    id: objectIdAt(Date.UTC(2026, 0, 1), '0000000000000001'),
    created: new Date(Date.UTC(2026, 0, 1)).toISOString(),
    eventTypeName: 'JOINED_ORG',
  });

  test('writes wait busy_timeout, then fail as StoreUnavailableError; reads go on; writes resume', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-busy-'));
    const file = path.join(dir, 'busy.db');
    const store = await SqliteStore.open(file, { busyTimeoutMs: 200 });
    const other = new BetterSqlite3(file);
    try {
      await store.createOrg({ id: orgId, name: 'Busy Org', created: 0 });
      other.exec('BEGIN IMMEDIATE');
      const started = performance.now();
      await assert.rejects(store.insertEvents(orgId, [event]), StoreUnavailableError);
      assert.ok(performance.now() - started >= 150, 'the insert waited for the lock first');
      await assert.rejects(
        store.createOrg({ id: objectIdAt(0, '1'), name: 'Another', created: 0 }),
        StoreUnavailableError,
      );
      // WAL: readers never wait for a writer.
      assert.equal((await store.getOrg(orgId))?.name, 'Busy Org');
      assert.deepEqual(await store.health(), { ready: true, pendingMigrations: [] });
      other.exec('COMMIT');
      assert.deepEqual(await store.insertEvents(orgId, [event]), { inserted: 1, skipped: 0 });
    } finally {
      other.close();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a database a newer release migrated is refused, saying so', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-newer-'));
    const file = path.join(dir, 'newer.db');
    try {
      await (await SqliteStore.open(file)).close();
      const other = new BetterSqlite3(file);
      other
        .prepare("INSERT INTO kysely_migration (name, timestamp) VALUES ('9999_next_release', ?)")
        .run(new Date().toISOString());
      other.close();
      await assert.rejects(
        SqliteStore.open(file),
        /migrated by a newer release of org-events \(migration 9999_next_release, unknown to this one\)/,
      );
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('a database missing a migration is not ready', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-health-'));
    const file = path.join(dir, 'health.db');
    const store = await SqliteStore.open(file);
    const other = new BetterSqlite3(file);
    try {
      assert.deepEqual(await store.health(), { ready: true, pendingMigrations: [] });
      other.prepare("DELETE FROM kysely_migration WHERE name = '0002_cover_event_counts'").run();
      const health = await store.health();
      assert.equal(health.ready, false);
      assert.deepEqual(health.pendingMigrations, ['0002_cover_event_counts']);
    } finally {
      other.close();
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite stores opening one new file at once', () => {
  const THREAD = path.join(__dirname, 'testing', 'open-sqlite-thread.ts');

  test('every one opens: the schema is created once, migrations run one at a time', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-open-'));
    try {
      const failures: string[] = [];
      for (let round = 0; round < 4; round++) {
        const file = path.join(dir, `fresh-${round}.db`);
        const parties = 6;
        const barrier = new SharedArrayBuffer(4);
        const outcomes = await Promise.all(
          Array.from(
            { length: parties },
            () =>
              new Promise<{ ok: boolean; error?: string }>((resolve, reject) => {
                const worker = new Worker(
                  `require('tsx/cjs/api').register(); require(${JSON.stringify(THREAD)});`,
                  { eval: true, workerData: { file, barrier, parties } },
                );
                worker.once('message', (outcome: { ok: boolean; error?: string }) => {
                  void worker.terminate().then(() => resolve(outcome));
                });
                worker.once('error', reject);
              }),
          ),
        );
        failures.push(...outcomes.filter((o) => !o.ok).map((o) => `round ${round}: ${o.error}`));
        const db = new BetterSqlite3(file, { readonly: true });
        try {
          const applied = db
            .prepare('SELECT name FROM kysely_migration ORDER BY name')
            .pluck()
            .all();
          assert.deepEqual(applied, MIGRATION_NAMES);
        } finally {
          db.close();
        }
      }
      assert.deepEqual(failures, []);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite store made before migration 0008', () => {
  test('is converted to compact postings that equal a fresh store’s, row for row', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-0008-'));
    const orgId = objectIdAt(Date.UTC(2024, 0, 1), 'dddddddddddddddd');
    const events = [
      ...generateEventBatches(
        {
          orgId,
          count: 1500,
          seed: 'migration',
          from: Date.UTC(2025, 0, 1),
          to: Date.UTC(2025, 0, 20),
        },
        1500,
      ),
    ][0]!;
    try {
      // Events stored before 0005 (it indexes them from their documents),
      // then the schema as it stood before 0008, which converts that index.
      const oldFile = path.join(dir, 'old.db');
      const raw = new BetterSqlite3(oldFile);
      const db = new Kysely<Database>({ dialect: new SqliteDialect({ database: raw }) });
      const migrator = new Migrator({ db, provider: migrationProvider });
      const { error } = await migrator.migrateTo('0004_create_saved_views');
      assert.equal(error, undefined);
      await db.insertInto('orgs').values({ id: orgId, name: 'Old', created: 0 }).execute();
      await db
        .insertInto('events')
        .values(
          events.map((e) => ({
            org_id: orgId,
            id: e.id,
            created: e.created,
            event_type: e.eventTypeName,
            doc: e.doc,
            raw: e.raw,
          })),
        )
        .execute();
      assert.equal((await migrator.migrateTo('0007_ingest_runs')).error, undefined);
      for (const delta of countDeltas(events).values()) {
        await db
          .insertInto('event_counts')
          .values({ org_id: orgId, event_type: delta.eventType, bucket: delta.bucket, n: delta.n })
          .execute();
      }
      await db.destroy();

      const migrated = await SqliteStore.open(oldFile);
      const fresh = await SqliteStore.open(path.join(dir, 'fresh.db'));
      try {
        await fresh.createOrg({ id: orgId, name: 'Old', created: 0 });
        await fresh.insertEvents(orgId, events);
        const [a, b] = [await migrated.dumpOrg(orgId), await fresh.dumpOrg(orgId)];
        for (const table of ['events', 'event_counts', 'term_dict', 'term_postings', 'term_days']) {
          assert.ok(b[table]!.length > 0, table);
          assert.deepEqual(a[table], b[table], table);
        }
        assert.deepEqual((await migrated.health()).pendingMigrations, []);
      } finally {
        await migrated.close();
        await fresh.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite store made before migration 0015', () => {
  test('loses the terms of values over the indexed length, which undo could no longer find: it equals a fresh store’s, and deleting the event leaves no term', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-0015-'));
    const orgId = objectIdAt(Date.UTC(2024, 0, 1), 'eeeeeeeeeeeeeeee');
    const created = Date.UTC(2025, 0, 2, 3, 4, 5);
    const long = 'c'.repeat(MAX_INDEXED_VALUE_LENGTH + 1);
    const event = encodeEvent(orgId, {
      id: objectIdAt(created, '0000000000000015'),
      created: new Date(created).toISOString(),
      eventTypeName: 'CLUSTER_CREATED',
      clusterName: long,
      groupId: '5f4e3d2c1b0a99887766554f',
    });
    try {
      const oldFile = path.join(dir, 'old.db');
      const old = await SqliteStore.open(oldFile);
      await old.createOrg({ id: orgId, name: 'Old', created: 0 });
      await old.insertEvents(orgId, [event]);
      await old.close();
      // The long value's term as the writers stored it before: in the
      // dictionary with its words, a posting and a day counter.
      const raw = new BetterSqlite3(oldFile);
      const term = `clusterName:${long}`;
      const termId = Number(
        raw
          .prepare('INSERT INTO term_dict (org_id, term, n) VALUES (?, ?, 1) RETURNING id')
          .pluck()
          .get(orgId, term),
      );
      const typeId = raw
        .prepare('SELECT id FROM event_type_ids WHERE name = ?')
        .pluck()
        .get('CLUSTER_CREATED');
      const [hi, lo] = eventKey(event.id);
      raw
        .prepare('INSERT INTO term_postings VALUES (?, ?, ?, ?, ?)')
        .run(termId, created, hi, lo, typeId);
      raw
        .prepare('INSERT INTO term_days VALUES (?, ?, ?, 1)')
        .run(termId, Date.UTC(2025, 0, 2), typeId);
      raw.prepare('INSERT INTO term_words VALUES (?, ?, ?)').run(orgId, long, termId);
      raw.prepare("DELETE FROM kysely_migration WHERE name = '0015_unindex_long_values'").run();
      raw.close();

      const migrated = await SqliteStore.open(oldFile);
      const fresh = await SqliteStore.open(path.join(dir, 'fresh.db'));
      try {
        await fresh.createOrg({ id: orgId, name: 'Old', created: 0 });
        await fresh.insertEvents(orgId, [event]);
        const [a, b] = [await migrated.dumpOrg(orgId), await fresh.dumpOrg(orgId)];
        for (const table of ['term_dict', 'term_postings', 'term_days', 'term_words']) {
          assert.ok(b[table]!.length > 0, table); // groupId's term
          assert.deepEqual(a[table], b[table], table);
        }
        assert.equal(await migrated.deleteEvents(orgId, { ids: [event.id] }), 1);
        const after = await migrated.dumpOrg(orgId);
        for (const table of ['term_dict', 'term_postings', 'term_days', 'term_words']) {
          assert.deepEqual(after[table], [], table);
        }
      } finally {
        await migrated.close();
        await fresh.close();
      }
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite facets reading a whole filtered set', () => {
  const orgId = objectIdAt(Date.UTC(2024, 0, 1), 'fafafafafafafafa');
  // Every event matches the cluster filter, so the hostname facet reads all
  // 60,000 documents: tens of milliseconds or more, however fast the machine.
  const events = eventsOneMinuteApart(orgId, 60_000, {
    extra: (i) => ({ clusterName: 'alpha', hostname: `host-${i % 50}` }),
  });
  const filter = { orgId, fields: { clusterName: ['alpha'] } };
  const expected = {
    totalCount: 60_000,
    facets: {
      clusterName: [{ value: 'alpha', count: 60_000 }],
      hostname: Array.from({ length: 50 }, (_, h) => `host-${h}`)
        .sort()
        .slice(0, 5)
        .map((value) => ({ value, count: 1_200 })),
    },
  };

  /** File descriptors of this process open on `file` (its WAL and shm included). */
  function openOn(file: string): number {
    const fds = fs.readdirSync('/proc/self/fd');
    return fds.filter((fd) => {
      try {
        return fs.readlinkSync(`/proc/self/fd/${fd}`).startsWith(file);
      } catch {
        return false;
      }
    }).length;
  }

  test('a page of events and a timer asked for meanwhile are answered before the facets, which stay exact', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-facets-'));
    const file = path.join(dir, 'facets.db');
    const store = await SqliteStore.open(file);
    try {
      await store.createOrg({ id: orgId, name: 'Facets Org', created: 0 });
      await store.insertEvents(orgId, events);
      // Ordering, not timing: on the store's own connection the list waited
      // for the whole read, and nothing else ran until it ended.
      const done: string[] = [];
      const facets = store
        .facets(filter, ['clusterName', 'hostname'], 5)
        .finally(() => done.push('facets'));
      const page = store
        .listEvents({ ...filter, limit: 10, offset: 0, includeCount: true, includeRaw: false })
        .finally(() => done.push('list'));
      const timer = new Promise((resolve) => setImmediate(resolve)).then(() => done.push('timer'));
      const [result, listed] = await Promise.all([facets, page, timer]);
      assert.deepEqual(done, ['list', 'timer', 'facets']);
      assert.deepEqual(result, expected);
      assert.equal(listed.events.length, 10);
      assert.equal(listed.totalCount, 60_000);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('many at once agree, and leave no connection open', async () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-facets-many-'));
    const file = path.join(dir, 'facets.db');
    const store = await SqliteStore.open(file);
    try {
      await store.createOrg({ id: orgId, name: 'Facets Org', created: 0 });
      await store.insertEvents(orgId, events.slice(0, 6_000));
      const burst = async () => {
        const results = await Promise.all(
          Array.from({ length: 12 }, () => store.facets(filter, ['clusterName', 'hostname'], 5)),
        );
        for (const result of results) {
          assert.equal(result.totalCount, 6_000);
          assert.deepEqual(result.facets.hostname?.[0], { value: 'host-0', count: 120 });
        }
        return openOn(file);
      };
      // Each read's own connection is closed once it has answered. SQLite
      // keeps a closed connection's descriptor for reuse while another
      // connection of the process holds locks on the file, so the count is
      // compared after a first burst: twelve leaked connections would add twelve.
      const first = await burst();
      assert.equal(await burst(), first);
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });

  test('an in-memory store (no second connection) gives the same facets', async () => {
    const store = await SqliteStore.open(':memory:');
    try {
      await store.createOrg({ id: orgId, name: 'Facets Org', created: 0 });
      await store.insertEvents(orgId, events.slice(0, 6_000));
      const result = await store.facets(filter, ['clusterName', 'hostname'], 5);
      assert.equal(result.totalCount, 6_000);
      assert.deepEqual(result.facets.hostname?.[0], { value: 'host-0', count: 120 });
    } finally {
      await store.close();
    }
  });
});

describe('SQLite stores sharing a file within one process', () => {
  test("opening a second store on the file keeps the first one's lock: another process can neither take the file whole nor delete the WAL under it", async () => {
    // npm start opens the file twice, the API's store and then the
    // dashboard's (Next's worker thread). Opening it once more with fs and
    // closing that descriptor dropped every POSIX lock the process held on
    // the file, the first store's included, so to another process the file
    // looked unused: an sqlite3 shell closing its connection deleted the WAL
    // and -shm the server still wrote to, and the server answered 500
    // "database disk image is malformed".
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-locks-'));
    const file = path.join(dir, 'events.db');
    // Another process asks for the whole file, as a connection does that is
    // about to leave WAL mode or delete the WAL once it thinks itself alone.
    const takeWhole = () =>
      execFileSync(
        process.execPath,
        [
          '-e',
          `const db = new (require('better-sqlite3'))(process.argv[1], { timeout: 0 });
           try {
             db.pragma('locking_mode = EXCLUSIVE');
             db.exec('BEGIN EXCLUSIVE; COMMIT');
             process.stdout.write('taken');
           } catch (error) {
             process.stdout.write(error.code);
           }
           db.close();`,
          file,
        ],
        { encoding: 'utf8' },
      );
    const first = await SqliteStore.open(file);
    try {
      await first.createOrg({ id: '5f00000000000000000000c1', name: 'First', created: 0 });
      assert.equal(takeWhole(), 'SQLITE_BUSY');
      const second = await SqliteStore.open(file);
      try {
        assert.equal(takeWhole(), 'SQLITE_BUSY');
        assert.ok(fs.existsSync(`${file}-wal`), 'the WAL was deleted under the open stores');
        await first.createOrg({ id: '5f00000000000000000000c2', name: 'Second', created: 0 });
        assert.equal((await second.getOrg('5f00000000000000000000c2'))?.name, 'Second');
      } finally {
        await second.close();
      }
    } finally {
      await first.close();
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});

describe('SQLite file permissions', () => {
  test("a new database and its WAL are readable by their owner alone; an existing file's mode is kept", async () => {
    // They were created 0644: every local user could copy the key hashes
    // (and, without ORG_EVENTS_SECRET, the server's secret).
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-mode-'));
    const file = path.join(dir, 'nested', 'events.db');
    const mode = (f: string) => fs.statSync(f).mode & 0o777;
    try {
      const store = await SqliteStore.open(file);
      await store.createOrg({ id: '5f00000000000000000000b7', name: 'Mode', created: 0 });
      assert.equal(mode(file), 0o600);
      assert.ok(fs.existsSync(`${file}-wal`));
      assert.equal(mode(`${file}-wal`), 0o600);
      await store.close();
      const shared = path.join(dir, 'shared.db');
      fs.writeFileSync(shared, '');
      fs.chmodSync(shared, 0o640);
      const other = await SqliteStore.open(shared);
      await other.close();
      assert.equal(mode(shared), 0o640);
    } finally {
      fs.rmSync(dir, { recursive: true, force: true });
    }
  });
});
