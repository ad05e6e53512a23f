import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { issueApiKey } from '@/lib/auth/api-keys';
import { deriveKey, loadServerSecret } from '@/lib/auth/secrets';
import { sealSession, SESSION_COOKIE } from '@/lib/auth/session';
import { getConfig, setConfigForTesting } from '@/lib/config';
import { encodeEvent } from '@/lib/domain/event';
import { objectIdAt } from '@/lib/domain/object-id';
import { openStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import { authorizationHeader, parseChallenge } from '@/tests/helpers/digest-client';
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
  const challenge = parseChallenge(header(await request(url), 'WWW-Authenticate') ?? null);
  const authorization = authorizationHeader({
    username: key.publicKey,
    password: key.privateKey,
    realm: challenge.realm,
    nonce: challenge.nonce,
    method: 'GET',
    uri: url,
    nc: 1,
  });
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
    assert.equal(JSON.parse(missing.body).errorCode, 'RESOURCE_NOT_FOUND');
    assert.equal(header(missing, 'X-Error-Code'), 'RESOURCE_NOT_FOUND');
    const post = await request(`${P}/orgs/${orgId}/events`, {}, 'POST');
    assert.equal(post.status, 405);
    assert.equal(header(post, 'Allow'), 'GET, HEAD');
    assert.equal(JSON.parse(post.body).errorCode, 'METHOD_NOT_ALLOWED');
  });

  test('the OpenAPI document needs no credentials', async () => {
    const doc = await request(`${P}/openapi.json`);
    assert.equal(doc.status, 200);
    assert.equal(JSON.parse(doc.body).openapi, '3.0.3');
  });

  test('no credentials: the challenge, exactly', async () => {
    const res = await request(`${P}/orgs/${orgId}/events`);
    assert.equal(res.status, 401);
    assert.equal(header(res, 'Content-Type'), 'application/json;charset=ISO-8859-1');
    assert.match(
      header(res, 'WWW-Authenticate')!,
      /^Digest realm="MMS Public API", domain="", nonce="[A-Za-z0-9_-]{32}", algorithm=MD5, qop="auth", stale=false$/,
    );
    assert.equal(JSON.parse(res.body).errorCode, 'UNEXPECTED_ERROR');
    assert.equal(header(res, 'X-Error-Code'), undefined);
  });

  test('the dashboard gets the 401 without WWW-Authenticate (no browser prompt)', async () => {
    const res = await request(`${P}/orgs`, { 'X-Org-Events-Client': 'dashboard' });
    assert.equal(res.status, 401);
    assert.equal(header(res, 'WWW-Authenticate'), undefined);
    assert.equal(header(res, 'Content-Type'), 'application/json;charset=ISO-8859-1');
  });
});

describe('authorization order after authentication', () => {
  test('malformed org id 400, unknown org 404, no reader role 401 without challenge', async () => {
    const malformed = await digest(`${P}/orgs/not-an-id/events`, member);
    assert.equal(malformed.status, 400);
    assert.equal(JSON.parse(malformed.body).errorCode, 'PATH_PARAM_PARSE_ERROR');

    const unknown = objectIdAt(Date.UTC(2025, 0, 1), 'ffffffffffffffff');
    const missing = await digest(`${P}/orgs/${unknown}/events`, member);
    assert.equal(missing.status, 404);
    assert.equal(JSON.parse(missing.body).errorCode, 'ORG_NOT_FOUND');

    const foreign = await digest(`${P}/orgs/${otherOrgId}/events`, member);
    assert.equal(foreign.status, 401);
    assert.equal(JSON.parse(foreign.body).errorCode, 'USER_UNAUTHORIZED');
    assert.equal(header(foreign, 'WWW-Authenticate'), undefined);

    const weak = await digest(`${P}/orgs/${orgId}/events`, readOnly);
    assert.equal(weak.status, 401);
    assert.equal(JSON.parse(weak.body).errorCode, 'USER_UNAUTHORIZED');
  });

  test('parameters are checked only once the caller may read the org', async () => {
    const foreign = await digest(`${P}/orgs/${otherOrgId}/events?itemsPerPage=0`, member);
    assert.equal(foreign.status, 401);
    const bad = await digest(`${P}/orgs/${orgId}/events?itemsPerPage=0`, member);
    assert.equal(bad.status, 400);
    assert.equal(JSON.parse(bad.body).errorCode, 'INVALID_QUERY_PARAMETER');
  });

  test('errors honour envelope and pretty once those are known', async () => {
    const res = await digest(
      `${P}/orgs/${orgId}/events/${'f'.repeat(24)}?envelope=true&pretty=true`,
      member,
    );
    assert.equal(res.status, 404);
    assert.ok(res.body.includes('\n  "status": 404'));
    assert.equal(JSON.parse(res.body).content.errorCode, 'RESOURCE_NOT_FOUND');
  });
});

