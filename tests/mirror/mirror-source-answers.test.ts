import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import http from 'node:http';
import https from 'node:https';
import type { AddressInfo } from 'node:net';
import os from 'node:os';
import path from 'node:path';
import zlib from 'node:zlib';
import { test } from 'node:test';
import { computeHa1 } from '@/lib/auth/api-keys';
import { buildChallenge, parseAuthorization, verifyDigestResponse } from '@/lib/auth/digest';
import { objectIdAt } from '@/lib/domain/object-id';
import { MirrorError, runMirror } from '@/lib/mirror/mirror';
import { SourceClient, SourceStopped } from '@/lib/mirror/source';
import {
  eventsSecondApart,
  groupCreatedDocument,
  listingSource,
  mirrorIntoFreshStore,
  type SourceEvent,
} from '@/tests/helpers/mirror-copy';
import { openSqliteTestStore } from '@/tests/helpers/test-stores';

/**
 * Answers a source may give: a 200 whose body is not a list (cut short, an
 * HTML page) after good pages is retried like a 5xx; a Retry-After given as
 * an HTTP-date is obeyed (as its seconds); a record holding bytes that are
 * no UTF-8 is rejected, not altered; a source that ignores pageNum,
 * or a port of the other scheme (TLS named http://, plain HTTP named
 * https://), fails soon, saying so; an outage past the retries ends a
 * mirror, but not a --follow one.
 */

const ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0061');
const SOURCE_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0062');
const BASE = Date.UTC(2025, 5, 1, 12, 0, 0);

const events = eventsSecondApart(9, { base: BASE, orgId: SOURCE_ORG, idTag: 'efefefef' });

async function mirror(baseUrl: string, sleep?: (ms: number) => Promise<void>) {
  const { summary } = await mirrorIntoFreshStore(openSqliteTestStore, {
    baseUrl,
    sourceOrg: SOURCE_ORG,
    orgId: ORG,
    created: BASE,
    itemsPerPage: 3,
    sleep,
    source: { backoffMs: 1 },
  });
  return summary;
}

/**
 * Mirrors `src` (pages of 3) into a fresh store, then closes it: every
 * event but `left` is copied, and `left` alone is rejected and reported
 * with `message`.
 */
async function assertRejectedAlone(
  src: { baseUrl: string; close: () => void },
  left: SourceEvent,
  message: string,
  maxRecordBytes?: number,
) {
  const rejected: [unknown, string][] = [];
  try {
    const { summary, events: copy } = await mirrorIntoFreshStore(openSqliteTestStore, {
      baseUrl: src.baseUrl,
      sourceOrg: SOURCE_ORG,
      orgId: ORG,
      created: BASE,
      itemsPerPage: 3,
      maxRecordBytes,
      onRejected: (record, reason) => rejected.push([record, reason]),
    });
    assert.deepEqual([summary.copied, summary.rejected], [events.length - 1, 1]);
    assert.deepEqual(
      rejected.map(([record, reason]) => [(record as { id: string }).id, reason]),
      [[left.id, message]],
    );
    assert.deepEqual(
      copy.map((e) => e.id),
      events.filter((e) => e !== left).map((e) => e.id),
    );
  } finally {
    src.close();
  }
}

for (const [name, body] of [
  ['a list cut short', '{"links":[],"results":[{"created":"2025-06-01T12:00:0'],
  ['an HTML page', '<html><body>502 Bad Gateway</body></html>'],
  ['JSON without a results list', '{"status":"maintenance"}'],
] as const) {
  test(`a 200 with ${name} after good pages is retried, and the copy is complete`, async () => {
    const src = await listingSource(events, {
      misbehave: (n, res) => {
        if (n !== 2) return false;
        res.writeHead(200, { 'content-type': 'application/json' }).end(body);
        return true;
      },
    });
    try {
      const summary = await mirror(src.baseUrl);
      assert.deepEqual([summary.copied, summary.retries], [9, 1]);
    } finally {
      src.close();
    }
  });
}

