import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, describe, test } from 'node:test';
import { objectIdAt } from '@/lib/domain/object-id';
import type { NewEvent } from '@/lib/domain/event';
import { openStore } from '@/lib/store';
import { cli } from '@/tests/cli/run-cli';
import { createTestDatabase } from '@/tests/helpers/postgres';
import { generateEvents } from '@/tests/helpers/test-events';

/**
 * The import ledger through the CLI, on both engines: every import is
 * recorded, `imports undo` removes exactly what that import added (not what
 * it skipped as already present) and leaves every table of the org as it was
 * before the import, row for row; `prune` deletes by date with a dry run first.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), '0123456789abcdef');

function asRecord(event: NewEvent): Record<string, unknown> {
  return {
    ...(JSON.parse(event.doc) as Record<string, unknown>),
    ...(event.raw === null ? {} : { raw: JSON.parse(event.raw) as unknown }),
  };
}

type RunJson = {
  id: string;
  kind: string;
  status: string;
  source: string;
  inserted: number;
  skipped: number;
  rejected: number;
};

function ledgerSuite(
  engine: string,
  open: () => Promise<{ url: string; drop: () => Promise<void> }>,
) {
  describe(`imports ledger, undo and prune (${engine})`, () => {
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-ledger-'));
    let database: { url: string; drop: () => Promise<void> } | undefined;
    after(async () => {
      await database?.drop();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    test('imports are listed; undo restores every table of the org; prune counts, then deletes', async () => {
      database = await open();
      const url = database.url;
      assert.equal(cli(url, 'orgs', 'create', '--name', 'Ledger', '--id', ORG).code, 0);
      const events = generateEvents(ORG, 3000, { seed: 11, days: 30 });
      const fileA = path.join(dir, 'a.ndjson');
      const fileB = path.join(dir, 'b.ndjson');
      fs.writeFileSync(
        fileA,
        events
          .slice(0, 1500)
          .map((e) => JSON.stringify(asRecord(e)))
          .join('\n'),
      );
      // B repeats 500 of A's events, adds 1,500 new ones and two invalid records.
      fs.writeFileSync(
        fileB,
        [
          ...events.slice(1000, 3000).map((e) => JSON.stringify(asRecord(e))),
          '{"id": "nope"}',
          'not json',
        ].join('\n'),
      );

      const importA = cli(url, 'import', '--org', ORG, fileA, '--json');
      assert.equal(importA.code, 0, importA.stderr);
      const store = await openStore(url);
      try {
        const before = await store.dumpOrg(ORG);
        assert.equal(before.events!.length, 1500);

        const importB = cli(url, 'import', '--org', ORG, fileB, '--json');
        assert.equal(importB.code, 2, importB.stderr);
        const runB = (importB.json as { runId: string }).runId;

        const listed = cli(url, 'imports', 'list', '--org', ORG, '--json');
        assert.equal(listed.code, 0, listed.stderr);
        const runs = (listed.json as { runs: RunJson[] }).runs;
        assert.equal(runs.length, 2);
        assert.deepEqual(
          runs.map((r) => [r.kind, r.status, r.source, r.inserted, r.skipped, r.rejected]),
          [
            ['import', 'finished', fileB, 1500, 500, 2],
            ['import', 'finished', fileA, 1500, 0, 0],
          ],
        );
        assert.equal(runs[0]!.id, runB);
        const table = cli(url, 'imports', 'list', '--org', ORG);
        assert.match(table.stdout, new RegExp(`${runB}\\s+import\\s+finished`));

        const undo = cli(url, 'imports', 'undo', runB, '--json');
        assert.equal(undo.code, 0, undo.stderr);
        assert.equal((undo.json as { deleted: number }).deleted, 1500);

        const restored = await store.dumpOrg(ORG);
        const { ingest_runs: ledgerAfter, ...tablesAfter } = restored;
        const { ingest_runs: ledgerBefore, ...tablesBefore } = before;
        assert.deepEqual(tablesAfter, tablesBefore, 'every table of the org as before import B');
        assert.deepEqual(
          ledgerAfter!.filter((row) => row.id !== runB),
          ledgerBefore,
          'the ledger only gained the undone run',
        );
        assert.equal((await store.getIngestRun(runB))?.status, 'undone');
        const again = cli(url, 'imports', 'undo', runB);
        assert.equal(again.code, 1);
        assert.match(again.stderr, /already undone/);

        // Retention: a dry run counts, the prune deletes exactly that many.
        const cutoff = events[750]!.created; // the list is newest first: about half is older
        const older = events.slice(0, 1500).filter((e) => e.created < cutoff).length;
        const dry = cli(
          url,
          'events',
          'prune',
          '--org',
          ORG,
          '--before',
          new Date(cutoff).toISOString(),
          '--dry-run',
          '--json',
        );
        assert.equal(dry.code, 0, dry.stderr);
        assert.equal((dry.json as { wouldDelete: number }).wouldDelete, older);
        assert.equal(await store.countEvents({ orgId: ORG }), 1500, 'a dry run deletes nothing');
        const pruned = cli(
          url,
          'events',
          'prune',
          '--org',
          ORG,
          '--before',
          new Date(cutoff).toISOString(),
          '--json',
        );
        assert.equal(pruned.code, 0, pruned.stderr);
        const { deleted, seconds } = pruned.json as { deleted: number; seconds: number };
        assert.equal(deleted, older);
        assert.equal(seconds, Math.round(seconds * 1000) / 1000, 'seconds to the millisecond');
        assert.equal(await store.countEvents({ orgId: ORG }), 1500 - older);
        assert.equal(await store.countEvents({ orgId: ORG, maxCreated: cutoff - 1 }), 0);
      } finally {
        await store.close();
      }
    });
  });
}

ledgerSuite('SQLite', () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-ledger-db-'));
  return Promise.resolve({
    url: `file:${path.join(dir, 'ledger.db')}`,
    drop: () => Promise.resolve(fs.rmSync(dir, { recursive: true, force: true })),
  });
});
ledgerSuite('PostgreSQL', createTestDatabase);