describe('the dashboard session is the same principal', () => {
  async function cookieFor(publicKey: string, apiKeyId: string, ttl = 600) {
    const key = deriveKey(await loadServerSecret(store), 'session');
    return `theme=dark; ${SESSION_COOKIE}=${sealSession(key, { apiKeyId, publicKey }, ttl)}`;
  }

  test('a valid session cookie reads the events without Digest', async () => {
    const res = await request(`${P}/orgs/${orgId}/events/${eventId}`, {
      cookie: await cookieFor(member.publicKey, member.id),
    });
    assert.equal(res.status, 200);
    assert.equal(JSON.parse(res.body).id, eventId);
  });

  test('forged, expired, mismatched or disabled-key sessions fall back to the challenge', async () => {
    const url = `${P}/orgs/${orgId}/events`;
    const forged = await request(url, {
      cookie: `${SESSION_COOKIE}=AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA`,
    });
    assert.equal(forged.status, 401);
    const wrongId = await request(url, {
      cookie: await cookieFor(member.publicKey, 'x'.repeat(24)),
    });
    assert.equal(wrongId.status, 401);

    const realm = getConfig().DIGEST_REALM;
    const doomed = await issueApiKey(store, { orgId, role: 'ORG_OWNER', description: 'd', realm });
    const cookie = await cookieFor(doomed.record.publicKey, doomed.record.id);
    assert.equal((await request(url, { cookie })).status, 200);
    await store.setApiKeyDisabled(doomed.record.publicKey, true);
    assert.equal((await request(url, { cookie })).status, 401);
  });
});

test("instances sharing the database accept each other's nonces (no shared memory needed)", async () => {
  // A second store on the same file: its own connection and derived keys,
  // the same server secret, as a second server process would have.
  const second = await openStore(`file:${path.join(dir, 'test.db')}`);
  try {
    const other = createApiHandler({ store: () => Promise.resolve(second) });
    const url = `${P}/orgs/${orgId}/events/${eventId}`;
    const challenge = parseChallenge(header(await request(url), 'WWW-Authenticate') ?? null);
    const authorization = authorizationHeader({
      username: member.publicKey,
      password: member.privateKey,
      realm: challenge.realm,
      nonce: challenge.nonce,
      method: 'GET',
      uri: url,
      nc: 1,
    });
    const res = await other({
      method: 'GET',
      url,
      headers: { get: (name) => (name.toLowerCase() === 'authorization' ? authorization : null) },
      remoteAddress: '10.2.0.1',
    });
    assert.equal(res.status, 200);
    assert.equal(JSON.parse(res.body).id, eventId);
  } finally {
    await second.close();
  }
});

test('a store failure is a logged 500 with the standard body and no internals', async (t) => {
  const lines: string[] = [];
  t.mock.method(console, 'error', (line: string) => lines.push(line));
  const broken = await openStore(`file:${path.join(dir, 'broken.db')}`);
  await broken.close(); // a real store whose connection is gone
  const failing = createApiHandler({ store: () => Promise.resolve(broken) });
  const res = await failing({
    method: 'GET',
    url: `${P}/orgs`,
    headers: { get: () => null },
  });
  assert.equal(res.status, 500);
  assert.deepEqual(JSON.parse(res.body), {
    detail: 'Unexpected error.',
    error: 500,
    errorCode: 'UNEXPECTED_ERROR',
    parameters: [],
    reason: 'Internal Server Error',
  });
  assert.equal(lines.length, 1);
  assert.match(lines[0]!, /^\[org-events api\] GET \/api\/public\/v1.0\/orgs failed: /);
});
