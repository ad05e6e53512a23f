import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DigestClient } from '@/tests/helpers/digest-client';
import { startTestServer, type TestServer } from '@/tests/helpers/server';
import { eventsPath } from './suites/support';

/**
 * Fetch-based Digest clients (digest-fetch, fetch wrapped by hand) hash the
 * URL as the caller wrote it into `uri`, while fetch sends it percent-encoded
 * (a space, `'` or a non-ASCII letter in the query) and without its
 * fragment. DigestClient does the same: it computes the response over the
 * path it was given and sends that path through fetch. Those requests used to
 * get 401 for ever ("uri mismatch"), whatever the key.
 */
let server: TestServer;

before(async () => {
  server = await startTestServer({ variant: 'hosted', env: { SERVE: 'api' }, eventCount: 200 });
});
after(async () => {
  await server?.stop();
});

type List = { results: { id: string }[]; totalCount: number };

describe('a digest uri written as the caller wrote the URL, sent percent-encoded by fetch', () => {
  test('is accepted, and answers what the encoded URL asks', async () => {
    const s = server;
    const username = 'ada@example.com'; // one of the test events' users
    const cases: [raw: string, encoded: string][] = [
      ['q=ada example&itemsPerPage=3', 'q=ada%20example&itemsPerPage=3'],
      ["username=o'brien@example.com", 'username=o%27brien%40example.com'],
      ['username=José', 'username=Jos%C3%A9'],
      [`username=${username}#results`, `username=${encodeURIComponent(username)}`],
    ];
    for (const [raw, encoded] of cases) {
      const rawClient = new DigestClient(s.baseUrl, s.keys.member);
      const res = await rawClient.request(eventsPath(s, raw));
      assert.equal(res.status, 200, `${raw}: ${res.status} ${res.text}`);
      const expected = await new DigestClient(s.baseUrl, s.keys.member).getJson<List>(
        eventsPath(s, encoded),
      );
      assert.deepEqual(
        res.json<List>().results.map((e) => e.id),
        expected.results.map((e) => e.id),
        raw,
      );
      assert.equal(res.json<List>().totalCount, expected.totalCount, raw);
      if (raw.startsWith('q=') || raw.includes('#')) assert.ok(expected.totalCount > 0, raw);
    }
  });

  test('a uri that reads differently from the request is still refused', async () => {
    const s = server;
    const sent = eventsPath(s, 'username=a%26b=c&itemsPerPage=2');
    for (const uri of [
      eventsPath(s, 'username=a&b=c&itemsPerPage=2'), // %26 is a character, & a separator
      eventsPath(s, 'username=a%26b=c&itemsPerPage=3'),
      eventsPath(s, 'itemsPerPage=2&username=a%26b=c'), // order matters: the self link repeats it
      `/api/public/v1.0/orgs/${s.orgId}%2Fevents?username=a%26b=c&itemsPerPage=2`,
      eventsPath(s, 'username=a%ZZb&itemsPerPage=2'),
    ]) {
      const res = await new DigestClient(s.baseUrl, s.keys.spare[0]!).request(sent, { uri });
      assert.equal(res.status, 401, uri);
      assert.match(res.headers.get('www-authenticate') ?? '', /^Digest /, uri);
    }
  });
});