test('answers gzip-, deflate- or br-encoded are read as what they encode; one that does not decode is retried; an unknown encoding fails at once, naming it', async () => {
  const encoders: Record<string, (body: Buffer) => Buffer> = {
    gzip: (body) => zlib.gzipSync(body),
    deflate: (body) => zlib.deflateSync(body),
    br: (body) => zlib.brotliCompressSync(body),
    // Cut short: does not decode.
    damaged: (body) => zlib.gzipSync(body).subarray(0, 20),
  };
  // An empty answer said to be gzip (a proxy marking everything so): a 401 challenge.
  const challenges = http.createServer((req, res) => {
    if (!req.headers.authorization) {
      res
        .writeHead(401, {
          'www-authenticate':
            'Digest realm="MMS Public API", nonce="n1", qop="auth", algorithm=MD5',
          'content-encoding': 'gzip',
        })
        .end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"links":[],"results":[]}');
  });
  await new Promise<void>((resolve) => challenges.listen(0, '127.0.0.1', resolve));
  try {
    const { port } = challenges.address() as AddressInfo;
    const summary = await mirror(`http://127.0.0.1:${port}/api/public/v1.0`);
    assert.deepEqual([summary.copied, summary.retries], [0, 0]);
  } finally {
    challenges.close();
  }
  const names = Object.keys(encoders);
  const src = await listingSource(events, {
    encode: (n, body) => {
      const name = names[(n - 1) % names.length]!;
      return { encoding: name === 'damaged' ? 'gzip' : name, body: encoders[name]!(body) };
    },
  });
  try {
    const summary = await mirror(src.baseUrl);
    assert.deepEqual([summary.copied, summary.rejected], [events.length, 0]);
    assert.ok(summary.retries >= 1, `retries ${summary.retries}`);
  } finally {
    src.close();
  }
  const unknown = await listingSource(events, {
    encode: (_n, body) => ({ encoding: 'zstd', body }),
  });
  try {
    // Asked again, it would come so again: one request, not nine.
    await assert.rejects(
      mirror(unknown.baseUrl),
      (error) =>
        error instanceof MirrorError &&
        error.code === 'REJECTED' &&
        !error.transient &&
        /is encoded as "zstd" \(Content-Encoding\), which this client does not read \(it asks for gzip, deflate or br\)/.test(
          error.message,
        ),
    );
    assert.equal(unknown.requests(), 1);
  } finally {
    unknown.close();
  }
});

test('answers deflate-encoded without the zlib wrapper (raw deflate, as some servers send it) are read as what they encode', async () => {
  // RFC 9110 8.4.1.2 notes such servers, and browsers read them. Each answer
  // failed to decode, was asked again, came so again, and the mirror ended
  // saying it could not reach the source.
  const src = await listingSource(events, {
    encode: (_n, body) => ({ encoding: 'deflate', body: zlib.deflateRawSync(body) }),
  });
  try {
    const summary = await mirror(src.baseUrl);
    assert.deepEqual([summary.copied, summary.retries], [events.length, 0]);
  } finally {
    src.close();
  }
});

test('an empty page after pages of events is asked for again before it ends the walk: one empty by a passing fault loses nothing', async () => {
  // Before, the third answer ending the walk left 5 of the 9 events
  // uncopied for good, the copy said complete through the newest.
  const src = await listingSource(events, {
    misbehave: (n, res) => {
      if (n !== 3) return false;
      res.writeHead(200, { 'content-type': 'application/json' }).end('{"links":[],"results":[]}');
      return true;
    },
  });
  try {
    const summary = await mirror(src.baseUrl);
    assert.deepEqual([summary.copied, summary.rejected], [events.length, 0]);
    // Pages of 3, each after the first reading its predecessor's oldest
    // second again: 5 with events, the last of them (one second, short)
    // asked twice, the faulty one, the empty one asked twice.
    assert.equal(summary.requests, 9);
  } finally {
    src.close();
  }
});

