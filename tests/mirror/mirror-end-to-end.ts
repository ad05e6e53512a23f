import assert from 'node:assert/strict';
import { type ChildProcess, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import type net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import type { Variant } from '@/lib/config';
import { encodeEvent } from '@/lib/domain/encode';
import { objectIdAt } from '@/lib/domain/object-id';
import { openStore } from '@/lib/store';
import { cli, CLI_BIN, ROOT } from '@/tests/cli/run-cli';
import { DigestClient } from '@/tests/helpers/digest-client';
import { startTestServer, type TestServer } from '@/tests/helpers/server';

/**
 * The mirror end to end, with two servers of this product: a source seeded
 * with 20,000+ events and a copy that starts empty. Every event must come
 * over identical (list pages and single gets, with and without raw, compared
 * as the two servers serve them), a mirror killed with SIGKILL and restarted
 * must finish with the same result and no duplicates, a source behind a
 * proxy that answers 429 / 500 or drops connections must still yield the
 * complete copy, and `--follow` must pick up events added later.
 *
 * Once per source variant, each in a file of its own
 * (mirror-hosted.test.ts, mirror-self-hosted.test.ts): the test runner runs
 * files side by side, and the two took ~50 s each, one after the other.
 */

const SOURCE_EVENTS = 20_500;

type Run = { code: number | null; signal: NodeJS.Signals | null; stdout: string; stderr: string };

function startMirror(
  database: string,
  args: string[],
  env: Record<string, string> = {},
): { child: ChildProcess; done: Promise<Run> } {
  // As users run it (`npx org-events`): signals sent to its pid must reach the mirror.
  const child = spawn(process.execPath, [CLI_BIN, 'mirror', ...args, '--database', database], {
    cwd: ROOT,
    env: { ...process.env, NODE_ENV: 'test', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let stdout = '';
  let stderr = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (stdout += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (stderr += chunk));
  // 'close', not 'exit': the process may exit before its last output is
  // read from the pipes (a summary then came back empty).
  const done = new Promise<Run>((resolve) =>
    child.once('close', (code, signal) => resolve({ code, signal, stdout, stderr })),
  );
  return { child, done };
}

/** The arguments with the value after `flag` replaced. */
function withArg(args: string[], flag: string, value: string): string[] {
  const at = args.indexOf(flag);
  return args.map((arg, i) => (i === at + 1 ? value : arg));
}

async function waitFor(what: string, check: () => Promise<boolean>, timeoutMs = 120_000) {
  const deadline = Date.now() + timeoutMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Every list page of the org as the server serves it, its own base URL written as BASE. */
async function allPages(server: TestServer, includeRaw: boolean): Promise<string[]> {
  const client = new DigestClient(server.baseUrl, server.keys.member);
  const pages: string[] = [];
  for (let page = 1; ; page++) {
    const response = await client.request(
      `/api/public/v1.0/orgs/${server.orgId}/events?itemsPerPage=500&pageNum=${page}&includeRaw=${includeRaw}`,
    );
    assert.equal(response.status, 200, response.text);
    pages.push(response.text.split(server.baseUrl).join('BASE'));
    if ((response.json<{ results: unknown[] }>().results.length ?? 0) < 500) return pages;
  }
}

/** A proxy in front of `target` that fails some requests: 429 + Retry-After, 500, or a dropped connection. */
function faultyProxy(
  target: string,
): Promise<{ url: string; faults: () => number; close: () => Promise<void> }> {
  const upstream = new URL(target);
  let requests = 0;
  let faults = 0;
  const sockets = new Set<net.Socket>();
  const server = http.createServer((req, res) => {
    requests++;
    const kind = requests % 4 === 0 ? (requests / 4) % 3 : -1;
    if (kind === 0) {
      faults++;
      res.writeHead(429, { 'retry-after': '1', 'content-type': 'application/json' });
      res.end('{"errorCode":"RATE_LIMITED"}');
      return;
    }
    if (kind === 1) {
      faults++;
      res.writeHead(500, { 'content-type': 'application/json' });
      res.end('{"errorCode":"UNEXPECTED_ERROR"}');
      return;
    }
    if (kind === 2) {
      faults++;
      req.socket.destroy();
      return;
    }
    const forward = http.request(
      {
        hostname: upstream.hostname,
        port: upstream.port,
        path: req.url,
        method: req.method,
        headers: req.headers,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, answer.headers);
        answer.pipe(res);
      },
    );
    forward.on('error', () => res.destroy());
    req.pipe(forward);
  });
  server.on('connection', (socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  return new Promise((resolve) => {
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as net.AddressInfo;
      resolve({
        url: `http://127.0.0.1:${port}`,
        faults: () => faults,
        close: () =>
          new Promise((done) => {
            for (const socket of sockets) socket.destroy();
            server.close(() => done());
          }),
      });
    });
  });
}

/** The org's stored events, comparable across stores (the run that inserted them aside). */
async function storedEvents(databaseUrl: string, orgId: string) {
  const store = await openStore(databaseUrl);
  try {
    const dump = await store.dumpOrg(orgId);
    return dump.events!.map(({ run_id: _run, ...rest }) => rest);
  } finally {
    await store.close();
  }
}

async function countIn(databaseUrl: string, orgId: string): Promise<number> {
  const store = await openStore(databaseUrl);
  try {
    return await store.countEvents({ orgId });
  } finally {
    await store.close();
  }
}

export function mirrorSuite(variant: Variant) {
  describe(`mirror from a ${variant} source`, () => {
    let source: TestServer;
    let copy: TestServer;
    let sourceArgs: string[];
    const tmp = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-mirror-'));

    before(async () => {
      source = await startTestServer({ variant, eventCount: SOURCE_EVENTS });
      // The copy serves the same org id, empty: the mirror fills it.
      copy = await startTestServer({ variant, eventCount: 0 });
      sourceArgs = [
        '--org',
        copy.orgId,
        '--source',
        source.apiUrl,
        '--source-org',
        source.orgId,
        '--public-key',
        source.keys.member.publicKey,
      ];
    });
    after(async () => {
      await copy?.stop();
      await source?.stop();
      fs.rmSync(tmp, { recursive: true, force: true });
    });

    test('a mirror killed midway and restarted copies every event once; list and get are identical on both servers', async () => {
      assert.equal(await countIn(copy.databaseUrl, copy.orgId), 0);
      // Small pages and 60 requests a minute: at most 6,000 events arrive
      // before the mirror waits out the minute, so the kill lands midway
      // however fast this machine copies and however slowly the test polls
      // (the copy grows ~5,000 events a commit; unthrottled, nothing but the
      // poll's speed kept the mirror from finishing before the kill).
      const first = startMirror(
        copy.databaseUrl,
        [...sourceArgs, '--items-per-page', '100', '--requests-per-minute', '60', '--json'],
        { MIRROR_PRIVATE_KEY: source.keys.member.privateKey },
      );
      await waitFor(
        'part of the copy',
        async () => (await countIn(copy.databaseUrl, copy.orgId)) >= 3000,
      );
      first.child.kill('SIGKILL');
      const killed = await first.done;
      assert.equal(killed.signal, 'SIGKILL', killed.stderr);
      const partial = await countIn(copy.databaseUrl, copy.orgId);
      assert.ok(partial < SOURCE_EVENTS, `killed midway (${partial} copied)`);

      const second = startMirror(copy.databaseUrl, [...sourceArgs, '--json'], {
        MIRROR_PRIVATE_KEY: source.keys.member.privateKey,
      });
      const resumed = await second.done;
      assert.equal(resumed.code, 0, resumed.stderr);
      const summary = JSON.parse(resumed.stdout) as Record<string, number> & { requests: number };
      assert.equal(summary.copied, SOURCE_EVENTS - partial, 'resumed where it stopped');
      assert.ok(summary.requests >= Math.ceil((SOURCE_EVENTS - partial) / 500));
      for (const field of ['skipped', 'retries', 'seconds'])
        assert.equal(typeof summary[field], 'number');
      assert.equal(await countIn(copy.databaseUrl, copy.orgId), SOURCE_EVENTS, 'no duplicates');

      for (const includeRaw of [true, false]) {
        const [sourcePages, copyPages] = [
          await allPages(source, includeRaw),
          await allPages(copy, includeRaw),
        ];
        assert.equal(copyPages.length, sourcePages.length);
        for (let i = 0; i < sourcePages.length; i++) {
          assert.equal(copyPages[i], sourcePages[i], `page ${i + 1}, includeRaw=${includeRaw}`);
        }
      }
      const sourceClient = new DigestClient(source.baseUrl, source.keys.member);
      const copyClient = new DigestClient(copy.baseUrl, copy.keys.member);
      for (const event of source.events.org.filter((_, i) => i % 97 === 0)) {
        for (const raw of [true, false]) {
          const path = `/api/public/v1.0/orgs/${source.orgId}/events/${event.id}?includeRaw=${raw}`;
          const [a, b] = [await sourceClient.request(path), await copyClient.request(path)];
          assert.equal(a.status, 200);
          assert.equal(
            b.text.split(copy.baseUrl).join('BASE'),
            a.text.split(source.baseUrl).join('BASE'),
          );
        }
      }

      const ledger = cli(copy.databaseUrl, 'imports', 'list', '--org', copy.orgId, '--json');
      const runs = (ledger.json as { runs: { kind: string; status: string; inserted: number }[] })
        .runs;
      assert.deepEqual(
        runs.map((r) => [r.kind, r.status]),
        [
          ['mirror', 'finished'],
          ['mirror', 'interrupted'],
        ],
      );
      assert.equal(runs[0]!.inserted, SOURCE_EVENTS - partial);
    });

    test('through a proxy answering 429, 500 and dropping connections, the copy is still complete', async () => {
      const proxy = await faultyProxy(source.baseUrl);
      const target = `file:${path.join(tmp, 'through-proxy.db')}`;
      try {
        assert.equal(cli(target, 'orgs', 'create', '--name', 'Copy', '--id', copy.orgId).code, 0);
        const run = startMirror(target, [
          ...withArg(sourceArgs, '--source', `${proxy.url}/api/public/v1.0`),
          '--private-key',
          source.keys.member.privateKey,
          '--json',
        ]);
        const result = await run.done;
        assert.equal(result.code, 0, result.stderr);
        const summary = JSON.parse(result.stdout) as Record<string, number> & { retries: number };
        assert.ok(proxy.faults() >= 6, `faults injected: ${proxy.faults()}`);
        assert.ok(summary.retries >= proxy.faults() - 1, `retries ${summary.retries}`);
        assert.equal(summary.copied, SOURCE_EVENTS);
      } finally {
        await proxy.close();
      }
      assert.deepEqual(
        await storedEvents(target, copy.orgId),
        await storedEvents(copy.databaseUrl, copy.orgId),
      );
    });

    test('--follow picks up events added to the source afterwards, logs each catch-up that copied, and ends cleanly on a SIGINT sent to its pid', async () => {
      const follow = startMirror(
        copy.databaseUrl,
        [...sourceArgs, '--follow', '--interval', '1', '--json'],
        { MIRROR_PRIVATE_KEY: source.keys.member.privateKey },
      );
      const now = Date.now();
      const added = Array.from({ length: 30 }, (_, i) =>
        encodeEvent(source.orgId, {
          id: objectIdAt(now - i * 1000, `f011${i.toString(16).padStart(12, '0')}`),
          created: new Date(Math.floor((now - i * 1000) / 1000) * 1000).toISOString(),
          eventTypeName: 'JOINED_ORG',
          username: `late${i}@example.com`,
          raw: { _t: 'ORG_AUDIT', seq: i, note: 'added while following' },
        }),
      );
      const store = await openStore(source.databaseUrl);
      try {
        await store.insertEvents(source.orgId, added);
      } finally {
        await store.close();
      }
      await waitFor(
        'the follow to copy the new events',
        async () => (await countIn(copy.databaseUrl, copy.orgId)) === SOURCE_EVENTS + added.length,
      );
      // A second mirror of the same source would share its checkpoint: refused while it lives.
      const second = cli(
        copy.databaseUrl,
        'mirror',
        ...sourceArgs,
        '--private-key',
        source.keys.member.privateKey,
      );
      assert.equal(second.code, 1);
      assert.match(
        second.stderr,
        new RegExp(
          `Another mirror of .* is running \\(run [0-9a-f]{24}, process ${follow.child.pid} on `,
        ),
      );
      // To the pid alone, as `kill -INT PID` does: not the terminal's Ctrl-C,
      // which reaches every process of the group.
      follow.child.kill('SIGINT');
      const result = await follow.done;
      assert.equal(result.code, 0, result.stderr);
      const summary = JSON.parse(result.stdout) as { copied: number; stopped: boolean };
      assert.equal(summary.stopped, true);
      assert.equal(summary.copied, added.length);
      // Off a terminal, a catch-up is logged the first time and when it
      // copied something: the counts only grow, ending at what was added.
      const caughtUp = [
        ...result.stderr.matchAll(
          /Up to date through \S+ \(checked \d\d:\d\d:\d\d UTC\): (\d+) events? copied so far; next check in 1 s/g,
        ),
      ].map((line) => Number(line[1]));
      assert.ok(caughtUp.length > 0, result.stderr);
      assert.equal(caughtUp.at(-1), added.length);
      assert.deepEqual(
        caughtUp,
        [...new Set(caughtUp)].sort((a, b) => a - b),
        result.stderr,
      );
      const copyClient = new DigestClient(copy.baseUrl, copy.keys.member);
      const got = await copyClient.getJson<{ username: string; raw: unknown }>(
        `/api/public/v1.0/orgs/${copy.orgId}/events/${added[0]!.id}?includeRaw=true`,
      );
      assert.equal(got.username, 'late0@example.com');
      assert.deepEqual(got.raw, { _t: 'ORG_AUDIT', seq: 0, note: 'added while following' });
    });

    test('more events in one second than a page holds are paged within that second', async () => {
      const second = Math.floor(Date.now() / 1000) * 1000 - 5000;
      const burst = Array.from({ length: 250 }, (_, i) =>
        encodeEvent(source.orgId, {
          id: objectIdAt(second, `b0757${i.toString(16).padStart(11, '0')}`),
          created: new Date(second).toISOString(),
          eventTypeName: 'JOINED_ORG',
          username: `burst${i}@example.com`,
        }),
      );
      const store = await openStore(source.databaseUrl);
      try {
        await store.insertEvents(source.orgId, burst);
      } finally {
        await store.close();
      }
      const before = await countIn(copy.databaseUrl, copy.orgId);
      const run = startMirror(
        copy.databaseUrl,
        [...sourceArgs, '--items-per-page', '100', '--json'],
        {
          MIRROR_PRIVATE_KEY: source.keys.member.privateKey,
        },
      );
      const result = await run.done;
      assert.equal(result.code, 0, result.stderr);
      assert.equal((JSON.parse(result.stdout) as { copied: number }).copied, burst.length);
      assert.equal(await countIn(copy.databaseUrl, copy.orgId), before + burst.length);
      assert.equal(
        await countIn(copy.databaseUrl, copy.orgId),
        await countIn(source.databaseUrl, source.orgId),
      );
    });

    test('a wrong key, an unknown org, an unreachable or unknown host and a --source that is not the API base are clear errors', async () => {
      const target = `file:${path.join(tmp, 'errors.db')}`;
      assert.equal(cli(target, 'orgs', 'create', '--name', 'E', '--id', copy.orgId).code, 0);
      const wrongKey = cli(target, 'mirror', ...sourceArgs, '--private-key', 'not-the-key');
      assert.equal(wrongKey.code, 1);
      assert.match(wrongKey.stderr, /refused the key .*check the public and private key/);
      const unknownOrg = cli(
        target,
        'mirror',
        ...withArg(sourceArgs, '--source-org', '0123456789abcdef01234567'),
        '--private-key',
        source.keys.member.privateKey,
        '--json',
      );
      assert.equal(unknownOrg.code, 1);
      assert.match(
        (unknownOrg.json as { error: { message: string } }).error.message,
        /no organization 0123456789abcdef01234567/,
      );
      const closed = await faultyProxy(source.baseUrl);
      await closed.close(); // a port nobody listens on any more
      const unreachable = cli(
        target,
        'mirror',
        ...withArg(sourceArgs, '--source', `${closed.url}/api/public/v1.0`),
        '--private-key',
        source.keys.member.privateKey,
      );
      assert.equal(unreachable.code, 1);
      assert.match(unreachable.stderr, /Cannot reach http:\/\/127\.0\.0\.1:\d+: .*ECONNREFUSED/);
      const unknownHost = cli(
        target,
        'mirror',
        ...withArg(sourceArgs, '--source', 'http://no-such-host.invalid/api/public/v1.0'),
        '--private-key',
        source.keys.member.privateKey,
      );
      assert.equal(unknownHost.code, 1);
      assert.match(
        unknownHost.stderr,
        /Cannot reach http:\/\/no-such-host\.invalid: .*(ENOTFOUND|EAI_AGAIN)/,
      );
      // The server's root instead of its API base (with and without the
      // trailing slash): this product answers the dashboard's path with a
      // redirect to sign-in, a plain web server with a page or a 404.
      const origin = new URL(source.apiUrl).origin;
      for (const notTheApi of [origin, `${origin}/`]) {
        const result = cli(
          target,
          'mirror',
          ...withArg(sourceArgs, '--source', notTheApi),
          '--private-key',
          source.keys.member.privateKey,
        );
        assert.equal(result.code, 1);
        assert.match(result.stderr, /is --source the API's base URL/);
      }
      assert.equal(await countIn(target, copy.orgId), 0);
      const ledger = cli(target, 'imports', 'list', '--org', copy.orgId, '--json');
      const runs = (ledger.json as { runs: { status: string; detail: string }[] }).runs;
      assert.deepEqual(
        runs.map((r) => r.status),
        ['failed', 'failed', 'failed', 'failed', 'failed', 'failed'],
        'each refused mirror is recorded as failed, with its reason',
      );
      assert.match(runs[2]!.detail, /no-such-host\.invalid/);
      // Nothing was added, so nothing is offered to undo.
      const listed = cli(target, 'imports', 'list', '--org', copy.orgId);
      assert.equal(listed.code, 0);
      assert.match(listed.stdout, /failed: The source refused the key/);
      assert.doesNotMatch(listed.stdout, /imports undo/);
    });

    if (variant === 'self-hosted') {
      test('over https with a private CA: untrusted is a clear error, NODE_EXTRA_CA_CERTS makes it work', async () => {
        const certs = path.join(tmp, 'tls');
        fs.mkdirSync(certs);
        const file = (name: string) => path.join(certs, name);
        const openssl = (...args: string[]) =>
          assert.equal(spawnSync('openssl', args, { stdio: 'ignore' }).status, 0, args.join(' '));
        openssl(
          ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1'],
          ...['-subj', '/CN=Private Test CA', '-keyout', file('ca.key'), '-out', file('ca.pem')],
        );
        openssl(
          ...['req', '-newkey', 'rsa:2048', '-nodes', '-subj', '/CN=127.0.0.1'],
          ...['-keyout', file('key.pem'), '-out', file('leaf.csr')],
        );
        fs.writeFileSync(file('san.ext'), 'subjectAltName=IP:127.0.0.1\n');
        openssl(
          ...['x509', '-req', '-in', file('leaf.csr'), '-CA', file('ca.pem')],
          ...['-CAkey', file('ca.key'), '-CAcreateserial', '-days', '1'],
          ...['-extfile', file('san.ext'), '-out', file('cert.pem')],
        );
        const tlsSource = await startTestServer({
          variant,
          eventCount: 600,
          env: { TLS_CERT_FILE: file('cert.pem'), TLS_KEY_FILE: file('key.pem') },
        });
        const target = `file:${path.join(tmp, 'over-tls.db')}`;
        try {
          assert.match(tlsSource.apiUrl, /^https:/);
          assert.equal(cli(target, 'orgs', 'create', '--name', 'T', '--id', copy.orgId).code, 0);
          const args = [
            ...withArg(
              withArg(sourceArgs, '--source', tlsSource.apiUrl),
              '--public-key',
              tlsSource.keys.member.publicKey,
            ),
            '--private-key',
            tlsSource.keys.member.privateKey,
            '--json',
          ];
          const untrusted = await startMirror(target, args).done;
          assert.equal(untrusted.code, 1);
          assert.match(
            untrusted.stdout,
            /The certificate of https:\/\/127\.0\.0\.1:\d+ is not trusted \((UNABLE_TO_VERIFY_LEAF_SIGNATURE|SELF_SIGNED_CERT_IN_CHAIN).*NODE_EXTRA_CA_CERTS/,
          );
          // Trusted, but asked for by a name it is not issued for: no CA would help.
          const otherName = await startMirror(
            target,
            withArg(args, '--source', tlsSource.apiUrl.replace('127.0.0.1', 'localhost')),
            { NODE_EXTRA_CA_CERTS: file('ca.pem') },
          ).done;
          assert.equal(otherName.code, 1);
          assert.match(
            otherName.stdout,
            /The certificate of https:\/\/localhost:\d+ is not trusted \(ERR_TLS_CERT_ALTNAME_INVALID: .*\)\. It is issued for other names than localhost: name the host in --source as the certificate does\./,
          );
          assert.doesNotMatch(otherName.stdout, /NODE_EXTRA_CA_CERTS/);
          const trusted = await startMirror(target, args, {
            NODE_EXTRA_CA_CERTS: file('ca.pem'),
          }).done;
          assert.equal(trusted.code, 0, trusted.stderr);
          assert.equal((JSON.parse(trusted.stdout) as { copied: number }).copied, 600);
          // The same events (their bytes as served are compared in the tests above;
          // the self-hosted source stores billing fields it never serves).
          // Sorted: the copy's sort keys within a second carry the source's
          // listing order, so the rows' own order differs from the source's.
          const ids = async (url: string) =>
            (await storedEvents(url, copy.orgId)).map((e) => String(e.id)).sort();
          assert.deepEqual(await ids(target), await ids(tlsSource.databaseUrl));
        } finally {
          await tlsSource.stop();
        }
      });
    }
  });
}
