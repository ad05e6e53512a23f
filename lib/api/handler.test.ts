import assert from 'node:assert/strict';
import { getLogger } from '@/lib/ops/log';
import { metricsAnswer } from '@/lib/ops/metrics';
import { randomBytes } from 'node:crypto';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { issueApiKey } from '@/lib/auth/api-keys';
import { serverKeys } from '@/lib/auth/keys';
import { sealSession, SESSION_COOKIE } from '@/lib/auth/session';
import { getConfig, setConfigForTesting } from '@/lib/config';
import { encodeEvent } from '@/lib/domain/encode';
import { CHALLENGE_BODY } from '@/lib/domain/errors';
import { objectIdAt } from '@/lib/domain/object-id';
import { openStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import { answerChallenge } from '@/tests/helpers/digest-client';
import { createApiHandler, type ApiHandler } from './handler';
import type { ApiResponse } from './types';

/**
 * The handler in-process over a real SQLite store: the order of checks,
 * the challenge, sessions and failure handling. The HTTP-level behaviour is
 * covered against the running server in tests/api.
 */

const P = '/api/public/v1.0';
const orgId = objectIdAt(Date.UTC(2025, 0, 1), '00000000000000a1');
const otherOrgId = objectIdAt(Date.UTC(2025, 0, 1), '00000000000000b2');
const eventId = objectIdAt(Date.UTC(2026, 0, 2), '0000000000000e01');

let dir: string;
let store: EventStore;
let handle: ApiHandler;
let member: { publicKey: string; privateKey: string; id: string };
let readOnly: { publicKey: string; privateKey: string };
let address = 0;

/** The fields of the JSON bodies these tests look at. */
type ResponseBody = {
  status?: number;
  errorCode?: string;
  openapi?: string;
  id?: string;
  content?: { errorCode?: string };
};

function bodyOf(response: ApiResponse): ResponseBody {
  return JSON.parse(response.body) as ResponseBody;
}

function header(response: ApiResponse, name: string): string | undefined {
  return response.headers.find(([n]) => n.toLowerCase() === name.toLowerCase())?.[1];
}

function request(url: string, headers: Record<string, string> = {}, method = 'GET') {
  const lower = Object.fromEntries(Object.entries(headers).map(([k, v]) => [k.toLowerCase(), v]));
  address += 1;
  return handle({
    method,
    url,
    headers: { get: (name) => lower[name.toLowerCase()] ?? null },
    remoteAddress: `10.1.0.${address}`,
  });
}

/** A full Digest handshake for one request. */
async function digest(
  url: string,
  key: { publicKey: string; privateKey: string },
  extra: Record<string, string> = {},
) {
  const authorization = answerChallenge(
    header(await request(url), 'WWW-Authenticate') ?? null,
    key,
    url,
  );
  return request(url, { authorization, ...extra });
}

before(async () => {
  setConfigForTesting({
    EVENTS_VARIANT: 'hosted',
    DIGEST_REALM: 'MMS Public API',
    PUBLIC_BASE_URL: undefined,
    TRUST_PROXY: false,
    NONCE_TTL_SECONDS: 300,
    ORG_EVENTS_SECRET: undefined,
  });
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-handler-'));
  store = await openStore(`file:${path.join(dir, 'test.db')}`);
  await store.createOrg({ id: orgId, name: 'Acme', created: Date.UTC(2025, 0, 1) });
  await store.createOrg({ id: otherOrgId, name: 'Other', created: Date.UTC(2025, 0, 1) });
  await store.insertEvents(orgId, [
    encodeEvent(orgId, {
      id: eventId,
      created: '2026-01-02T00:00:00Z',
      eventTypeName: 'JOINED_ORG',
      username: 'a@example.com',
      raw: { _t: 'ORG_AUDIT' },
    }),
  ]);
  const realm = getConfig().DIGEST_REALM;
  const m = await issueApiKey(store, { orgId, role: 'ORG_MEMBER', description: 'm', realm });
  member = { publicKey: m.record.publicKey, privateKey: m.privateKey, id: m.record.id };
  const r = await issueApiKey(store, { orgId, role: 'ORG_READ_ONLY', description: 'r', realm });
  readOnly = { publicKey: r.record.publicKey, privateKey: r.privateKey };
  handle = createApiHandler({ store: () => Promise.resolve(store) });
});

after(async () => {
  await store.close();
  fs.rmSync(dir, { recursive: true, force: true });
});

describe('before authentication', () => {
  test('unknown paths are a JSON 404 and other methods a 405, no credentials needed', async () => {
    const missing = await request(`${P}/nothing`);
    assert.equal(missing.status, 404);
    assert.equal(bodyOf(missing).errorCode, 'RESOURCE_NOT_FOUND');
    assert.equal(header(missing, 'X-Error-Code'), 'RESOURCE_NOT_FOUND');
    const post = await request(`${P}/orgs/${orgId}/events`, {}, 'POST');
    assert.equal(post.status, 405);
    assert.equal(header(post, 'Allow'), 'GET, HEAD');
    assert.equal(bodyOf(post).errorCode, 'METHOD_NOT_ALLOWED');
  });

  test('the OpenAPI document needs no credentials', async () => {
    const doc = await request(`${P}/openapi.json`);
    assert.equal(doc.status, 200);
    assert.equal(bodyOf(doc).openapi, '3.0.3');
  });

  test('no credentials: the challenge, exactly', async () => {
    const res = await request(`${P}/orgs/${orgId}/events`);
    assert.equal(res.status, 401);
    assert.equal(header(res, 'Content-Type'), 'application/json;charset=ISO-8859-1');
    assert.match(
      header(res, 'WWW-Authenticate')!,
      /^Digest realm="MMS Public API", domain="", nonce="[A-Za-z0-9_-]{32}", algorithm=MD5, qop="auth", stale=false$/,
    );
    assert.equal(bodyOf(res).errorCode, 'UNEXPECTED_ERROR');
    assert.equal(header(res, 'X-Error-Code'), undefined);
    // As every recorded live 401 (reference §4.2), and as our other answers.
    assert.equal(header(res, 'Vary'), 'Accept-Encoding');
  });

  test('the dashboard gets the 401 without WWW-Authenticate (no browser prompt)', async () => {
    const res = await request(`${P}/orgs`, { 'X-Org-Events-Client': 'dashboard' });
    assert.equal(res.status, 401);
    assert.equal(header(res, 'WWW-Authenticate'), undefined);
    assert.equal(header(res, 'Content-Type'), 'application/json;charset=ISO-8859-1');
  });
});

describe('answers before the query is checked honour envelope and pretty', () => {
  const asked = 'envelope=true&pretty=true';
  /** The body's status and error code, enveloped and indented as asked. */
  function assertEnveloped(res: ApiResponse, status: number, errorCode: string) {
    assert.equal(res.status, status);
    assert.ok(res.body.startsWith(`{\n  "status": ${status},\n  "content": {\n`), res.body);
    const body = JSON.parse(res.body) as { status: number; content: { errorCode: string } };
    assert.equal(body.content.errorCode, errorCode);
  }

  test('unknown path 404 and method 405', async () => {
    assertEnveloped(await request(`${P}/nothing?${asked}`), 404, 'RESOURCE_NOT_FOUND');
    const post = await request(`${P}/orgs/${orgId}/events?${asked}`, {}, 'POST');
    assertEnveloped(post, 405, 'METHOD_NOT_ALLOWED');
    assert.equal(header(post, 'Allow'), 'GET, HEAD');
  });

  test('the challenge: enveloped, its header unchanged; without envelope the real body', async () => {
    const res = await request(`${P}/orgs/${orgId}/events?${asked}`);
    assertEnveloped(res, 401, 'UNEXPECTED_ERROR');
    assert.deepEqual(Object.keys((JSON.parse(res.body) as { content: object }).content), [
      'error',
      'reason',
      'detail',
      'errorCode',
    ]);
    assert.match(header(res, 'WWW-Authenticate')!, /^Digest realm="MMS Public API", /);
    assert.equal(header(res, 'Content-Type'), 'application/json;charset=ISO-8859-1');
    for (const query of ['', '?pretty=true', '?envelope=false', '?envelope=maybe']) {
      const plain = await request(`${P}/orgs/${orgId}/events${query}`);
      assert.equal(plain.body, CHALLENGE_BODY, query);
    }
  });

  test('the throttle 429', async () => {
    const realm = getConfig().DIGEST_REALM;
    const issued = await issueApiKey(store, { orgId, role: 'ORG_MEMBER', description: 't', realm });
    const wrong = { publicKey: issued.record.publicKey, privateKey: 'not-the-key' };
    let res: ApiResponse | undefined;
    for (let i = 0; i < 11 && res?.status !== 429; i++) {
      res = await digest(`${P}/orgs/${orgId}/events?${asked}`, wrong);
    }
    assertEnveloped(res!, 429, 'RATE_LIMITED');
    assert.ok(Number(header(res!, 'Retry-After')) > 0);
  });
});

describe('authorization order after authentication', () => {
  test('malformed org id 400, unknown org 404, no reader role 401 without challenge', async () => {
    const malformed = await digest(`${P}/orgs/not-an-id/events`, member);
    assert.equal(malformed.status, 400);
    assert.equal(bodyOf(malformed).errorCode, 'PATH_PARAM_PARSE_ERROR');

    const unknown = objectIdAt(Date.UTC(2025, 0, 1), 'ffffffffffffffff');
    const missing = await digest(`${P}/orgs/${unknown}/events`, member);
    assert.equal(missing.status, 404);
    assert.equal(bodyOf(missing).errorCode, 'ORG_NOT_FOUND');

    const foreign = await digest(`${P}/orgs/${otherOrgId}/events`, member);
    assert.equal(foreign.status, 401);
    assert.equal(bodyOf(foreign).errorCode, 'USER_UNAUTHORIZED');
    assert.equal(header(foreign, 'WWW-Authenticate'), undefined);

    const weak = await digest(`${P}/orgs/${orgId}/events`, readOnly);
    assert.equal(weak.status, 401);
    assert.equal(bodyOf(weak).errorCode, 'USER_UNAUTHORIZED');
  });

  test('parameters are checked only once the caller may read the org', async () => {
    const foreign = await digest(`${P}/orgs/${otherOrgId}/events?itemsPerPage=0`, member);
    assert.equal(foreign.status, 401);
    const bad = await digest(`${P}/orgs/${orgId}/events?itemsPerPage=0`, member);
    assert.equal(bad.status, 400);
    assert.equal(bodyOf(bad).errorCode, 'INVALID_QUERY_PARAMETER');
  });

  test('errors honour envelope and pretty once those are known', async () => {
    const res = await digest(
      `${P}/orgs/${orgId}/events/${'f'.repeat(24)}?envelope=true&pretty=true`,
      member,
    );
    assert.equal(res.status, 404);
    assert.ok(res.body.includes('\n  "status": 404'));
    assert.equal(bodyOf(res).content?.errorCode, 'RESOURCE_NOT_FOUND');
    // One of the two malformed: its 400 still honours the other.
    const enveloped = await digest(`${P}/orgs/${orgId}/events?envelope=true&pretty=yes`, member);
    assert.equal(enveloped.status, 400);
    assert.deepEqual(
      [bodyOf(enveloped).status, bodyOf(enveloped).content?.errorCode],
      [400, 'INVALID_QUERY_PARAMETER'],
    );
    const pretty = await digest(`${P}/orgs/${orgId}/events?pretty=true&envelope=yes`, member);
    assert.equal(pretty.status, 400);
    assert.ok(pretty.body.startsWith('{\n  "detail"'), pretty.body);
  });
});

describe('the dashboard session is the same principal', () => {
  /** A Cookie header carrying a session sealed with this server's key at `sealedAt`. */
  async function cookieFor(
    publicKey: string,
    apiKeyId: string,
    { ttlSeconds = 600, sealedAt = Date.now() } = {},
  ) {
    const { session } = await serverKeys(store);
    const sealed = sealSession(session, { apiKeyId, publicKey }, ttlSeconds, sealedAt);
    return `theme=dark; ${SESSION_COOKIE}=${sealed}`;
  }

  /** Refused as if no credentials came: the Digest challenge, no data. */
  function assertChallenged(res: ApiResponse, what: string) {
    assert.equal(res.status, 401, what);
    assert.match(header(res, 'WWW-Authenticate') ?? '', /^Digest realm="MMS Public API", /, what);
    assert.equal(bodyOf(res).errorCode, 'UNEXPECTED_ERROR', what);
  }

  test('a valid session cookie reads the events without Digest', async () => {
    const res = await request(`${P}/orgs/${orgId}/events/${eventId}`, {
      cookie: await cookieFor(member.publicKey, member.id),
    });
    assert.equal(res.status, 200);
    assert.equal(bodyOf(res).id, eventId);
  });

  test('forged, expired, mismatched or disabled-key sessions fall back to the challenge', async () => {
    const url = `${P}/orgs/${orgId}/events`;
    const junk = await request(url, {
      cookie: `${SESSION_COOKIE}=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
    });
    assertChallenged(junk, 'junk');

    // Well formed and naming the member, but sealed with a key that is not the server's.
    const forgedSeal = sealSession(
      randomBytes(32),
      { apiKeyId: member.id, publicKey: member.publicKey },
      600,
    );
    assertChallenged(await request(url, { cookie: `${SESSION_COOKIE}=${forgedSeal}` }), 'forged');

    // Sealed with the server's key 20 minutes ago: with a 1-hour TTL it still
    // opens; with a 10-minute TTL it expired 10 minutes ago.
    const sealedAt = Date.now() - 20 * 60_000;
    const fresh = await cookieFor(member.publicKey, member.id, { ttlSeconds: 3600, sealedAt });
    assert.equal((await request(url, { cookie: fresh })).status, 200);
    const expired = await cookieFor(member.publicKey, member.id, { ttlSeconds: 600, sealedAt });
    assertChallenged(await request(url, { cookie: expired }), 'expired');

    const wrongId = await cookieFor(member.publicKey, 'x'.repeat(24));
    assertChallenged(await request(url, { cookie: wrongId }), 'mismatched key id');

    const realm = getConfig().DIGEST_REALM;
    const doomed = await issueApiKey(store, { orgId, role: 'ORG_OWNER', description: 'd', realm });
    const cookie = await cookieFor(doomed.record.publicKey, doomed.record.id);
    assert.equal((await request(url, { cookie })).status, 200);
    await store.setApiKeyDisabled(doomed.record.publicKey, true);
    assertChallenged(await request(url, { cookie }), 'key disabled since sign-in');
  });
});

test("instances sharing the database accept each other's nonces (no shared memory needed)", async () => {
  // A second store on the same file: its own connection and derived keys,
  // the same server secret, as a second server process would have.
  const second = await openStore(`file:${path.join(dir, 'test.db')}`);
  try {
    const other = createApiHandler({ store: () => Promise.resolve(second) });
    const url = `${P}/orgs/${orgId}/events/${eventId}`;
    const authorization = answerChallenge(
      header(await request(url), 'WWW-Authenticate') ?? null,
      member,
      url,
    );
    const res = await other({
      method: 'GET',
      url,
      headers: { get: (name) => (name.toLowerCase() === 'authorization' ? authorization : null) },
      remoteAddress: '10.2.0.1',
    });
    assert.equal(res.status, 200);
    assert.equal(bodyOf(res).id, eventId);
  } finally {
    await second.close();
  }
});

test('a store failure is a logged 500 with the standard body and no internals', async (t) => {
  const lines: { fields: Record<string, unknown>; message: string }[] = [];
  t.mock.method(getLogger(), 'error', (fields: Record<string, unknown>, message: string) => {
    lines.push({ fields, message });
  });
  const broken = await openStore(`file:${path.join(dir, 'broken.db')}`);
  await broken.close(); // a real store whose connection is gone
  const failing = createApiHandler({ store: () => Promise.resolve(broken) });
  const url = `${P}/orgs`;
  // The challenge needs no store (the secret is the file beside the
  // database); the answer's key is looked up in it.
  const challenge = await failing({ method: 'GET', url, headers: { get: () => null } });
  assert.equal(challenge.status, 401);
  const authorization = answerChallenge(
    header(challenge, 'WWW-Authenticate') ?? null,
    { publicKey: 'anykeyxx', privateKey: '00000000-0000-0000-0000-000000000000' },
    url,
  );
  const res = await failing({
    method: 'GET',
    url,
    headers: { get: (name) => (name.toLowerCase() === 'authorization' ? authorization : null) },
  });
  assert.equal(res.status, 500);
  assert.deepEqual(JSON.parse(res.body), {
    detail: 'Unexpected error.',
    error: 500,
    errorCode: 'UNEXPECTED_ERROR',
    parameters: [],
    reason: 'Internal Server Error',
  });
  // One line, the request's own, carrying the cause for the operator only.
  assert.equal(lines.length, 1);
  assert.equal(lines[0]!.message, 'request failed');
  assert.equal(lines[0]!.fields.route, 'listOrgs');
  assert.equal(lines[0]!.fields.status, 500);
  assert.ok(lines[0]!.fields.err instanceof Error);
});

test('self-hosted: invoiceId and paymentId filter nothing, leave the self link, and match no q; hosted: they do', async () => {
  const billingOrg = objectIdAt(Date.UTC(2025, 0, 1), '00000000000000c3');
  await store.createOrg({ id: billingOrg, name: 'Billing', created: Date.UTC(2025, 0, 1) });
  await store.insertEvents(billingOrg, [
    encodeEvent(billingOrg, {
      id: objectIdAt(Date.UTC(2026, 0, 3), '0000000000000e02'),
      created: '2026-01-03T00:00:00Z',
      eventTypeName: 'INVOICE_CLOSED',
      invoiceId: 'inv-1',
      paymentId: 'pay-1',
    }),
    encodeEvent(billingOrg, {
      id: objectIdAt(Date.UTC(2026, 0, 4), '0000000000000e03'),
      created: '2026-01-04T00:00:00Z',
      eventTypeName: 'JOINED_ORG',
      username: 'b@example.com',
    }),
  ]);
  const realm = getConfig().DIGEST_REALM;
  const key = await issueApiKey(store, {
    orgId: billingOrg,
    role: 'ORG_MEMBER',
    description: 'b',
    realm,
  });
  const reader = { publicKey: key.record.publicKey, privateKey: key.privateKey };
  const base = `${P}/orgs/${billingOrg}/events`;
  /** totalCount of the list, facets and histogram, and the export's X-Total-Count. */
  async function counts(query: string) {
    const total = async (url: string) => {
      const res = await digest(url, reader);
      assert.equal(res.status, 200, res.body);
      return (JSON.parse(res.body) as { totalCount: number }).totalCount;
    };
    const exported = await digest(`${base}/export?${query}`, reader, {});
    await exported.stream?.cancel();
    return [
      await total(`${base}?${query}`),
      await total(`${base}/facets?${query}`),
      await total(`${base}/histogram?${query}`),
      Number(header(exported, 'X-Total-Count')),
    ];
  }
  const selfOf = async (query: string) =>
    (
      JSON.parse((await digest(`${base}?${query}`, reader)).body) as {
        links: { href: string; rel: string }[];
      }
    ).links.find((l) => l.rel === 'self')!.href;

  setConfigForTesting({ EVENTS_VARIANT: 'self-hosted' });
  try {
    for (const query of [
      'invoiceId=inv-1',
      'invoiceId=inv-404',
      'paymentId=pay-404',
      'invoiceId=',
    ]) {
      assert.deepEqual(await counts(query), [2, 2, 2, 2], query);
    }
    // Gone before any route reads the query: the self link repeats the rest only.
    assert.match(
      await selfOf('includeRaw=false&invoiceId=inv-404&noSuchName=x'),
      /\/events\?includeRaw=false&noSuchName=x&pageNum=1&itemsPerPage=100$/,
    );
    // Nor does free text reveal their values.
    assert.deepEqual(await counts('q=pay'), [0, 0, 0, 0]);
  } finally {
    setConfigForTesting({ EVENTS_VARIANT: 'hosted' });
  }
  assert.deepEqual(await counts('invoiceId=inv-1'), [1, 1, 1, 1]);
  assert.deepEqual(await counts('paymentId=pay-404'), [0, 0, 0, 0]);
  assert.deepEqual(await counts('q=pay'), [1, 1, 1, 1]);
});

test('a comma escaped as `\\,` is part of the value: collection=orders\\,2024 matches that event only', async () => {
  const commaOrg = objectIdAt(Date.UTC(2025, 0, 1), '00000000000000d4');
  await store.createOrg({ id: commaOrg, name: 'Commas', created: Date.UTC(2025, 0, 1) });
  const event = (n: number, fields: Record<string, string>) =>
    encodeEvent(commaOrg, {
      id: objectIdAt(Date.UTC(2026, 0, 5 + n), `000000000000${n}f0${n}`.slice(-16)),
      created: new Date(Date.UTC(2026, 0, 5 + n)).toISOString(),
      eventTypeName: 'DATA_EXPLORER',
      ...fields,
    });
  await store.insertEvents(commaOrg, [
    event(1, { collection: 'orders,2024' }),
    event(2, { collection: 'orders' }),
    event(3, { collection: '2024' }),
    event(4, { username: 'CN=Alice,OU=Eng,DC=example,DC=com' }),
    event(5, { username: 'DOMAIN\\alice' }),
  ]);
  const key = await issueApiKey(store, {
    orgId: commaOrg,
    role: 'ORG_MEMBER',
    description: 'c',
    realm: getConfig().DIGEST_REALM,
  });
  const reader = { publicKey: key.record.publicKey, privateKey: key.privateKey };
  const base = `${P}/orgs/${commaOrg}/events`;
  async function matched(filter: string) {
    const res = await digest(`${base}?${filter}`, reader);
    assert.equal(res.status, 200, res.body);
    const body = JSON.parse(res.body) as { results: { collection?: string; username?: string }[] };
    return body.results.map((e) => e.collection ?? e.username).sort();
  }
  const e = encodeURIComponent;
  assert.deepEqual(await matched(`collection=${e('orders\\,2024')}`), ['orders,2024']);
  assert.deepEqual(await matched(`collection=${e('orders,2024')}`), ['2024', 'orders']);
  assert.deepEqual(await matched(`collection=${e('orders\\,2024,orders')}`), [
    'orders',
    'orders,2024',
  ]);
  assert.deepEqual(await matched(`actor=${e('CN=Alice\\,OU=Eng\\,DC=example\\,DC=com')}`), [
    'CN=Alice,OU=Eng,DC=example,DC=com',
  ]);
  assert.deepEqual(await matched(`username=${e('DOMAIN\\alice')}`), ['DOMAIN\\alice']);
});

test("a HEAD of the export (the dashboard's count before each export) is counted apart from the exports", async () => {
  const token = 'a-metrics-token-for-this-test';
  setConfigForTesting({ METRICS_TOKEN: token });
  const url = `${P}/orgs/${orgId}/events/export?format=ndjson`;
  const cookie = `${SESSION_COOKIE}=${sealSession((await serverKeys(store)).session, { apiKeyId: member.id, publicKey: member.publicKey }, 600, Date.now())}`;
  const head = await request(url, { cookie }, 'HEAD');
  assert.equal(head.status, 200);
  assert.equal(header(head, 'X-Total-Count'), '1');
  await head.stream?.cancel();
  const get = await request(url, { cookie });
  assert.equal(get.status, 200);
  // Counted when its body ends. Other tests' exports here were refused or cancelled.
  while ((await get.stream!.read()) !== null);

  const exposition = (await metricsAnswer(`Bearer ${token}`)).body;
  const exportRequests = exposition
    .split('\n')
    .filter(
      (line) =>
        line.startsWith('org_events_http_requests_total{') &&
        line.includes('route="exportOrgEvents"') &&
        line.includes('status="200"'),
    );
  assert.deepEqual(exportRequests.sort(), [
    'org_events_http_requests_total{route="exportOrgEvents",method="GET",status="200"} 1',
    'org_events_http_requests_total{route="exportOrgEvents",method="HEAD",status="200"} 1',
  ]);
});

test("the histogram's hours with timeZone=Asia/Kolkata are Kolkata's hours, starting at UTC's :30; without it UTC's", async () => {
  const hours = async (zone: string) => {
    const res = await digest(
      `${P}/orgs/${orgId}/events/histogram?minDate=2026-01-01T22:00:00Z&maxDate=2026-01-02T01:00:00Z&interval=hour${zone}`,
      member,
    );
    assert.equal(res.status, 200);
    return (JSON.parse(res.body) as { buckets: { start: string; count: number }[] }).buckets;
  };
  // The event, at 00:00 UTC, is 05:30 in Kolkata: in its hour from 05:00 (23:30 UTC).
  assert.deepEqual(await hours('&timeZone=Asia/Kolkata'), [
    { start: '2026-01-01T21:30:00Z', count: 0 },
    { start: '2026-01-01T22:30:00Z', count: 0 },
    { start: '2026-01-01T23:30:00Z', count: 1 },
    { start: '2026-01-02T00:30:00Z', count: 0 },
  ]);
  assert.deepEqual(await hours(''), [
    { start: '2026-01-01T22:00:00Z', count: 0 },
    { start: '2026-01-01T23:00:00Z', count: 0 },
    { start: '2026-01-02T00:00:00Z', count: 1 },
    { start: '2026-01-02T01:00:00Z', count: 0 },
  ]);
});

test("a histogram over too many buckets is refused with the exact count, or an estimate said as one where a zone's clock changes make it one", async () => {
  const histogram = (query: string) =>
    digest(`${P}/orgs/${orgId}/events/histogram?interval=hour&${query}`, member);
  const detail = async (query: string) => {
    const res = await histogram(query);
    assert.equal(res.status, 400);
    return (JSON.parse(res.body) as { detail: string }).detail;
  };
  const months = 'minDate=2026-01-01T00:00:00Z&maxDate=2026-06-01T00:00:00Z';
  // UTC: 3,625 hours, counted.
  assert.match(await detail(months), /\(3625 needed\)/);
  // In New York, past twice the limit, the hours are not walked: their count, the time
  // elapsed (its 02:00 of March 8 never comes, which the wall clock's 3,626 counted), is an
  // estimate, said as one.
  assert.match(await detail(`${months}&timeZone=America/New_York`), /\(about 3625 needed\)/);
  // 24 days over the same change: 577 of its hours, walked, exact.
  assert.match(
    await detail(
      'minDate=2026-03-01T00:00:00Z&maxDate=2026-03-25T00:00:00Z&timeZone=America/New_York',
    ),
    /\(577 needed\)/,
  );
});

test("a zone's day the clocks skip is no bucket: 501 dates of Apia without its 2011-12-30 are 500 days, served, not refused", async () => {
  const res = await digest(
    `${P}/orgs/${orgId}/events/histogram?interval=day&timeZone=Pacific/Apia&minDate=2010-08-29T12:00:00Z&maxDate=2012-01-10T12:00:00Z`,
    member,
  );
  assert.equal(res.status, 200, res.body);
  assert.equal((JSON.parse(res.body) as { buckets: unknown[] }).buckets.length, 500);
});
