import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { counterUnit } from '@/lib/store/schema';
import { SqliteStore } from '@/lib/store/sqlite';
import { CLI_BIN, ROOT } from '@/tests/cli/run-cli';
import { generateEvents } from './seed';

const ORG = '6a0a1b2c3d4e5f6a7b8c9d11';
/** Events per file; small batches make many write transactions that overlap. */
const PER_FILE = 12_000;
const BATCH = 250;

type CliRun = { code: number | null; stdout: string; stderr: string };

/** The admin CLI as an operator runs it: its own process, its own connection. */
function runCli(args: string[]): Promise<CliRun> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], {
      cwd: ROOT,
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
    child.stderr.on('data', (chunk: Buffer) => (stderr += chunk.toString()));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

describe('two imports into one SQLite file at once', () => {
  let dir: string;
  let database: string;
  const files: string[] = [];
  const ids: Set<string>[] = [];

  before(async () => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-concurrent-'));
    database = path.join(dir, 'shared.db');
    const store = await SqliteStore.open(database);
    await store.createOrg({ id: ORG, name: 'Concurrent Org', created: 0 });
    await store.close();
    // Two different event sets over the same month: their counters share buckets,
    // so the two writers update the same counter rows.
    for (const seed of ['first', 'second']) {
      const records = [
        ...generateEvents({
          orgId: ORG,
          count: PER_FILE,
          seed,
          from: Date.UTC(2026, 0, 1),
          to: Date.UTC(2026, 1, 1),
        }),
      ];
      const file = path.join(dir, `${seed}.ndjson`);
      fs.writeFileSync(file, records.map((r) => JSON.stringify(r)).join('\n') + '\n');
      files.push(file);
      ids.push(new Set(records.map((r) => r.id)));
    }
    assert.equal(
      [...ids[0]!].filter((id) => ids[1]!.has(id)).length,
      0,
      'the two files hold different events',
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('both finish, every event is stored once and the counters are exact', async () => {
    const runs = await Promise.all(
      files.map((file) =>
        runCli([
          '--database',
          database,
          '--json',
          'import',
          file,
          '--org',
          ORG,
          '--batch-size',
          String(BATCH),
        ]),
      ),
    );
    for (const [i, run] of runs.entries()) {
      assert.equal(run.code, 0, `import ${i + 1} exited ${run.code}: ${run.stderr.slice(-2000)}`);
      const report = JSON.parse(run.stdout) as { inserted: number; duplicates: number };
      assert.equal(report.inserted, PER_FILE, `import ${i + 1} inserted every event`);
      assert.equal(report.duplicates, 0);
    }

    const db = new BetterSqlite3(database, { readonly: true });
    try {
      const stored = db.prepare('SELECT id FROM events WHERE org_id = ?').pluck().all(ORG);
      assert.equal(stored.length, 2 * PER_FILE);
      assert.deepEqual(new Set(stored), new Set([...ids[0]!, ...ids[1]!]));

      // Every counter row equals a plain count of the rows it stands for.
      const expected = new Map<string, number>();
      const bump = (key: string) => expected.set(key, (expected.get(key) ?? 0) + 1);
      const rows = db
        .prepare('SELECT created, event_type FROM events WHERE org_id = ?')
        .all(ORG) as { created: number; event_type: string }[];
      for (const row of rows) {
        bump(`${row.event_type}/${Math.floor(row.created / counterUnit(true))}`);
        bump(`/${Math.floor(row.created / counterUnit(false))}`);
      }
      const counters = db
        .prepare('SELECT event_type, bucket, n FROM event_counts WHERE org_id = ?')
        .all(ORG) as { event_type: string; bucket: number; n: number }[];
      const actual = new Map(
        counters.filter((c) => c.n !== 0).map((c) => [`${c.event_type}/${c.bucket}`, c.n]),
      );
      assert.deepEqual(actual, expected);
    } finally {
      db.close();
    }
  });
});
