import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { describe, test } from 'node:test';
import {
  answerChallenge,
  authorizationHeader,
  DigestClient,
  parseChallenge,
  send,
  type AuthorizationOptions,
} from '@/tests/helpers/digest-client';
import { ROOT, type TestKey } from '@/tests/helpers/server';
import {
  assertContentLength,
  assertError,
  client,
  eventPath,
  eventsPath,
  type ServerRef,
} from './support';

const CHALLENGE_BODY =
  '{\n  "error" : 401,\n  "reason" : "Unauthorized",\n  "detail" : "You are not authorized for this resource.",\n  "errorCode" : "UNEXPECTED_ERROR"\n}';

/** Digest details with the hand-rolled client: challenge, quoting, counts, uris, refusals. */
export function authSuites(server: ServerRef) {
  /** One fresh challenge, then one request with a header built from `options`. */
  async function once(
    pathname: string,
    key: TestKey,
    options: Partial<AuthorizationOptions> = {},
    headers: Record<string, string> = {},
  ) {
    const s = server();
    const authorization = answerChallenge(
      (await send(`${s.baseUrl}${pathname}`)).headers.get('www-authenticate'),
      key,
      pathname,
      options,
    );
    return send(`${s.baseUrl}${pathname}`, {
      method: options.method ?? 'GET',
      headers: { authorization, ...headers },
    });
  }

  const assertChallenge = (res: Awaited<ReturnType<typeof send>>, stale = false) => {
    assert.equal(res.status, 401, res.text);
    const header = res.headers.get('www-authenticate') ?? '';
    assert.match(
      header,
      new RegExp(
        `^Digest realm="MMS Public API", domain="", nonce="[A-Za-z0-9_-]{32}", algorithm=MD5, qop="auth", stale=${stale}$`,
      ),
    );
    assert.equal(res.text, CHALLENGE_BODY);
  };

  describe('the 401 challenge', () => {
    test('exactly as the real service sends it', async () => {
      const s = server();
      const res = await send(`${s.baseUrl}${eventsPath(s)}`, {
        headers: { accept: 'application/json' },
      });
      assertChallenge(res);
      assert.equal(res.headers.get('content-type'), 'application/json;charset=ISO-8859-1');
      assertContentLength(s, res, 142);
      assert.equal(Buffer.byteLength(res.text), 142);
      assert.ok(res.headers.get('date'));
      assert.equal(res.headers.get('x-error-code'), null);
      assert.equal(res.headers.get('x-mongodb-service-version'), null);
      const again = await send(`${s.baseUrl}${eventsPath(s)}`);
      assert.notEqual(
        parseChallenge(again.headers.get('www-authenticate')).nonce,
        parseChallenge(res.headers.get('www-authenticate')).nonce,
      );
    });

    test('the dashboard gets the same 401 without WWW-Authenticate', async () => {
      const s = server();
      const res = await send(`${s.baseUrl}${eventsPath(s)}`, {
        headers: { 'x-org-events-client': 'dashboard' },
      });
      assert.equal(res.status, 401);
      assert.equal(res.headers.get('www-authenticate'), null);
      assert.equal(res.text, CHALLENGE_BODY);
    });

    test('Basic authentication is refused with the challenge', async () => {
      const s = server();
      const { publicKey, privateKey } = s.keys.member;
      const basic = Buffer.from(`${publicKey}:${privateKey}`).toString('base64');
      assertChallenge(
        await send(`${s.baseUrl}${eventsPath(s)}`, {
          headers: { authorization: `Basic ${basic}` },
        }),
      );
    });
  });

  describe('what real clients send is accepted', () => {
    test('qop and algorithm quoted or not, algorithm omitted, SHA-256 and -sess variants', async () => {
      const s = server();
      const key = s.keys.member;
      const variants: Partial<AuthorizationOptions>[] = [
        {},
        { quoteQop: true },
        { quoteAlgorithm: true },
        { quoteQop: true, quoteAlgorithm: true },
        { omitAlgorithm: true },
        { algorithm: 'SHA-256' },
        { algorithm: 'MD5-sess' },
        { algorithm: 'SHA-256-sess', quoteAlgorithm: true },
      ];
      for (const options of variants) {
        const res = await once(eventPath(s, s.events.org[0]!.id), key, options);
        assert.equal(res.status, 200, JSON.stringify(options));
      }
    });

    test('a new nonce may start at any nc; then nc must grow, and a reused pair is refused', async () => {
      const s = server();
      const digest = new DigestClient(s.baseUrl, s.keys.member);
      const pathname = eventsPath(s, 'itemsPerPage=1');
      await digest.challenge(pathname);
      const at = (nc: number) => {
        digest.nc = nc - 1;
        return digest.request(pathname);
      };
      const headerAt = (nc: number) =>
        authorizationHeader({
          username: s.keys.member.publicKey,
          password: s.keys.member.privateKey,
          realm: digest.realm!,
          nonce: digest.nonce!,
          method: 'GET',
          uri: pathname,
          nc,
        });
      assert.equal((await at(0x1000)).status, 200, 'first use at nc=00001000');
      const replayed = headerAt(0x1000);
      const again = await send(`${s.baseUrl}${pathname}`, { headers: { authorization: replayed } });
      assertChallenge(again, true);
      const lower = await send(`${s.baseUrl}${pathname}`, {
        headers: { authorization: headerAt(0x0fff) },
      });
      assertChallenge(lower, true);
      assert.equal(
        (await send(`${s.baseUrl}${pathname}`, { headers: { authorization: headerAt(0x1001) } }))
          .status,
        200,
      );
    });

    test('a captured request replayed verbatim is refused', async () => {
      const s = server();
      const pathname = eventsPath(s, 'itemsPerPage=3');
      const authorization = answerChallenge(
        (await send(`${s.baseUrl}${pathname}`)).headers.get('www-authenticate'),
        s.keys.member,
        pathname,
        { cnonce: 'fixedcnonce' },
      );
      const first = await send(`${s.baseUrl}${pathname}`, { headers: { authorization } });
      assert.equal(first.status, 200);
      const replay = await send(`${s.baseUrl}${pathname}`, { headers: { authorization } });
      assertChallenge(replay, true);
    });

    test('the absolute-URI form of the uri is accepted', async () => {
      const s = server();
      const pathname = eventsPath(s, 'itemsPerPage=2');
      const res = await once(pathname, s.keys.member, { uri: `${s.baseUrl}${pathname}` });
      assert.equal(res.status, 200);
    });

    test('HEAD is answered like GET, without a body', async () => {
      const s = server();
      const pathname = eventsPath(s, 'itemsPerPage=2');
      const get = await once(pathname, s.keys.member);
      const head = await once(pathname, s.keys.member, { method: 'HEAD' });
      assert.equal(head.status, 200);
      assert.equal(head.text, '');
      assert.equal(head.headers.get('content-length'), get.headers.get('content-length'));
    });
  });

  describe('what is refused with a challenge', () => {
    test('a wrong private key, an unknown public key, a disabled key', async () => {
      const s = server();
      const pathname = eventsPath(s);
      assertChallenge(await once(pathname, { ...s.keys.spare[1]!, privateKey: 'wrong' }));
      assertChallenge(await once(pathname, { ...s.keys.spare[1]!, publicKey: 'nosuchky' }));
      assertChallenge(await once(pathname, s.keys.disabled));
    });

    test('a digest uri that is not the request (other path, other query, response over another uri)', async () => {
      const s = server();
      const pathname = eventsPath(s, 'itemsPerPage=2');
      assertChallenge(
        await once(pathname, s.keys.member, { uri: eventsPath(s, 'itemsPerPage=3') }),
      );
      assertChallenge(
        await once(pathname, s.keys.member, { uri: eventPath(s, s.events.org[0]!.id) }),
      );
      assertChallenge(await once(pathname, s.keys.member, { responseUri: eventsPath(s) }));
    });

    test('a wrong realm, a forged nonce, and the legacy form without qop', async () => {
      const s = server();
      const pathname = eventsPath(s);
      assertChallenge(await once(pathname, s.keys.member, { realm: 'Other Realm' }));
      assertChallenge(await once(pathname, s.keys.member, { nonce: 'A'.repeat(32) }));
      assertChallenge(await once(pathname, s.keys.member, { legacyNoQop: true }));
    });
  });

  describe('authorization and isolation', () => {
    test('a key without a reader role gets USER_UNAUTHORIZED, no challenge, no data', async () => {
      const s = server();
      const res = await client(s, s.keys.readOnly).request(eventsPath(s));
      const body = assertError(res, 401, 'USER_UNAUTHORIZED');
      assert.equal(body.detail, 'Current user is not authorized to perform this action.');
      const one = await client(s, s.keys.readOnly).request(eventPath(s, s.events.org[0]!.id));
      assertError(one, 401, 'USER_UNAUTHORIZED');
      assert.ok(!one.text.includes(s.events.org[0]!.id));
    });

    test("another org's data never leaks", async () => {
      const s = server();
      const member = client(s);
      // The member key only holds ORG_READ_ONLY in the other org.
      assertError(await member.request(eventsPath(s, '', s.otherOrgId)), 401, 'USER_UNAUTHORIZED');
      // An id of the other org's event, asked for through our own org, does not exist here.
      const foreign = s.events.otherOrg[0]!.id;
      assertError(await member.request(eventPath(s, foreign)), 404, 'RESOURCE_NOT_FOUND');
      // The other org's key sees its own events and nothing of ours.
      const other = client(s, s.keys.otherOrg);
      const theirs = await other.getJson<{
        results: { id: string; orgId: string }[];
        totalCount: number;
      }>(eventsPath(s, 'itemsPerPage=500', s.otherOrgId));
      assert.equal(theirs.totalCount, s.events.otherOrg.length);
      assert.ok(theirs.results.every((e) => e.orgId === s.otherOrgId));
      const ours = new Set(s.events.org.map((e) => e.id));
      assert.ok(theirs.results.every((e) => !ours.has(e.id)));
      assertError(await other.request(eventsPath(s)), 401, 'USER_UNAUTHORIZED');
      assertError(await other.request(eventPath(s, s.events.org[0]!.id)), 401, 'USER_UNAUTHORIZED');
    });
  });

  test('the version header carries the git hash captured at build', async () => {
    const s = server();
    const info = JSON.parse(fs.readFileSync(path.join(ROOT, 'lib', 'build-info.json'), 'utf8')) as {
      gitHash: string;
      version: string;
    };
    const res = await client(s).request(eventsPath(s, 'itemsPerPage=1'));
    assert.equal(
      res.headers.get('x-mongodb-service-version'),
      `gitHash=${info.gitHash}; versionString=${info.version}`,
    );
    assert.match(info.gitHash, /^([0-9a-f]{40}|unknown)$/);
  });
}
