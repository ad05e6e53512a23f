import assert from 'node:assert/strict';
import { setTimeout as sleep } from 'node:timers/promises';
import { describe, test } from 'node:test';
import { authorizationHeader, parseChallenge, send } from '@/tests/helpers/digest-client';
import type { TestKey } from '@/tests/helpers/server';
import { assertDocumented } from './openapi';
import { eventsPath, linkOf, type ListBody, type ServerRef } from './support';

/**
 * Needs a server with NONCE_TTL_SECONDS=5 and TRUST_PROXY=true: nonces
 * expire quickly, and X-Forwarded-For gives each test its own client
 * address, so throttling one address does not block the other tests.
 */
export function timingSuites(server: ServerRef) {
  let nextAddress = 0;
  const freshAddress = () => `198.51.100.${++nextAddress}`;

  async function attempt(
    key: TestKey,
    address: string,
    options: { password?: string; nonce?: string } = {},
  ) {
    const s = server();
    const pathname = eventsPath(s, 'itemsPerPage=1');
    const headers = { 'x-forwarded-for': `203.0.113.250, ${address}` };
    const nonce =
      options.nonce ??
      parseChallenge(
        (await send(`${s.baseUrl}${pathname}`, { headers })).headers.get('www-authenticate'),
      ).nonce;
    const authorization = authorizationHeader({
      username: key.publicKey,
      password: options.password ?? key.privateKey,
      realm: s.realm,
      nonce,
      method: 'GET',
      uri: pathname,
      nc: 1,
    });
    return send(`${s.baseUrl}${pathname}`, { headers: { ...headers, authorization } });
  }

  describe('stale nonces', () => {
    test('a correct response to an expired nonce gets a new challenge with stale=true', async () => {
      const s = server();
      const pathname = eventsPath(s, 'itemsPerPage=1');
      const old = parseChallenge(
        (await send(`${s.baseUrl}${pathname}`)).headers.get('www-authenticate'),
      ).nonce;
      await sleep(6500); // NONCE_TTL_SECONDS=5 on this server
      const address = freshAddress();
      const stale = await attempt(s.keys.member, address, { nonce: old });
      assert.equal(stale.status, 401);
      const challenge = parseChallenge(stale.headers.get('www-authenticate'));
      assert.equal(challenge.stale, 'true');
      assert.notEqual(challenge.nonce, old);
      // A wrong response to the same old nonce is no proof of the key: stale=false.
      const wrong = await attempt(s.keys.member, address, { nonce: old, password: 'wrong' });
      assert.equal(parseChallenge(wrong.headers.get('www-authenticate')).stale, 'false');
      // The client answers the new nonce without asking anyone for the password.
      assert.equal((await attempt(s.keys.member, address, { nonce: challenge.nonce })).status, 200);
    });
  });

  describe('throttling failed attempts', () => {
    test('10 wrong private keys for one key block it everywhere, with Retry-After', async () => {
      const s = server();
      const victim = s.keys.spare[0]!;
      for (let i = 0; i < 10; i++) {
        const res = await attempt(victim, freshAddress(), { password: `guess-${i}` });
        assert.equal(res.status, 401, `guess ${i}`);
      }
      // Now even the right key, from an address that never failed, is refused: no oracle.
      const blocked = await attempt(victim, freshAddress());
      assert.equal(blocked.status, 429);
      assert.equal(blocked.json<{ errorCode: string }>().errorCode, 'RATE_LIMITED');
      assert.ok(Number(blocked.headers.get('retry-after')) > 0);
      await assertDocumented(s.baseUrl, 'GET', eventsPath(s), blocked);
      // Other keys are unaffected.
      assert.equal((await attempt(s.keys.spare[1]!, freshAddress())).status, 200);
    });

    test('30 failures from one address block it for every key; other addresses are unaffected', async () => {
      const s = server();
      const address = freshAddress();
      for (let i = 0; i < 30; i++) {
        const res = await attempt(
          { ...s.keys.spare[2]!, publicKey: `nokey${i.toString().padStart(3, '0')}` },
          address,
        );
        assert.equal(res.status, 401);
      }
      assert.equal((await attempt(s.keys.member, address)).status, 429);
      assert.equal((await attempt(s.keys.member, freshAddress())).status, 200);
    });

    test('a request without credentials is the first leg of the handshake, not a failure', async () => {
      const s = server();
      const address = freshAddress();
      for (let i = 0; i < 40; i++) {
        const res = await send(`${s.baseUrl}${eventsPath(s)}`, {
          headers: { 'x-forwarded-for': address },
        });
        assert.equal(res.status, 401);
      }
      assert.equal((await attempt(s.keys.member, address)).status, 200);
    });
  });

  describe('behind a trusted proxy', () => {
    test('links use X-Forwarded-Proto and X-Forwarded-Host with TRUST_PROXY=true', async () => {
      const s = server();
      const pathname = eventsPath(s, 'itemsPerPage=1');
      const headers = { 'x-forwarded-proto': 'https', 'x-forwarded-host': 'events.example.com' };
      const nonce = parseChallenge(
        (await send(`${s.baseUrl}${pathname}`)).headers.get('www-authenticate'),
      ).nonce;
      const authorization = authorizationHeader({
        username: s.keys.member.publicKey,
        password: s.keys.member.privateKey,
        realm: s.realm,
        nonce,
        method: 'GET',
        uri: pathname,
        nc: 1,
      });
      const res = await send(`${s.baseUrl}${pathname}`, { headers: { ...headers, authorization } });
      const body = res.json<ListBody>();
      assert.equal(
        linkOf(body, 'self'),
        `https://events.example.com/api/public/v1.0/orgs/${s.orgId}/events?pageNum=1&itemsPerPage=1`,
      );
      assert.match(
        (body.results[0]!.links as { href: string }[])[0]!.href,
        /^https:\/\/events\.example\.com\//,
      );
    });
  });
}
