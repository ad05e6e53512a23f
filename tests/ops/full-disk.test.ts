import assert from 'node:assert/strict';
import { randomBytes } from 'node:crypto';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import pg from 'pg';
import { DigestClient } from '@/tests/helpers/digest-client';
import { createTestDatabase, PG_ADMIN_URL } from '@/tests/helpers/postgres';
import { signInForCookie, startTestServer, type TestServer } from '@/tests/helpers/server';
import { emptyWal, fillDisk, mountSmallDisk } from '@/tests/helpers/small-disk';

/**
 * The server on a database whose disk is full (a small tmpfs, where root may
 * mount one: tests/helpers/small-disk.ts). SQLite's reads need no room
 * (temp_store = MEMORY, a WAL reader writes nothing), so the API answers
 * them; a write, a saved view, is refused (SQLITE_FULL). PostgreSQL's reads
 * may: a sort larger than work_mem goes to a temporary file, refused on a
 * full disk (53100). Either is answered 503 in the spec's error body, saying
 * what is wrong and naming no file. Needs a build (and, for the second, the
 * local PostgreSQL).
 */

const FULL_DISK_BODY = {
  detail:
    "The service is temporarily unavailable (the database's disk is full). Retry in 5 seconds.",
  error: 503,
  errorCode: 'SERVICE_UNAVAILABLE',
  parameters: [],
  reason: 'Service Unavailable',
};

test("on a full disk the API's reads answer, and a saved view refused for want of room is a 503 saying the database's disk is full", async (t) => {
  const disk = mountSmallDisk(32);
  if (typeof disk === 'string') {
    t.skip(disk);
    return;
  }
  const db = path.join(disk.dir, 'org-events.db');
  const server = await startTestServer({
    databaseUrl: `file:${db}`,
    eventCount: 200,
    port: 3310,
  }).catch((error: unknown) => {
    disk.unmount();
    throw error;
  });
  t.after(async () => {
    // Stopped before the disk is unmounted: an open file keeps it busy.
    await server.stop();
    disk.unmount();
  });
  const cookie = await signInForCookie(server, server.keys.member);
  const saveView = (name: string) =>
    fetch(`${server.baseUrl}/api/orgs/${server.orgId}/views`, {
      method: 'POST',
      headers: { 'Content-Type': 'application/json', Origin: server.baseUrl, Cookie: cookie },
      body: JSON.stringify({ name, shared: false, state: { query: 'eventType=JOINED_ORG' } }),
    });

  // The write-ahead log emptied (emptyWal): any write now needs room the disk no longer has.
  emptyWal(db);
  const filler = path.join(disk.dir, 'filler');
  fillDisk(filler);

  const client = new DigestClient(server.baseUrl, server.keys.member);
  const events = `/api/public/v1.0/orgs/${server.orgId}/events`;
  for (const read of [
    `${events}?itemsPerPage=500&includeRaw=true`,
    `${events}/${server.events.org[0]!.id}`,
    `${events}/facets`,
    `${events}/histogram`,
    `/api/public/v1.0/orgs/${server.orgId}/eventTypes`,
  ]) {
    assert.equal((await client.request(read)).status, 200, read);
  }

  const refused = await saveView('On a full disk');
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get('retry-after'), '5');
  assert.equal(refused.headers.get('x-error-code'), 'SERVICE_UNAVAILABLE');
  // It said "(database unreachable)": an operator went looking at the network.
  assert.deepEqual(await refused.json(), FULL_DISK_BODY);

  // Room again: the same request succeeds, without a restart.
  fs.rmSync(filler);
  const saved = await saveView('On a full disk');
  assert.equal(saved.status, 201, await saved.text());
});

test("on PostgreSQL, a list whose sort needs a temporary file on a full disk is a 503 saying the database's disk is full", async (t) => {
  const disk = mountSmallDisk(16);
  if (typeof disk === 'string') {
    t.skip(disk);
    return;
  }
  // The server's temporary files on the small disk: a tablespace there (its
  // directory the server's own), made the database's temp_tablespaces.
  const location = path.join(disk.dir, 'temp');
  fs.mkdirSync(location);
  if (spawnSync('chown', ['postgres:postgres', location]).status !== 0) {
    disk.unmount();
    t.skip('no postgres user to give the tablespace to');
    return;
  }
  const tablespace = `org_events_full_${randomBytes(6).toString('hex')}`;
  const admin = new pg.Client({ connectionString: PG_ADMIN_URL });
  await admin.connect();
  const database = await createTestDatabase();
  const started: { server?: TestServer } = {};
  t.after(async () => {
    await started.server?.stop();
    await database.drop();
    await admin.query(`DROP TABLESPACE IF EXISTS ${tablespace}`);
    await admin.end();
    disk.unmount();
  });
  await admin.query(`CREATE TABLESPACE ${tablespace} LOCATION '${location}'`);
  const name = new URL(database.url).pathname.slice(1);
  await admin.query(`ALTER DATABASE ${name} SET temp_tablespaces = ${tablespace}`);
  // The least there is (64 kB): a page of 500 events with their documents is sorted on disk.
  await admin.query(`ALTER DATABASE ${name} SET work_mem = '64kB'`);
  const server = await startTestServer({
    databaseUrl: database.url,
    eventCount: 3000,
    port: 3311,
  });
  started.server = server;
  const client = new DigestClient(server.baseUrl, server.keys.member);
  // Free text: its matches are gathered, then sorted into the page.
  const list = `/api/public/v1.0/orgs/${server.orgId}/events?itemsPerPage=500&includeRaw=true&q=cluster`;
  const first = await client.request(list);
  assert.equal(first.status, 200, first.text);

  const filler = path.join(disk.dir, 'filler');
  fillDisk(filler);
  const refused = await client.request(list);
  assert.equal(refused.status, 503);
  assert.equal(refused.headers.get('retry-after'), '5');
  assert.equal(refused.headers.get('x-error-code'), 'SERVICE_UNAVAILABLE');
  // PostgreSQL's own text names the file ("could not write to file
  // "pg_tblspc/…/pgsql_tmp…": No space left on device"): left to the log.
  assert.deepEqual(refused.json(), FULL_DISK_BODY);
  const event = `/api/public/v1.0/orgs/${server.orgId}/events/${server.events.org[0]!.id}`;
  assert.equal((await client.request(event)).status, 200, 'a read that needs no room');

  fs.rmSync(filler);
  assert.equal((await client.request(list)).status, 200, 'room again');
});