test('a record holding bytes that are no UTF-8 is rejected and reported, never stored with U+FFFD; the rest of its page is copied', async () => {
  const latin1 = events[1]!;
  const src = await listingSource(events, {
    misbehave: (n, res) => {
      if (n !== 1) return false;
      // Page 1 as the source lists it, with a Latin-1 "é" in one record's string.
      const page = JSON.stringify({
        links: [],
        results: events.slice(0, 3).map((e) => (e === latin1 ? { ...e.doc, note: 'caf#' } : e.doc)),
      });
      const bytes = Buffer.from(page);
      const at = bytes.indexOf('caf#') + 3;
      res.writeHead(200, { 'content-type': 'application/json' });
      res.end(Buffer.concat([bytes.subarray(0, at), Buffer.from([0xe9]), bytes.subarray(at + 1)]));
      return true;
    },
  });
  await assertRejectedAlone(
    src,
    latin1,
    'Not valid UTF-8 as the source served it: bytes that are no UTF-8 character',
  );
});

test('a record over the record size limit is rejected and reported, the rest copied; an answer longer than a page of such records ends the mirror, saying why', async () => {
  const big = events[4]!;
  const padded = { ...big.doc, note: 'x'.repeat(2048) };
  // The record's text as this source serves it (JSON.stringify).
  const size = Buffer.byteLength(JSON.stringify(padded)).toLocaleString('en-US');
  const src = await listingSource(events.map((e) => (e === big ? { ...e, doc: padded } : e)));
  await assertRejectedAlone(
    src,
    big,
    `The record is larger than the 2,048-byte limit (${size} bytes or more; raise it with --max-record-bytes or IMPORT_MAX_RECORD_BYTES)`,
    2048,
  );
  // A megabyte of gzip holding a gigabyte: before, decoding it past the
  // longest string killed the mirror from within the response's handler.
  const bomb = zlib.gzipSync(Buffer.alloc(8 << 20, 0x20));
  const bombing = await listingSource(events, {
    encode: (n) => (n === 2 ? { encoding: 'gzip', body: bomb } : undefined),
  });
  try {
    await assert.rejects(
      mirrorIntoFreshStore(openSqliteTestStore, {
        baseUrl: bombing.baseUrl,
        sourceOrg: SOURCE_ORG,
        orgId: ORG,
        created: BASE,
        itemsPerPage: 3,
        maxRecordBytes: 2048,
      }),
      (error) =>
        error instanceof MirrorError &&
        error.code === 'ANSWER_TOO_LARGE' &&
        !error.transient &&
        /answer to \/api\/public\/v1\.0\/orgs\/\w+\/events\?.* is larger than 1,054,720 bytes, more than a page of records within the record size limit can be \(raise the limit with --max-record-bytes or IMPORT_MAX_RECORD_BYTES\)$/.test(
          error.message,
        ),
    );
  } finally {
    bombing.close();
  }
});

test("an event of another organization on the source's list is rejected and reported, never stored as one of the copy's", async () => {
  // Before, it was rehomed into the local org like the source's own events.
  const OTHER_ORG = objectIdAt(Date.UTC(2025, 0, 1), 'feedfacecafe0063');
  const stray = events[2]!;
  const src = await listingSource(
    events.map((e) => (e === stray ? { ...e, doc: { ...e.doc, orgId: OTHER_ORG } } : e)),
  );
  await assertRejectedAlone(
    src,
    stray,
    `orgId "${OTHER_ORG}" is not the source organization ${SOURCE_ORG}`,
  );
});

