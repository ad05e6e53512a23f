import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '@/lib/domain/errors';
import { FACET_FIELDS, inCidr, parseCidr, parseIp } from '@/lib/domain/filters';
import {
  bucketStart,
  bucketStarts,
  bucketStartsWithin,
  chooseInterval,
} from '@/lib/domain/histogram';
import {
  parseFacetsParams,
  parseHistogramParams,
  parseListEventsParams,
  parseQuery,
} from './params';
import { matchRoute } from './routes';

const q = (search: string) => parseQuery(search);

function rejects(fn: () => unknown, parameter: string) {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, 'INVALID_QUERY_PARAMETER');
    assert.equal(error.parameters[0], parameter);
    return true;
  });
}

describe('issue 9 filter parameters', () => {
  test('field filters: repeated and comma lists are any-of, distinct, trimmed', () => {
    const p = parseListEventsParams(
      q(
        'clusterName=a,b&clusterName=b&hostname=h1&actor=alice@example.com&q=Clu%20DEL&excludeEventType=A,B',
      ),
    );
    assert.deepEqual(p.fields, { clusterName: ['a', 'b'], hostname: ['h1'] });
    assert.deepEqual(p.actor, ['alice@example.com']);
    assert.deepEqual(p.q, ['clu', 'del']);
    assert.deepEqual(p.excludeEventTypes, ['A', 'B']);
    // Spec parameters are untouched, and absent filters stay absent.
    const plain = parseListEventsParams(q('eventType=A'));
    assert.deepEqual(plain, {
      eventTypes: ['A'],
      minCreated: undefined,
      maxCreated: undefined,
      pageNum: 1,
      itemsPerPage: 100,
      includeCount: true,
      includeRaw: false,
    });
  });

  test('malformed values are 400 INVALID_QUERY_PARAMETER', () => {
    rejects(() => parseListEventsParams(q('username=')), 'username');
    rejects(() => parseListEventsParams(q('clusterName=a,,b')), 'clusterName');
    rejects(() => parseListEventsParams(q('remoteAddress=10.0.0.0/33')), 'remoteAddress');
    rejects(() => parseListEventsParams(q('remoteAddress=10.0.0/8')), 'remoteAddress');
    rejects(() => parseListEventsParams(q('remoteAddress=2001:db8::/129')), 'remoteAddress');
    rejects(() => parseListEventsParams(q('q=--')), 'q');
    // A dash-led part would be searched without its dash: the events meant to be left out.
    rejects(() => parseListEventsParams(q('q=alice%20-bob')), 'q');
    rejects(() => parseListEventsParams(q('q=alice&q=-bob')), 'q');
    assert.deepEqual(parseListEventsParams(q('q=us-east-1%20-')).q, ['us', 'east', '1']);
    rejects(() => parseListEventsParams(q('excludeEventType=lower')), 'excludeEventType');
    const many = Array.from({ length: 101 }, (_, i) => `v${i}`).join(',');
    rejects(() => parseListEventsParams(q(`hostId=${many}`)), 'hostId');
    assert.equal(
      parseListEventsParams(q(`hostId=${many.split(',').slice(0, 100).join(',')}`)).fields?.hostId
        ?.length,
      100,
    );
    assert.deepEqual(
      parseListEventsParams(q('remoteAddress=10.0.0.0/8,2001:db8::/32,1.2.3.4')).fields,
      {
        remoteAddress: ['10.0.0.0/8', '2001:db8::/32', '1.2.3.4'],
      },
    );
    rejects(() => parseFacetsParams(q('field=nope')), 'field');
    rejects(() => parseFacetsParams(q('limit=101')), 'limit');
    rejects(() => parseHistogramParams(q('buckets=501')), 'buckets');
    rejects(() => parseHistogramParams(q('interval=millennium')), 'interval');
  });

  test('event type lists: an empty item or more than 400 types is a 400, 400 types are taken', () => {
    for (const name of ['eventType', 'excludeEventType']) {
      for (const value of ['', ',', ' ', 'A,', ',A', 'A,,B']) {
        rejects(() => parseListEventsParams(q(`${name}=${encodeURIComponent(value)}`)), name);
      }
      rejects(() => parseListEventsParams(q(`${name}=A&${name}=`)), name);
      rejects(() => parseFacetsParams(q(`${name}=`)), name);
      rejects(() => parseHistogramParams(q(`${name}=`)), name);
      const types = Array.from({ length: 401 }, (_, i) => `T${i}`);
      rejects(() => parseListEventsParams(q(`${name}=${types.join(',')}`)), name);
      const allowed = parseListEventsParams(q(`${name}=${types.slice(0, 400).join(',')},T0`));
      const parsed = name === 'eventType' ? allowed.eventTypes : allowed.excludeEventTypes;
      assert.equal(parsed?.length, 400);
    }
  });

  test('facets and histogram defaults', () => {
    const f = parseFacetsParams(q(''));
    assert.deepEqual(f.facetFields, [...FACET_FIELDS]);
    assert.equal(f.limit, 10);
    assert.deepEqual(parseFacetsParams(q('field=actor,hostname&field=actor')).facetFields, [
      'actor',
      'hostname',
    ]);
    const h = parseHistogramParams(q(''));
    assert.equal(h.buckets, 60);
    assert.equal(h.interval, undefined);
  });

  test('facets and histogram are routes, not event ids', () => {
    const P = '/api/public/v1.0/orgs/abc/events';
    assert.equal(matchRoute(`${P}/facets`)?.operation, 'getOrgEventFacets');
    assert.equal(matchRoute(`${P}/histogram/`)?.operation, 'getOrgEventHistogram');
    assert.equal(matchRoute(`${P}/65a1b2c3d4e5f6a7b8c9d0e1`)?.operation, 'getOrgEvent');
  });
});

