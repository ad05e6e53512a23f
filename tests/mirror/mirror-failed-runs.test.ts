import assert from 'node:assert/strict';
import fs from 'node:fs';
import http from 'node:http';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import { objectIdAt } from '@/lib/domain/object-id';
import { MirrorError, runMirror } from '@/lib/mirror/mirror';
import type { EventStore } from '@/lib/store/types';
import { cli } from '@/tests/cli/run-cli';
import { eventsSecondApart, listingSource } from '@/tests/helpers/mirror-copy';
import { TEST_ENGINES } from '@/tests/helpers/test-stores';

/**
 * What the import ledger keeps of a mirror that fails: one refused before
 * the source's first answer (a wrong key, an unknown org, a host it cannot
 * reach) added nothing and leaves no run behind, its error said by the
 * command (a mirror retried from cron filled `imports list` with them);
 * one that fails once the source has answered keeps its run, failed, with
 * its error and what it copied.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe00c1');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe00c2');
const BASE = Date.UTC(2025, 5, 1, 12, 0, 0);

const events = eventsSecondApart(9, { base: BASE, orgId: SOURCE_ORG, idTag: 'c1c1' });

/** A source answering every request with `respond`, which `answerWith` swaps. */
async function sourceAnswering(respond: http.RequestListener) {
  let current = respond;
  const server = http.createServer((req, res) => current(req, res));
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    baseUrl: `http://127.0.0.1:${port}/api/public/v1.0`,
    answerWith: (next: http.RequestListener) => (current = next),
    close: () => new Promise<void>((resolve) => server.close(() => resolve())),
  };
}

/** An API error answer, as the source writes it. */
function apiError(status: number, errorCode: string): http.RequestListener {
  return (_req, res) =>
    res
      .writeHead(status, { 'content-type': 'application/json' })
      .end(JSON.stringify({ error: status, errorCode, detail: errorCode.toLowerCase() }));
}

/** A base URL on which nothing listens (a port just freed). */
async function unreachableBaseUrl(): Promise<string> {
  const server = await sourceAnswering((_req, res) => res.end());
  await server.close();
  return server.baseUrl;
}

/** Answers with the listing source's own answer to the request's path and query. */
function forwardTo(source: { baseUrl: string }): http.RequestListener {
  return (req, res) => {
    http
      .request(`${new URL(source.baseUrl).origin}${req.url!}`, (answer) => {
        res.writeHead(answer.statusCode!, answer.headers);
        answer.pipe(res);
      })
      .end();
  };
}

function mirrorOf(store: EventStore, baseUrl: string) {
  return runMirror({
    store,
    orgId: ORG,
    itemsPerPage: 3,
    source: { baseUrl, orgId: SOURCE_ORG, publicKey: 'p', privateKey: 'k', backoffMs: 1 },
  });
}

for (const [engine, open] of TEST_ENGINES) {
  test(`${engine}: a mirror refused before the source's first answer (a wrong key, an unknown org, an unreachable host) leaves no run in the ledger, and the next run starts as usual`, async () => {
    const { store, drop } = await open();
    const wrongKey = await sourceAnswering(apiError(401, 'UNAUTHORIZED'));
    const unknownOrg = await sourceAnswering(apiError(404, 'ORG_NOT_FOUND'));
    const source = await listingSource(events);
    try {
      await store.createOrg({ id: ORG, name: 'Copy', created: BASE });
      for (const baseUrl of [wrongKey.baseUrl, unknownOrg.baseUrl, await unreachableBaseUrl()]) {
        await assert.rejects(mirrorOf(store, baseUrl), MirrorError, baseUrl);
        assert.deepEqual(await store.listIngestRuns(ORG), [], baseUrl);
      }
      // The same source answering now: its run is the ledger's one.
      wrongKey.answerWith(forwardTo(source));
      const summary = await mirrorOf(store, wrongKey.baseUrl);
      assert.equal(summary.copied, events.length);
      const runs = await store.listIngestRuns(ORG);
      assert.deepEqual(
        runs.map((run) => [run.id, run.status, run.inserted]),
        [[summary.runId, 'finished', events.length]],
      );
    } finally {
      await Promise.all([wrongKey.close(), unknownOrg.close()]);
      source.close();
      await store.close();
      await drop();
    }
  });

  test(`${engine}: a mirror failing once the source has answered keeps its run, failed, with its error and what it copied`, async () => {
    const { store, drop } = await open();
    const source = await listingSource(events);
    let requests = 0;
    const front = await sourceAnswering((req, res) =>
      ++requests === 1 ? forwardTo(source)(req, res) : apiError(401, 'UNAUTHORIZED')(req, res),
    );
    try {
      await store.createOrg({ id: ORG, name: 'Copy', created: BASE });
      const failure = await mirrorOf(store, front.baseUrl).then(
        () => assert.fail('the mirror should fail'),
        (error: unknown) => error,
      );
      assert.ok(failure instanceof MirrorError);
      const runs = await store.listIngestRuns(ORG);
      assert.equal(runs.length, 1);
      assert.equal(runs[0]!.status, 'failed');
      assert.equal(runs[0]!.inserted, 3);
      assert.equal(runs[0]!.detail, failure.message);
    } finally {
      await front.close();
      source.close();
      await store.close();
      await drop();
    }
  });
}

test("the CLI: 'imports list' after a mirror that could not reach its source shows no run; the mirror's own error said why", async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-mirror-failed-'));
  const database = path.join(dir, 'copy.db');
  try {
    assert.equal(cli(database, 'orgs', 'create', '--name', 'Copy', '--id', ORG).code, 0);
    const baseUrl = await unreachableBaseUrl();
    const mirror = cli(
      database,
      'mirror',
      '--org',
      ORG,
      '--source',
      baseUrl,
      '--source-org',
      SOURCE_ORG,
      '--public-key',
      'pub',
      '--private-key',
      'priv',
    );
    assert.equal(mirror.code, 1, mirror.stderr);
    assert.match(mirror.stderr, /Cannot reach http:\/\/127\.0\.0\.1:\d+/);
    const list = cli(database, 'imports', 'list', '--org', ORG);
    assert.equal(list.code, 0, list.stderr);
    assert.equal(list.stdout.trim(), `No imports or mirror runs recorded for ${ORG}.`);
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});