test('each back-off before a retry is said, with what failed and which retry of how many comes', async () => {
  const waits: { reason: string; ms: number }[] = [];
  const src = await listingSource(events, {
    misbehave: (n, res) => {
      if (n === 2) {
        res.writeHead(503, { 'content-type': 'application/json' });
        res.end(JSON.stringify({ error: 503, errorCode: 'UNEXPECTED_ERROR' }));
        return true;
      }
      if (n === 3) {
        res.socket?.destroy();
        return true;
      }
      if (n === 4) {
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>maintenance</html>');
        return true;
      }
      return false;
    },
  });
  try {
    const { summary } = await mirrorIntoFreshStore(openSqliteTestStore, {
      baseUrl: src.baseUrl,
      sourceOrg: SOURCE_ORG,
      orgId: ORG,
      created: BASE,
      itemsPerPage: 3,
      sleep: () => Promise.resolve(),
      // Back-offs of seconds, as the default's later ones are: waits under a second pass unsaid.
      source: { backoffMs: 2000, onWait: (wait) => waits.push(wait) },
    });
    assert.deepEqual([summary.copied, summary.retries], [9, 3]);
    assert.deepEqual(
      waits.map((w) => w.reason),
      [
        'the source answered 503 UNEXPECTED_ERROR; retry 1 of 8',
        'the request failed (socket hang up); retry 2 of 8',
        "the source's answer is not JSON; retry 1 of 8",
      ],
    );
    // Exponential, the upper half of each ceiling: 1-2 s, then 2-4 s, then 1-2 s again.
    assert.ok(waits[0]!.ms >= 1000 && waits[0]!.ms <= 2000, String(waits[0]!.ms));
    assert.ok(waits[1]!.ms >= 2000 && waits[1]!.ms <= 4000, String(waits[1]!.ms));
    assert.ok(waits[2]!.ms >= 1000 && waits[2]!.ms <= 2000, String(waits[2]!.ms));
  } finally {
    src.close();
  }
});

test('a Retry-After given as an HTTP-date is waited for as its seconds', async () => {
  const slept: number[] = [];
  const src = await listingSource(events, {
    misbehave: (n, res) => {
      if (n !== 2) return false;
      const at = new Date(Date.now() + 120_000).toUTCString();
      res.writeHead(429, { 'retry-after': at, 'content-type': 'application/json' });
      res.end(JSON.stringify({ error: 429, errorCode: 'RATE_LIMITED' }));
      return true;
    },
  });
  try {
    const summary = await mirror(src.baseUrl, (ms) => {
      slept.push(ms);
      return Promise.resolve();
    });
    assert.equal(summary.copied, 9);
    assert.equal(slept.length, 1);
    // Whole seconds of the date (which has no milliseconds), less the time it took to arrive.
    assert.ok(slept[0]! > 100_000 && slept[0]! <= 120_000, String(slept[0]));
  } finally {
    src.close();
  }
});

test('an https:// source that answers in plain HTTP fails at once, saying so', async () => {
  const src = await listingSource(events);
  try {
    // Said at the first attempt: a retried one would end '(after N attempts)'.
    await assert.rejects(
      mirror(src.baseUrl.replace('http://', 'https://')),
      /does not answer in TLS .*: is it http:\/\/ rather than https:\/\/\?$/,
    );
    assert.equal(src.requests(), 0);
  } finally {
    src.close();
  }
});

test('a source that ignores pageNum (page 2 of a second served as page 1 again) fails, naming it, instead of paging forever', async () => {
  // Seven events in one second: a page of 3 is all one second, so the walk
  // asks for page 2 of it, which this source answers with page 1 again.
  const second = BASE + 60_000;
  const oneSecond = Array.from({ length: 7 }, (_, i) => {
    const id = objectIdAt(second, `cdcdcdcd${String(i).padStart(8, '0')}`);
    return {
      id,
      at: second,
      doc: groupCreatedDocument({ at: second, id, orgId: SOURCE_ORG, groupId: SOURCE_ORG }),
    };
  });
  const src = await listingSource(oneSecond, {
    misbehave: (_n, res) => {
      res
        .writeHead(200, { 'content-type': 'application/json' })
        .end(JSON.stringify({ links: [], results: oneSecond.slice(0, 3).map((e) => e.doc) }));
      return true;
    },
  });
  try {
    await assert.rejects(mirror(src.baseUrl), /page 2 .* it does not page by pageNum/);
    assert.ok(src.requests() <= 3, `${src.requests()} requests`);
  } finally {
    src.close();
  }
});

