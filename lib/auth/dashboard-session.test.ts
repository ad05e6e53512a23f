import assert from 'node:assert/strict';
import { after, before, describe, it } from 'node:test';
import { getConfig } from '@/lib/config';
import { openStore } from '@/lib/store';
import type { EventStore } from '@/lib/store/types';
import { issueApiKey } from './api-keys';
import {
  isSameOriginRequest,
  isSecureRequest,
  readDashboardSession,
  safeNextPath,
  signIn,
} from './dashboard-session';
import { SESSION_COOKIE } from './session';

const ORG = '5f0000000000000000000001';
const headers = (values: Record<string, string>) => new Headers(values);

function cookieValue(setCookie: string): string {
  const first = setCookie.split(';')[0]!;
  assert.ok(first.startsWith(`${SESSION_COOKIE}=`));
  return first.slice(SESSION_COOKIE.length + 1);
}

describe('lib/auth/dashboard-session', () => {
  let store: EventStore;
  const realm = getConfig().DIGEST_REALM;

  before(async () => {
    store = await openStore(':memory:');
    await store.createOrg({ id: ORG, name: 'Org', created: Date.now() });
  });
  after(() => store.close());

  it('exchanges a correct key for a sealed, HttpOnly, SameSite=Strict cookie without the private key', async () => {
    const { record, privateKey } = await issueApiKey(store, {
      orgId: ORG,
      role: 'ORG_MEMBER',
      description: 'ui',
      realm,
    });
    const outcome = await signIn(store, {
      publicKey: record.publicKey,
      privateKey,
      remoteAddress: '127.0.0.1',
      secure: false,
    });
    assert.ok(outcome.ok);
    assert.match(outcome.cookie, /; HttpOnly; SameSite=Strict$/);
    assert.match(outcome.cookie, /Max-Age=\d+/);
    assert.ok(!outcome.cookie.includes(privateKey));
    const principal = await readDashboardSession(store, cookieValue(outcome.cookie));
    assert.deepEqual(principal, {
      apiKeyId: record.id,
      publicKey: record.publicKey,
      via: 'session',
    });

    const secure = await signIn(store, {
      publicKey: record.publicKey,
      privateKey,
      remoteAddress: '127.0.0.1',
      secure: true,
    });
    assert.ok(secure.ok && secure.cookie.endsWith('; Secure'));
  });

  it('refuses a wrong or missing key with a clear message, and a disabled key alike', async () => {
    const { record, privateKey } = await issueApiKey(store, {
      orgId: ORG,
      role: 'ORG_MEMBER',
      description: 'ui',
      realm,
    });
    const wrong = await signIn(store, {
      publicKey: record.publicKey,
      privateKey: `${privateKey}x`,
      remoteAddress: '10.0.0.1',
      secure: false,
    });
    assert.deepEqual(wrong.ok ? null : [wrong.error.status, wrong.error.code], [
      401,
      'INVALID_CREDENTIALS',
    ]);
    const empty = await signIn(store, {
      publicKey: '',
      privateKey: 7,
      remoteAddress: undefined,
      secure: false,
    });
    assert.deepEqual(empty.ok ? null : [empty.error.status, empty.error.code], [
      400,
      'MISSING_CREDENTIALS',
    ]);

    const before = await signIn(store, {
      publicKey: record.publicKey,
      privateKey,
      remoteAddress: '10.0.0.1',
      secure: false,
    });
    assert.ok(before.ok);
    await store.setApiKeyDisabled(record.publicKey, true);
    const disabled = await signIn(store, {
      publicKey: record.publicKey,
      privateKey,
      remoteAddress: '10.0.0.1',
      secure: false,
    });
    assert.equal(disabled.ok, false);
    // A session issued before the key was disabled stops working too.
    assert.equal(await readDashboardSession(store, cookieValue(before.cookie)), null);
  });

  it('throttles repeated failures like Digest, even for the right key afterwards', async () => {
    const { record, privateKey } = await issueApiKey(store, {
      orgId: ORG,
      role: 'ORG_MEMBER',
      description: 'ui',
      realm,
    });
    const now = Date.now();
    let last;
    for (let attempt = 0; attempt < 10; attempt++) {
      last = await signIn(
        store,
        {
          publicKey: record.publicKey,
          privateKey: 'guess',
          remoteAddress: `10.1.0.${attempt}`,
          secure: false,
        },
        now,
      );
    }
    assert.equal(last?.ok, false);
    const blocked = await signIn(
      store,
      { publicKey: record.publicKey, privateKey, remoteAddress: '10.2.0.1', secure: false },
      now + 1000,
    );
    assert.ok(!blocked.ok);
    assert.equal(blocked.error.status, 429);
    assert.equal(blocked.error.code, 'RATE_LIMITED');
    const retryAfter = blocked.error.headers.find(([name]) => name === 'Retry-After')?.[1];
    assert.ok(Number(retryAfter) > 0);
  });

  it('ignores forged, tampered and absent cookies', async () => {
    assert.equal(await readDashboardSession(store, undefined), null);
    assert.equal(await readDashboardSession(store, 'not-a-session'), null);
  });

  it('accepts same-origin posts and refuses cross-site ones', () => {
    const url = 'http://localhost:3000/api/session';
    assert.equal(
      isSameOriginRequest(
        url,
        headers({ host: 'localhost:3000', origin: 'http://localhost:3000' }),
        false,
      ),
      true,
    );
    assert.equal(
      isSameOriginRequest(
        url,
        headers({ host: 'localhost:3000', origin: 'https://evil.example' }),
        false,
      ),
      false,
    );
    assert.equal(
      isSameOriginRequest(url, headers({ host: 'localhost:3000', origin: 'null' }), false),
      false,
    );
    assert.equal(
      isSameOriginRequest(
        url,
        headers({ host: 'localhost:3000', 'sec-fetch-site': 'cross-site' }),
        false,
      ),
      false,
    );
    assert.equal(isSameOriginRequest(url, headers({ host: 'localhost:3000' }), false), true);
    const proxied = headers({
      host: 'internal:3000',
      origin: 'https://events.example',
      'x-forwarded-host': 'events.example',
    });
    assert.equal(isSameOriginRequest(url, proxied, true), true);
    assert.equal(isSameOriginRequest(url, proxied, false), false);
  });

  it('marks cookies Secure over HTTPS or behind a trusted HTTPS proxy only', () => {
    assert.equal(isSecureRequest('https://x/api/session', headers({}), false), true);
    const forwarded = headers({ 'x-forwarded-proto': 'https' });
    assert.equal(isSecureRequest('http://x/api/session', forwarded, true), true);
    assert.equal(isSecureRequest('http://x/api/session', forwarded, false), false);
  });

  it('only ever redirects to a path on this site', () => {
    assert.equal(safeNextPath('/orgs/x/events?types=A'), '/orgs/x/events?types=A');
    assert.equal(safeNextPath('//evil.example'), '/');
    assert.equal(safeNextPath('https://evil.example'), '/');
    assert.equal(safeNextPath('/\\evil.example'), '/');
    assert.equal(safeNextPath(undefined), '/');
  });
});
