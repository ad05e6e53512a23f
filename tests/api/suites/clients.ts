import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { chromium, type Browser } from '@playwright/test';
import { request } from 'urllib';
import { CHROMIUM_LAUNCH_OPTIONS } from '../../helpers/chromium';
import { eventPath, eventsPath, run, type ListBody, type ServerRef } from './support';

/**
 * Real Digest clients nobody here wrote: curl, Node's urllib, Python
 * requests and Chromium's own Digest implementation. Each lists and gets,
 * and is refused with a wrong private key (a spare key's, so the member
 * key's failure budget is not spent).
 */
export function clientSuites(server: ServerRef) {
  const urls = () => {
    const s = server();
    const event = s.events.org[3]!;
    return {
      list: `${s.baseUrl}${eventsPath(s, 'itemsPerPage=5&eventType=DATA_EXPLORER,OUTSIDE_METRIC_THRESHOLD')}`,
      get: `${s.baseUrl}${eventPath(s, event.id)}`,
      eventId: event.id,
      expectedTotal: s.events.org.filter((e) =>
        ['DATA_EXPLORER', 'OUTSIDE_METRIC_THRESHOLD'].includes(e.eventTypeName),
      ).length,
    };
  };

  describe('curl --digest', () => {
    const curl = async (url: string, user: string) => {
      const out = await run('curl', [
        '--digest',
        '-u',
        user,
        '-s',
        '-H',
        'Accept: application/json',
        '-w',
        '\n%{http_code}',
        url,
      ]);
      const cut = out.lastIndexOf('\n');
      return { status: Number(out.slice(cut + 1)), body: out.slice(0, cut) };
    };

    test('lists and gets', async () => {
      const { member } = server().keys;
      const u = urls();
      const listed = await curl(u.list, `${member.publicKey}:${member.privateKey}`);
      assert.equal(listed.status, 200);
      const body = JSON.parse(listed.body) as ListBody;
      assert.equal(body.results.length, 5);
      assert.equal(body.totalCount, u.expectedTotal);
      const got = await curl(u.get, `${member.publicKey}:${member.privateKey}`);
      assert.equal(got.status, 200);
      assert.equal((JSON.parse(got.body) as { id: string }).id, u.eventId);
    });

    test('a wrong key gets 401', async () => {
      const spare = server().keys.spare[0]!;
      const refused = await curl(urls().list, `${spare.publicKey}:not-the-key`);
      assert.equal(refused.status, 401);
      assert.equal((JSON.parse(refused.body) as { error: number }).error, 401);
    });
  });

  describe('urllib (Node Digest client)', () => {
    test('lists and gets', async () => {
      const { member } = server().keys;
      const u = urls();
      const digestAuth = `${member.publicKey}:${member.privateKey}`;
      const listed = await request<ListBody>(u.list, { digestAuth, dataType: 'json' });
      assert.equal(listed.status, 200);
      assert.equal(listed.data.results.length, 5);
      assert.equal(listed.data.totalCount, u.expectedTotal);
      const got = await request<{ id: string }>(u.get, { digestAuth, dataType: 'json' });
      assert.equal(got.status, 200);
      assert.equal(got.data.id, u.eventId);
    });

    test('a wrong key gets 401', async () => {
      const spare = server().keys.spare[0]!;
      const refused = await request(urls().get, { digestAuth: `${spare.publicKey}:wrong` });
      assert.equal(refused.status, 401);
    });
  });

  describe('Python requests HTTPDigestAuth', () => {
    test('lists and gets with one auth object (nonce reused, nc counting up); a wrong key gets 401', async () => {
      const { member, spare } = server().keys;
      const u = urls();
      const script = [
        'import json, sys, requests',
        'from requests.auth import HTTPDigestAuth',
        'cfg = json.load(sys.stdin)',
        "auth = HTTPDigestAuth(cfg['user'], cfg['password'])",
        'session = requests.Session()',
        "listed = session.get(cfg['list'], auth=auth)",
        "got = session.get(cfg['get'], auth=auth)",
        "refused = requests.get(cfg['get'], auth=HTTPDigestAuth(cfg['spare'], 'wrong'))",
        'print(json.dumps({',
        "  'list': [listed.status_code, len(listed.json()['results']), listed.json()['totalCount']],",
        "  'get': [got.status_code, got.json()['id']],",
        "  'nc': auth._thread_local.nonce_count,",
        "  'wrong': refused.status_code,",
        '}))',
      ].join('\n');
      const out = await run(
        'python3',
        ['-c', script],
        JSON.stringify({
          user: member.publicKey,
          password: member.privateKey,
          spare: spare[1]!.publicKey,
          list: u.list,
          get: u.get,
        }),
      );
      const result = JSON.parse(out) as {
        list: number[];
        get: [number, string];
        nc: number;
        wrong: number;
      };
      assert.deepEqual(result.list, [200, 5, u.expectedTotal]);
      assert.deepEqual(result.get, [200, u.eventId]);
      assert.equal(result.nc, 2, 'the second request reused the nonce with nc=2');
      assert.equal(result.wrong, 401);
    });
  });

  describe("Chromium's own Digest (Playwright httpCredentials)", () => {
    let browser: Browser;
    before(async () => {
      browser = await chromium.launch(CHROMIUM_LAUNCH_OPTIONS);
    });
    after(async () => {
      await browser?.close();
    });

    test('lists and gets by navigating, the browser answering the challenge itself', async () => {
      const { member } = server().keys;
      const u = urls();
      const context = await browser.newContext({
        httpCredentials: { username: member.publicKey, password: member.privateKey },
      });
      try {
        const page = await context.newPage();
        const listed = await page.goto(u.list);
        assert.equal(listed?.status(), 200);
        const body = (await listed.json()) as ListBody;
        assert.equal(body.results.length, 5);
        assert.equal(body.totalCount, u.expectedTotal);
        const got = await page.goto(u.get);
        assert.equal(got?.status(), 200);
        assert.equal(((await got.json()) as { id: string }).id, u.eventId);
      } finally {
        await context.close();
      }
    });

    test('a wrong key gets 401', async () => {
      const spare = server().keys.spare[2]!;
      const context = await browser.newContext({
        httpCredentials: { username: spare.publicKey, password: 'wrong' },
      });
      try {
        const page = await context.newPage();
        const refused = await page.goto(urls().get);
        assert.equal(refused?.status(), 401);
      } finally {
        await context.close();
      }
    });
  });
}