/**
 * One catch-up of a --follow mirror of `sourceEvents` through an outage:
 * requests `from` to `to` (1-based) answer 503, past the retries (2).
 */
async function followThroughOutage(
  sourceEvents: readonly SourceEvent[],
  outage: { from: number; to: number },
  eventsPerWrite: number,
) {
  const src = await listingSource(sourceEvents, {
    misbehave: (n, res) => {
      if (n < outage.from || n > outage.to) return false;
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":503}');
      return true;
    },
  });
  const { store, drop } = await openSqliteTestStore();
  try {
    await store.createOrg({ id: ORG, name: 'Copy', created: BASE });
    const downs: string[] = [];
    const rejected: unknown[] = [];
    let catchUps = 0;
    const summary = await runMirror({
      store,
      orgId: ORG,
      itemsPerPage: 3,
      eventsPerWrite,
      follow: true,
      intervalSeconds: 0,
      pause: () => Promise.resolve(),
      shouldStop: () => catchUps >= 1,
      onCaughtUp: () => catchUps++,
      onSourceDown: ({ reason }) => downs.push(reason),
      onRejected: (record) => rejected.push(record),
      source: {
        baseUrl: src.baseUrl,
        orgId: SOURCE_ORG,
        publicKey: 'p',
        privateKey: 'k',
        maxRetries: 2,
        backoffMs: 1,
      },
    });
    return { summary, downs, rejected, stored: await store.countEvents({ orgId: ORG }) };
  } finally {
    src.close();
    await store.close();
    await drop();
  }
}

test('--follow outlives a source outage: it waits, walks again from what it stored, and the copy is complete', async () => {
  // Requests 3 to 8 fail: past the retries of the first walk, which ends
  // mid-way; the next walk, after the wait, finds the source back.
  const { summary, downs, stored } = await followThroughOutage(events, { from: 3, to: 8 }, 3);
  assert.ok(downs.length >= 1, 'the outage was reported');
  assert.match(downs[0]!, /The source failed 3 times in a row .*503/);
  assert.equal(summary.copied, events.length);
  assert.equal(stored, events.length);
});

test('--follow: an invalid record on a page read again after an outage is counted and reported once', async () => {
  // The first page (request 1) holds an invalid record; requests 2 to 4
  // fail before anything is stored (eventsPerWrite is larger than the
  // source): the next walk reads that page again.
  const withInvalid = events.map((e, i) =>
    i === 1 ? { ...e, doc: { ...e.doc, id: 'not-an-id' } } : e,
  );
  const { summary, downs, rejected } = await followThroughOutage(
    withInvalid,
    { from: 2, to: 4 },
    100,
  );
  assert.equal(downs.length, 1, 'the first walk ended in the outage');
  assert.deepEqual([summary.copied, summary.rejected], [events.length - 1, 1]);
  assert.deepEqual(
    rejected.map((record) => (record as { id: string }).id),
    ['not-an-id'],
  );
});

test('without --follow, a source outage past the retries ends the mirror with the error', async () => {
  const src = await listingSource(events, {
    misbehave: (n, res) => {
      if (n < 3) return false;
      res.writeHead(503, { 'content-type': 'application/json' }).end('{"error":503}');
      return true;
    },
  });
  try {
    await assert.rejects(mirror(src.baseUrl), /The source failed \d+ times in a row .*503/);
  } finally {
    src.close();
  }
});

