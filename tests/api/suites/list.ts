import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  assertContentLength,
  assertError,
  assertVary,
  client,
  eventPath,
  eventsPath,
  expectedIds,
  linkOf,
  list,
  type ListBody,
  type ServerRef,
} from './support';

const ids = (body: ListBody) => body.results.map((e) => e.id as string);

/** Every list parameter, its good and bad values, links and headers. */
export function listSuites(server: ServerRef) {
  const bad = async (query: string, code = 'INVALID_QUERY_PARAMETER') => {
    const s = server();
    return assertError(await client(s).request(eventsPath(s, query)), 400, code);
  };

  describe('defaults, order and headers', () => {
    test('100 newest first, ties broken by id, with the exact total', async () => {
      const s = server();
      const body = await list(s);
      assert.deepEqual(Object.keys(body), ['links', 'results', 'totalCount']);
      assert.equal(body.totalCount, s.events.org.length);
      assert.deepEqual(ids(body), expectedIds(s).slice(0, 100));
      const created = body.results.map((e) => Date.parse(e.created as string));
      assert.ok(created.every((c, i) => i === 0 || c <= created[i - 1]!));
      assert.ok(
        body.results.some((e, i) => i > 0 && e.created === body.results[i - 1]!.created),
        'the fixture has ties within the first page',
      );
    });

    test('events carry their stored fields and a self link, without raw by default', async () => {
      const s = server();
      const body = await list(s, 'itemsPerPage=20');
      body.results.forEach((event, i) => {
        const stored = s.events.org[i]!;
        const { links, ...fields } = event as { links: unknown };
        assert.deepEqual(fields, JSON.parse(stored.doc));
        assert.deepEqual(links, [
          { href: `${s.baseUrl}/api/public/v1.0/orgs/${s.orgId}/events/${stored.id}`, rel: 'self' },
        ]);
      });
    });

    test('success headers', async () => {
      const s = server();
      const res = await client(s).request(eventsPath(s, 'itemsPerPage=3'));
      assert.equal(res.status, 200);
      assertVary(s, res);
      assert.equal(res.headers.get('content-type'), 'application/json');
      assert.equal(res.headers.get('strict-transport-security'), 'max-age=300');
      assert.equal(res.headers.get('x-content-type-options'), 'nosniff');
      assert.equal(res.headers.get('x-frame-options'), 'DENY');
      assert.equal(res.headers.get('referrer-policy'), 'strict-origin-when-cross-origin');
      assert.match(
        res.headers.get('x-mongodb-service-version') ?? '',
        /^gitHash=([0-9a-f]{40}|unknown); versionString=\d+\.\d+\.\d+/,
      );
      assert.ok(!Number.isNaN(Date.parse(res.headers.get('date') ?? '')));
      assertContentLength(s, res, Buffer.byteLength(res.text));
    });
  });

  describe('itemsPerPage and pageNum', () => {
    test('good values', async () => {
      const s = server();
      const all = expectedIds(s);
      assert.deepEqual(ids(await list(s, 'itemsPerPage=1')), all.slice(0, 1));
      assert.deepEqual(ids(await list(s, 'itemsPerPage=500')), all.slice(0, 500));
      assert.deepEqual(ids(await list(s, 'pageNum=3&itemsPerPage=50')), all.slice(100, 150));
      const last = await list(s, `pageNum=${Math.ceil(all.length / 500)}&itemsPerPage=500`);
      assert.deepEqual(ids(last), all.slice(500 * Math.floor(all.length / 500)));
      const beyond = await list(s, 'pageNum=1000&itemsPerPage=100');
      assert.deepEqual(beyond.results, []);
      assert.equal(beyond.totalCount, all.length);
      assert.ok(linkOf(beyond, 'previous'));
      assert.equal(linkOf(beyond, 'next'), undefined);
    });

    test('bad values are 400 INVALID_QUERY_PARAMETER', async () => {
      for (const v of ['0', '501', '-1', '1.5', 'abc', '', '1e2']) {
        const body = await bad(`itemsPerPage=${encodeURIComponent(v)}`);
        assert.deepEqual(body.parameters, ['itemsPerPage', v]);
      }
      for (const v of ['0', '-2', 'x', '', '99999999999999999999', '9007199254740991']) {
        const body = await bad(`pageNum=${encodeURIComponent(v)}`);
        assert.equal((body.parameters as string[])[0], 'pageNum');
      }
    });
  });

  describe('includeCount', () => {
    test('false: totalCount is 0 (as the real service), results and next link unchanged', async () => {
      const s = server();
      const counted = await list(s, 'itemsPerPage=10');
      const uncounted = await list(s, 'includeCount=false&itemsPerPage=10');
      assert.equal(uncounted.totalCount, 0);
      assert.deepEqual(ids(uncounted), ids(counted));
      assert.ok(linkOf(uncounted, 'next'));
      assert.equal(
        (await list(s, 'includeCount=TRUE&itemsPerPage=1')).totalCount,
        s.events.org.length,
      );
      await bad('includeCount=maybe');
    });
  });

  describe('eventType', () => {
    test('one type, repeated, comma-separated, and both', async () => {
      const s = server();
      const metric = expectedIds(s, { types: ['OUTSIDE_METRIC_THRESHOLD'] });
      const one = await list(s, 'eventType=OUTSIDE_METRIC_THRESHOLD&itemsPerPage=500');
      assert.equal(one.totalCount, metric.length);
      assert.deepEqual(ids(one), metric);
      assert.ok(one.results.every((e) => e.metricName && e.currentValue));

      const types = ['DATA_EXPLORER', 'JOINED_ORG', 'CHARGE_SUCCEEDED'];
      const expected = expectedIds(s, { types });
      for (const query of [
        'eventType=DATA_EXPLORER&eventType=JOINED_ORG&eventType=CHARGE_SUCCEEDED',
        'eventType=DATA_EXPLORER,JOINED_ORG,CHARGE_SUCCEEDED',
        'eventType=DATA_EXPLORER%2CJOINED_ORG&eventType=CHARGE_SUCCEEDED',
      ]) {
        const body = await list(s, `${query}&itemsPerPage=500`);
        assert.equal(body.totalCount, expected.length, query);
        assert.deepEqual(ids(body), expected.slice(0, 500), query);
      }
    });

    test('a catalogued type with no events is an empty page, not an error', async () => {
      const s = server();
      const body = await list(s, 'eventType=FEDERATION_SETTINGS_CREATED');
      assert.deepEqual(body.results, []);
      assert.equal(body.totalCount, 0);
    });

    test('bad syntax is INVALID_QUERY_PARAMETER, an unknown type INVALID_ENUM_VALUE', async () => {
      await bad('eventType=api_key_created');
      await bad('eventType=JOINED_ORG,not-a-type');
      const body = await bad(
        'eventType=JOINED_ORG&eventType=NO_SUCH_EVENT_TYPE',
        'INVALID_ENUM_VALUE',
      );
      assert.deepEqual(body.parameters, ['NO_SUCH_EVENT_TYPE']);
    });
  });

  describe('minDate and maxDate', () => {
    test('inclusive bounds, any offset form, plain dates', async () => {
      const s = server();
      // An event sharing its second with the next one: inclusive bounds must keep both.
      const at = s.events.org.findIndex(
        (e, i) => i >= 100 && e.created === s.events.org[i + 1]?.created,
      );
      const pivot = s.events.org[at]!;
      const iso = new Date(pivot.created).toISOString().replace('.000Z', 'Z');
      const since = await list(s, `minDate=${encodeURIComponent(iso)}&itemsPerPage=500`);
      assert.deepEqual(ids(since), expectedIds(s, { min: pivot.created }));
      assert.ok(ids(since).includes(pivot.id));
      assert.ok(ids(since).includes(s.events.org[at + 1]!.id));
      const until = await list(s, `maxDate=${encodeURIComponent(iso)}&itemsPerPage=500`);
      assert.deepEqual(ids(until), expectedIds(s, { max: pivot.created }).slice(0, 500));
      assert.equal(until.totalCount, expectedIds(s, { max: pivot.created }).length);
      const exact = await list(s, `minDate=${iso}&maxDate=${iso}`);
      assert.deepEqual(ids(exact), expectedIds(s, { min: pivot.created, max: pivot.created }));

      const offset = new Date(pivot.created + 2 * 3_600_000).toISOString().slice(0, 19) + '+02:00';
      assert.deepEqual(
        ids(
          await list(
            s,
            `minDate=${encodeURIComponent(offset)}&maxDate=${encodeURIComponent(offset)}`,
          ),
        ),
        ids(exact),
      );

      const day = new Date(pivot.created).toISOString().slice(0, 10);
      const midnight = Date.parse(`${day}T00:00:00Z`);
      const fromDay = await list(s, `minDate=${day}&itemsPerPage=1`);
      assert.equal(fromDay.totalCount, expectedIds(s, { min: midnight }).length);
      const empty = await list(s, `minDate=${day}T12:00:00Z&maxDate=${day}T11:00:00Z`);
      assert.equal(empty.totalCount, 0);
    });

    test('anything but ISO 8601 with a zone (or a plain date) is a 400', async () => {
      for (const v of [
        '2026-01-31T12:00:00',
        '31/01/2026',
        '2026-02-30',
        '1769860800',
        'now',
        '',
      ]) {
        await bad(`minDate=${encodeURIComponent(v)}`);
      }
      await bad('maxDate=2026-01-31T25:00:00Z');
    });
  });

  describe('includeRaw, pretty and envelope', () => {
    test('includeRaw=true adds each stored raw document', async () => {
      const s = server();
      const body = await list(s, 'includeRaw=true&itemsPerPage=30');
      body.results.forEach((event, i) => {
        const stored = s.events.org[i]!;
        if (stored.raw === null) assert.equal('raw' in event, false);
        else assert.deepEqual(event.raw, JSON.parse(stored.raw));
      });
      assert.ok(body.results.some((e) => 'raw' in e));
      assert.ok(
        (await list(s, 'includeRaw=false&itemsPerPage=30')).results.every((e) => !('raw' in e)),
      );
      await bad('includeRaw=yes');
    });

    test('pretty=true is indented JSON with the same content', async () => {
      const s = server();
      const compact = await client(s).request(eventsPath(s, 'itemsPerPage=5'));
      const pretty = await client(s).request(eventsPath(s, 'itemsPerPage=5&pretty=true'));
      assert.ok(!compact.text.includes('\n'));
      assert.ok(pretty.text.startsWith('{\n  "links": [\n'));
      const strip = (b: ListBody) => ({ ...b, links: [] });
      assert.deepEqual(strip(pretty.json<ListBody>()), strip(compact.json<ListBody>()));
      await bad('pretty=1');
    });

    test('envelope=true: the list gains status; one event becomes {status, content}', async () => {
      const s = server();
      const enveloped = await list(s, 'envelope=true&itemsPerPage=2');
      assert.deepEqual(Object.keys(enveloped), ['links', 'results', 'totalCount', 'status']);
      assert.equal(enveloped.status, 200);
      const id = s.events.org[0]!.id;
      const one = await client(s).request(eventPath(s, id, 'envelope=true&pretty=true'));
      assert.equal(one.status, 200);
      const body = one.json<{ status: number; content: { id: string } }>();
      assert.deepEqual(Object.keys(body), ['status', 'content']);
      assert.equal(body.status, 200);
      assert.equal(body.content.id, id);
      assert.ok(one.text.includes('\n  "content": {'));
      await bad('envelope=on');
    });
  });

  describe('links', () => {
    test('self, next and previous in the real format; unknown parameters kept, in order', async () => {
      const s = server();
      const base = `${s.baseUrl}/api/public/v1.0/orgs/${s.orgId}/events`;
      const first = await list(
        s,
        'foo=bar&eventType=JOINED_ORG,ORG_RENAMED&itemsPerPage=3&minDate=2025-01-01T00%3A00%3A00Z',
      );
      assert.deepEqual(first.links, [
        {
          href: `${base}?foo=bar&eventType=JOINED_ORG%2CORG_RENAMED&minDate=2025-01-01T00%3A00%3A00Z&pageNum=1&itemsPerPage=3`,
          rel: 'self',
        },
        {
          href: `${base}?foo=bar&eventType=JOINED_ORG%2CORG_RENAMED&minDate=2025-01-01T00%3A00%3A00Z&itemsPerPage=3&pageNum=2`,
          rel: 'next',
        },
      ]);
      const middle = await list(s, 'pageNum=2&itemsPerPage=3');
      assert.deepEqual(
        middle.links.map((l) => l.rel),
        ['previous', 'self', 'next'],
      );
      assert.equal(linkOf(middle, 'previous'), `${base}?itemsPerPage=3&pageNum=1`);
      assert.equal(linkOf(middle, 'self'), `${base}?pageNum=2&itemsPerPage=3`);
      const only = await list(s, 'eventType=ORG_RENAMED&itemsPerPage=500');
      assert.deepEqual(
        only.links.map((l) => l.rel),
        ['self'],
      );
    });

    test('following next and an event self link works', async () => {
      const s = server();
      const first = await list(s, 'itemsPerPage=4');
      const next = new URL(linkOf(first, 'next')!);
      const second = await client(s).getJson<ListBody>(`${next.pathname}${next.search}`);
      assert.deepEqual(ids(second), expectedIds(s).slice(4, 8));
      const self = new URL((second.results[0]!.links as { href: string }[])[0]!.href);
      const event = await client(s).getJson<{ id: string }>(self.pathname);
      assert.equal(event.id, second.results[0]!.id);
    });

    test('hrefs use the request Host; forwarded headers are ignored without TRUST_PROXY', async () => {
      const s = server();
      const res = await client(s).request(eventsPath(s, 'itemsPerPage=1'), {
        headers: { 'x-forwarded-host': 'evil.example', 'x-forwarded-proto': 'https' },
      });
      const body = res.json<ListBody>();
      assert.ok(body.links.every((l) => l.href.startsWith(`${s.baseUrl}/`)));
      assert.ok(res.text.includes(`"href":"${s.baseUrl}/api/public/v1.0/orgs/${s.orgId}/events/`));
    });
  });
}