describe('CIDR and buckets', () => {
  test('IPv4 and IPv6 blocks', () => {
    assert.ok(inCidr('10.1.2.3', parseCidr('10.0.0.0/8')!));
    assert.ok(!inCidr('11.1.2.3', parseCidr('10.0.0.0/8')!));
    assert.ok(inCidr('2001:db8:0:0:0:0:0:1', parseCidr('2001:db8::/32')!));
    assert.ok(inCidr('2001:0db8:ffff::1', parseCidr('2001:db8::/32')!));
    assert.ok(!inCidr('2001:db9::1', parseCidr('2001:db8::/32')!));
    assert.ok(!inCidr('10.0.0.1', parseCidr('2001:db8::/32')!));
    assert.ok(inCidr('1.2.3.4', parseCidr('0.0.0.0/0')!));
    assert.equal(parseIp('::ffff:10.0.0.1')?.value, (0xffffn << 32n) | 0x0a000001n);
    for (const bad of ['1.2.3.4/33', '1.2.3/8', 'x/8', '::1::2/64', '1.2.3.4/']) {
      assert.equal(parseCidr(bad), null, bad);
    }
  });

  test('buckets align to UTC minutes, hours, days, Monday weeks and months', () => {
    const t = Date.UTC(2026, 1, 18, 13, 45, 30); // a Wednesday
    assert.equal(bucketStart(t, 'week'), Date.UTC(2026, 1, 16));
    assert.equal(bucketStart(t, 'month'), Date.UTC(2026, 1, 1));
    assert.equal(bucketStart(t, 'hour'), Date.UTC(2026, 1, 18, 13));
    assert.deepEqual(bucketStarts(Date.UTC(2026, 0, 31), Date.UTC(2026, 2, 1), 'month'), [
      Date.UTC(2026, 0, 1),
      Date.UTC(2026, 1, 1),
      Date.UTC(2026, 2, 1),
    ]);
    assert.equal(chooseInterval(Date.UTC(2026, 0, 1), Date.UTC(2026, 0, 1, 0, 59), 60), 'minute');
    assert.equal(chooseInterval(Date.UTC(2026, 0, 1), Date.UTC(2026, 3, 1), 60), 'week');
    // 1970 to 2026 in months is 676 buckets, more than any request may have.
    assert.equal(chooseInterval(0, Date.UTC(2026, 3, 1), 200), 'year');
    assert.equal(bucketStart(t, 'year'), Date.UTC(2026, 0, 1));
    assert.equal(bucketStarts(0, Date.UTC(2026, 3, 1), 'year').length, 57);
    // Go's zero time beside today: 203 decades, 21 centuries (0000-0099 the first).
    const goZero = Date.parse('0001-01-01T00:00:00Z');
    assert.equal(chooseInterval(goZero, Date.UTC(2026, 3, 1), 60), 'century');
    assert.equal(chooseInterval(goZero, Date.UTC(2026, 3, 1), 250), 'decade');
    assert.equal(bucketStart(t, 'decade'), Date.UTC(2020, 0, 1));
    assert.deepEqual(bucketStarts(goZero, Date.UTC(2026, 3, 1), 'century').slice(0, 2), [
      Date.parse('0000-01-01T00:00:00Z'),
      Date.parse('0100-01-01T00:00:00Z'),
    ]);
    // The week holding 0000-01-01 began in year -1: its bar starts at 0000-01-01.
    assert.deepEqual(
      bucketStarts(Date.parse('0000-01-01T00:00:00Z'), Date.parse('0000-01-05T00:00:00Z'), 'week'),
      [Date.parse('0000-01-01T00:00:00Z'), Date.parse('0000-01-03T00:00:00Z')],
    );
  });

  test("a zone's day the clocks skip is no bucket: Apia's 101 dates over 2011-12-30 are 100 days, which 100 buckets can hold", () => {
    // 2011-09-22 00:00 to 2011-12-31 23:00 on Apia's clock, which went from 29 December to 31.
    const [min, max] = [Date.parse('2011-09-22T11:00:00Z'), Date.parse('2011-12-31T09:00:00Z')];
    assert.equal(bucketStarts(min, max, 'day', 'Pacific/Apia').length, 100);
    assert.equal(chooseInterval(min, max, 100, 'Pacific/Apia'), 'day');
    assert.equal(chooseInterval(min, max, 99, 'Pacific/Apia'), 'week');
    // Weeks and months keep every one of theirs (none is all skipped).
    assert.equal(bucketStarts(min, max, 'week', 'Pacific/Apia').length, 15);
    assert.equal(bucketStarts(min, max, 'month', 'Pacific/Apia').length, 4);
  });

  test("an hour the clocks pass twice is a bucket of its own when the interval is picked: New York's 60 clock hours over 2026-11-01 are 61 buckets, more than 60", () => {
    // 2026-10-31 20:00 EDT to 2026-11-03 07:59 EST: 60 clock hours, 61 elapsed (01:00 came twice).
    const [min, max] = [Date.parse('2026-11-01T00:00:00Z'), Date.parse('2026-11-03T12:59:00Z')];
    assert.equal(bucketStarts(min, max, 'hour', 'America/New_York').length, 61);
    assert.equal(chooseInterval(min, max, 61, 'America/New_York'), 'hour');
    assert.equal(chooseInterval(min, max, 60, 'America/New_York'), 'day');
  });

  test("the minutes of an hour the clocks pass twice are buckets of their own when the interval is picked: New York's 01:00-01:59 twice is 120 minutes, more than 100", () => {
    // 2026-11-01 01:00 EDT to 01:59 EST: 60 clock minutes apart, 120 elapsed.
    const [min, max] = [Date.parse('2026-11-01T05:00:00Z'), Date.parse('2026-11-01T06:59:00Z')];
    assert.equal(bucketStarts(min, max, 'minute', 'America/New_York').length, 120);
    assert.equal(chooseInterval(min, max, 100, 'America/New_York'), 'hour');
    assert.equal(chooseInterval(min, max, 120, 'America/New_York'), 'minute');
  });

  test("the minutes around a day the clocks skip are the ones that pass: Apia's 23:00 on 2011-12-29 to 00:29 on the 31st is 90 minute buckets, served within 500", () => {
    // 2011-12-29 23:00 -10 to 2011-12-31 00:29 +14: 1,530 clock minutes apart, 90 elapsed.
    const [min, max] = [Date.parse('2011-12-30T09:00:00Z'), Date.parse('2011-12-30T10:29:00Z')];
    assert.equal(bucketStarts(min, max, 'minute', 'Pacific/Apia').length, 90);
    assert.deepEqual(bucketStartsWithin(min, max, 'minute', 'Pacific/Apia', 500), {
      starts: bucketStarts(min, max, 'minute', 'Pacific/Apia'),
    });
  });
});