test('a redirect after pages were served (a sign-in in front of the source) fails without blaming --source, and keeps the events of those pages', async () => {
  const src = await listingSource(events, {
    misbehave: (n, res) => {
      if (n < 3) return false;
      res.writeHead(302, { location: 'https://sso.example.com/login' }).end();
      return true;
    },
  });
  const { store, drop } = await openSqliteTestStore();
  try {
    await store.createOrg({ id: ORG, name: 'Copy', created: BASE });
    await assert.rejects(
      runMirror({
        store,
        orgId: ORG,
        itemsPerPage: 3,
        source: { baseUrl: src.baseUrl, orgId: SOURCE_ORG, publicKey: 'p', privateKey: 'k' },
      }),
      (error: unknown) => {
        assert.match(
          String(error),
          /redirected the request \(302\) to https:\/\/sso\.example\.com\/login: the source served this mirror pages of events before, so --source is right/,
        );
        assert.doesNotMatch(String(error), /is --source the API's base URL/);
        return true;
      },
    );
    // The two pages served: 5 events (each page reads the one before's oldest second again).
    const copied = await store.listEvents({
      orgId: ORG,
      offset: 0,
      limit: 100,
      includeCount: true,
      includeRaw: false,
    });
    assert.deepEqual(
      copied.events.map((e) => e.id),
      events.slice(0, 5).map((e) => e.id),
    );
  } finally {
    src.close();
    await store.close();
    await drop();
  }
});

test('an http:// source that is a TLS port fails after a few attempts, asking whether it is https://', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-tls-only-'));
  const [key, cert] = [path.join(dir, 'key.pem'), path.join(dir, 'cert.pem')];
  const made = spawnSync(
    'openssl',
    [
      ...['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1'],
      ...['-subj', '/CN=localhost', '-keyout', key, '-out', cert],
    ],
    { stdio: 'ignore' },
  );
  assert.equal(made.status, 0, 'openssl made a certificate');
  let connections = 0;
  const tls = https.createServer(
    { key: fs.readFileSync(key), cert: fs.readFileSync(cert) },
    (_req, res) => res.end('{}'),
  );
  tls.on('connection', () => connections++);
  await new Promise<void>((resolve) => tls.listen(0, '127.0.0.1', resolve));
  const { port } = tls.address() as AddressInfo;
  try {
    await assert.rejects(
      mirror(`http://127.0.0.1:${port}/api/public/v1.0`),
      /socket hang up \(after 3 attempts\): it closes plain-HTTP connections unanswered, as a TLS port does: is it https:\/\/ rather than http:\/\/\?$/,
    );
    assert.equal(connections, 3);
  } finally {
    tls.close();
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('--follow still ends on a source that has never served a page (a wrong --source behind a proxy answering 503)', async () => {
  const src = await listingSource(events, {
    misbehave: (_n, res) => {
      res.writeHead(503, { 'content-type': 'text/html' }).end('<html>503</html>');
      return true;
    },
  });
  const { store, drop } = await openSqliteTestStore();
  try {
    await store.createOrg({ id: ORG, name: 'Copy', created: BASE });
    let downs = 0;
    await assert.rejects(
      runMirror({
        store,
        orgId: ORG,
        follow: true,
        intervalSeconds: 0,
        pause: () => Promise.resolve(),
        shouldStop: () => downs >= 3,
        onSourceDown: () => downs++,
        source: {
          baseUrl: src.baseUrl,
          orgId: SOURCE_ORG,
          publicKey: 'p',
          privateKey: 'k',
          maxRetries: 0,
          backoffMs: 1,
        },
      }),
      /The source failed 1 times in a row .*503/,
    );
    assert.equal(downs, 0);
  } finally {
    src.close();
    await store.close();
    await drop();
  }
});

test("a refusal's error code and detail come to the terminal written out, never obeyed", async () => {
  // ESC [2J clears a screen, CR redraws a line, U+202E turns the text after it around.
  const hostile = '\u001b[2Jwiped\r\u202egnp.exe';
  const src = await listingSource(events, {
    misbehave: (_n, res) => {
      res
        .writeHead(403, { 'content-type': 'application/json' })
        .end(JSON.stringify({ errorCode: `NOPE${hostile}`, detail: `refused${hostile}` }));
      return true;
    },
  });
  try {
    await assert.rejects(mirror(src.baseUrl), (error) => {
      assert.ok(error instanceof MirrorError && error.code === 'REJECTED', String(error));
      // eslint-disable-next-line no-control-regex -- the characters that must not come through
      assert.doesNotMatch(error.message, /[\u001b\r\u202e]/);
      assert.match(error.message, /NOPE\\u001b\[2Jwiped\\r\\u202egnp\.exe/);
      assert.match(error.message, /refused\\u001b\[2Jwiped/);
      return true;
    });
  } finally {
    src.close();
  }
});

test('a source asking for a Digest this client cannot answer (qop=auth-int only, another algorithm) fails saying so, not that the key is wrong', async () => {
  // The key was never sent: "check the public and private key" sent the
  // person running the mirror after keys that were right.
  for (const challenge of [
    'Digest realm="r", nonce="n", algorithm=MD5, qop="auth-int"',
    'Digest realm="r", nonce="n", algorithm=SHA-512-256, qop="auth"',
  ]) {
    const src = await listingSource(events, {
      misbehave: (_n, res) => {
        res.writeHead(401, { 'www-authenticate': challenge }).end();
        return true;
      },
    });
    try {
      await assert.rejects(mirror(src.baseUrl), (error) => {
        assert.ok(error instanceof MirrorError && error.code === 'REJECTED', String(error));
        assert.doesNotMatch(error.message, /check the public and private key/);
        assert.ok(error.message.includes(challenge), error.message);
        return true;
      });
    } finally {
      src.close();
    }
  }
});

/**
 * A source asking for Digest (the mirror's key p:k, MD5) and listing no
 * events; a right digest with a nonce `isStale` calls stale gets a fresh
 * nonce with stale=true, as the real service does once a nonce expires
 * (a wrong digest gets stale=false).
 */
async function digestSource(isStale: (authorized: number) => boolean) {
  let requests = 0;
  let authorized = 0;
  const challenge = (stale: boolean) => buildChallenge('MMS Public API', `n${requests}`, stale);
  const server = http.createServer((req, res) => {
    requests++;
    const parsed = parseAuthorization(req.headers.authorization);
    const credentials = parsed.scheme === 'digest' ? parsed.credentials : null;
    if (!credentials) {
      res.writeHead(401, { 'www-authenticate': challenge(false) }).end();
      return;
    }
    const right = verifyDigestResponse(
      credentials,
      'GET',
      computeHa1('MD5', 'p', credentials.realm, 'k'),
    );
    if (!right || isStale(++authorized)) {
      res.writeHead(401, { 'www-authenticate': challenge(right) }).end();
      return;
    }
    res.writeHead(200, { 'content-type': 'application/json' }).end('{"links":[],"results":[]}');
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    baseUrl: `http://127.0.0.1:${port}/api/public/v1.0`,
    requests: () => requests,
    close: () => {
      server.closeAllConnections();
      server.close();
    },
  };
}

test('a source calling its nonces stale (stale=true) a few times in a row is asked again with each fresh one, and the mirror goes on', async () => {
  // The first three authenticated requests are called stale. Before, the
  // second stale answer, after one fresh try, was reported as a wrong key.
  const src = await digestSource((n) => n <= 3);
  try {
    const summary = await mirror(src.baseUrl);
    assert.deepEqual([summary.copied, summary.rejected], [0, 0]);
    // The challenge, the nonce called stale, three fresh ones (the last accepted).
    assert.equal(src.requests(), 5);
  } finally {
    src.close();
  }
});

test('a source calling every fresh nonce stale fails after a few, saying the key is right and the nonces fail at the source', async () => {
  const src = await digestSource(() => true);
  try {
    await assert.rejects(mirror(src.baseUrl), (error) => {
      assert.ok(error instanceof MirrorError && error.code === 'SOURCE_FAILED', String(error));
      assert.doesNotMatch(error.message, /check the public and private key/);
      assert.match(error.message, /stale=true.*: the key is right/);
      return true;
    });
    assert.equal(src.requests(), 5);
  } finally {
    src.close();
  }
});

test("the request budget counts every request sent, a Digest challenge's round trip and a stale nonce's fresh try included, as the requests reported do", async () => {
  // The fourth authenticated request is called stale (a nonce expired).
  const src = await digestSource((n) => n === 4);
  const waits: number[] = [];
  const client = new SourceClient(
    {
      baseUrl: src.baseUrl,
      orgId: SOURCE_ORG,
      publicKey: 'p',
      privateKey: 'k',
      requestsPerMinute: 5,
    },
    // The wait for the budget is where this test ends.
    (ms) => {
      waits.push(ms);
      client.stop();
      return Promise.resolve();
    },
  );
  try {
    // Pages 1-3: the challenge's 401 and one request a page, 4 requests.
    // Page 4: its nonce called stale (the 5th), and the fresh try waits for
    // the next minute. Counted once a page, the budget let all 6 go.
    for (let page = 1; page <= 3; page++) {
      await client.page({ pageNum: 1, itemsPerPage: 3 });
    }
    assert.deepEqual([src.requests(), client.requests, waits.length], [4, 4, 0]);
    await assert.rejects(client.page({ pageNum: 1, itemsPerPage: 3 }), SourceStopped);
    assert.deepEqual([src.requests(), client.requests, waits.length], [5, 5, 1]);
    assert.ok(waits[0]! > 55_000 && waits[0]! <= 60_001, String(waits[0]));
  } finally {
    client.close();
    src.close();
  }
});

test("a source that answers but whose bodies cannot be read (gzip that does not decode, a body cut short, a proxy's HTML page) fails saying what it answered, not that it cannot be reached", async () => {
  // Before, the first two ended "Cannot reach http://…", sending the person
  // running the mirror after the network, and the third named no Content-Type.
  const path = String.raw`/api/public/v1\.0/orgs/\w+/events\?\S+`;
  for (const [name, answer, message] of [
    [
      'gzip that does not decode',
      (res: http.ServerResponse) =>
        res
          .writeHead(200, { 'content-type': 'application/json', 'content-encoding': 'gzip' })
          .end('not gzip'),
      new RegExp(
        `^http://127\\.0\\.0\\.1:\\d+ answered ${path} with 200 \\(Content-Type application/json, Content-Encoding gzip\\), but its body could not be read: the answer's gzip-encoded body does not decode \\(incorrect header check\\) \\(after 9 attempts\\)$`,
      ),
    ],
    [
      'a body cut short',
      (res: http.ServerResponse) => {
        res.writeHead(200, { 'content-type': 'application/json', 'content-length': '1000' });
        res.write('{"links":[],"results":[');
        setTimeout(() => res.destroy(), 10);
      },
      new RegExp(
        `^http://127\\.0\\.0\\.1:\\d+ answered ${path} with 200 \\(Content-Type application/json\\), but its body could not be read: the connection closed mid-response \\(after 9 attempts\\)$`,
      ),
    ],
    [
      "a proxy's HTML page",
      (res: http.ServerResponse) =>
        res.writeHead(200, { 'content-type': 'text/html' }).end('<html>Sign in</html>'),
      new RegExp(
        `^The source's answer to ${path}, 200 \\(Content-Type text/html\\), is not JSON, 9 times in a row$`,
      ),
    ],
  ] as const) {
    // The first page is served: a source that answered pages is retried as failing for now.
    const src = await listingSource(events, {
      misbehave: (n, res) => {
        if (n === 1) return false;
        answer(res);
        return true;
      },
    });
    try {
      await assert.rejects(mirror(src.baseUrl), (error) => {
        assert.ok(error instanceof MirrorError && error.code === 'SOURCE_FAILED', String(error));
        assert.match(error.message, message, name);
        return true;
      });
    } finally {
      src.close();
    }
  }
});
