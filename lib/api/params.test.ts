import { parseDateTime } from '@/lib/domain/dates';
import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { ApiError } from '@/lib/domain/errors';
import { API_PREFIX, DEFAULT_ITEMS_PER_PAGE, MAX_ITEMS_PER_PAGE } from '@/lib/domain/limits';
import {
  API_ORGS_PATH,
  DEFAULT_VIEW,
  MAX_PAGE_SIZE,
  apiEventPath,
  apiListPath,
  listParams,
} from '@/lib/client/url-state';
import {
  parseFormat,
  parseGetEventParams,
  parseListEventsParams,
  parsePaging,
  parseQuery,
  type QueryParam,
} from './params';

const q = (search: string): QueryParam[] => parseQuery(search);

function rejects(fn: () => unknown, code: string, parameter?: string) {
  assert.throws(fn, (error: unknown) => {
    assert.ok(error instanceof ApiError);
    assert.equal(error.code, code);
    assert.equal(error.status, 400);
    if (parameter) assert.equal(error.parameters[0], parameter);
    return true;
  });
}

describe('parseQuery', () => {
  test('keeps order and repeats, decodes + and %-escapes, tolerates junk', () => {
    assert.deepEqual(q('?b=2&a=1&b=3&flag&&x=%3A+y&bad=%zz'), [
      { name: 'b', value: '2' },
      { name: 'a', value: '1' },
      { name: 'b', value: '3' },
      { name: 'flag', value: '' },
      { name: 'x', value: ': y' },
      { name: 'bad', value: '%zz' },
    ]);
    assert.deepEqual(q(''), []);
  });
});

describe('booleans (pretty, envelope, includeRaw, includeCount)', () => {
  test('true/false in any case; defaults; first value wins', () => {
    assert.deepEqual(parseFormat(q('')), { pretty: false, envelope: false });
    assert.deepEqual(parseFormat(q('pretty=TRUE&envelope=True')), { pretty: true, envelope: true });
    assert.deepEqual(parseFormat(q('pretty=false&pretty=true')), {
      pretty: false,
      envelope: false,
    });
  });

  test('anything else is a 400 naming the parameter', () => {
    for (const value of ['', '1', 'yes', 'on', 'tru', ' true']) {
      rejects(
        () => parseFormat(q(`pretty=${encodeURIComponent(value)}`)),
        'INVALID_QUERY_PARAMETER',
        'pretty',
      );
    }
    rejects(
      () => parseListEventsParams(q('includeRaw=2')),
      'INVALID_QUERY_PARAMETER',
      'includeRaw',
    );
    rejects(() => parsePaging(q('includeCount=no')), 'INVALID_QUERY_PARAMETER', 'includeCount');
  });
});

describe('paging', () => {
  test('defaults and bounds', () => {
    assert.deepEqual(parsePaging(q('')), { pageNum: 1, itemsPerPage: 100, includeCount: true });
    assert.deepEqual(parsePaging(q('pageNum=3&itemsPerPage=500&includeCount=false')), {
      pageNum: 3,
      itemsPerPage: 500,
      includeCount: false,
    });
    assert.equal(parsePaging(q('itemsPerPage=1')).itemsPerPage, 1);
    assert.equal(parsePaging(q('pageNum=007')).pageNum, 7);
  });

  test('bad values are 400s', () => {
    for (const v of ['0', '501', '-1', '1.5', '1e2', 'abc', '', ' 5', '0x10']) {
      rejects(
        () => parsePaging(q(`itemsPerPage=${encodeURIComponent(v)}`)),
        'INVALID_QUERY_PARAMETER',
        'itemsPerPage',
      );
    }
    for (const v of ['0', '-3', '2.0', 'x', '', '99999999999999999999']) {
      rejects(
        () => parsePaging(q(`pageNum=${encodeURIComponent(v)}`)),
        'INVALID_QUERY_PARAMETER',
        'pageNum',
      );
    }
  });

  test('a page beyond any possible offset is refused, not computed', () => {
    rejects(
      () => parsePaging(q('pageNum=9007199254740991&itemsPerPage=500')),
      'INVALID_QUERY_PARAMETER',
      'pageNum',
    );
    assert.equal(
      parsePaging(q('pageNum=9007199254740991&itemsPerPage=1')).pageNum,
      9007199254740991,
    );
  });
});

describe('dates', () => {
  test('accepted ISO 8601 forms', () => {
    const noon = Date.UTC(2026, 0, 31, 12, 0, 0);
    assert.equal(parseDateTime('2026-01-31T12:00:00Z'), noon);
    assert.equal(parseDateTime('2026-01-31t12:00:00z'), noon);
    assert.equal(parseDateTime('2026-01-31T12:00Z'), noon);
    assert.equal(parseDateTime('2026-01-31T12:00:00.250Z'), noon + 250);
    assert.equal(parseDateTime('2026-01-31T12:00:00.123456789Z'), noon + 123);
    assert.equal(parseDateTime('2026-01-31T14:00:00+02:00'), noon);
    assert.equal(parseDateTime('2026-01-31T14:00:00 02:00'), noon, 'unencoded + decodes to space');
    assert.equal(parseDateTime('2026-01-31T07:30:00-0430'), noon);
    assert.equal(parseDateTime('2026-01-31T13:00:00+01'), noon);
    assert.equal(parseDateTime('2026-01-31'), Date.UTC(2026, 0, 31));
    assert.equal(parseDateTime('2024-02-29'), Date.UTC(2024, 1, 29));
    const early = parseDateTime('0050-06-01T00:00:00Z');
    assert.equal(new Date(early!).toISOString(), '0050-06-01T00:00:00.000Z', 'no 19xx mapping');
  });

  test('everything else is null, and a 400 from the list parser', () => {
    const bad = [
      '2026-01-31T12:00:00', // no zone: ambiguous
      '2026-13-01',
      '2026-02-30',
      '2025-02-29',
      '2026-01-31T24:00:00Z',
      '2026-01-31T12:60:00Z',
      '2026-01-31T12:00:60Z',
      '2026-01-31T12:00:00+25:00',
      '2026-1-31',
      '20260131T120000Z',
      '1769860800000',
      'yesterday',
      '',
    ];
    for (const text of bad) {
      assert.equal(parseDateTime(text), null, text);
      rejects(
        () => parseListEventsParams(q(`minDate=${encodeURIComponent(text)}`)),
        'INVALID_QUERY_PARAMETER',
        'minDate',
      );
    }
    rejects(() => parseListEventsParams(q('maxDate=x')), 'INVALID_QUERY_PARAMETER', 'maxDate');
  });
});

describe('eventType', () => {
  test('repeatable and comma-separated, trimmed, deduplicated', () => {
    const params = parseListEventsParams(
      q('eventType=A_B,C&eventType=D&eventType=A_B&eventType=E'),
    );
    assert.deepEqual(params.eventTypes, ['A_B', 'C', 'D', 'E']);
    assert.deepEqual(parseListEventsParams(q('')).eventTypes, []);
  });

  test('syntax errors are 400 INVALID_QUERY_PARAMETER', () => {
    for (const v of ['api_key_created', '1ABC', 'A-B', 'A B', '_A', 'A'.repeat(129)]) {
      rejects(
        () => parseListEventsParams(q(`eventType=${encodeURIComponent(v)}`)),
        'INVALID_QUERY_PARAMETER',
        'eventType',
      );
    }
  });
});

describe('one definition of the limits', () => {
  test('itemsPerPage: the default and the maximum are the shared constants', () => {
    assert.equal(parsePaging(q('')).itemsPerPage, DEFAULT_ITEMS_PER_PAGE);
    assert.equal(
      parsePaging(q(`itemsPerPage=${MAX_ITEMS_PER_PAGE}`)).itemsPerPage,
      MAX_ITEMS_PER_PAGE,
    );
    rejects(
      () => parsePaging(q(`itemsPerPage=${MAX_ITEMS_PER_PAGE + 1}`)),
      'INVALID_QUERY_PARAMETER',
      'itemsPerPage',
    );
  });

  test("the dashboard's API query parses to the view it came from", () => {
    const view = {
      ...DEFAULT_VIEW,
      types: ['API_KEY_CREATED', 'JOINED_ORG'],
      from: Date.UTC(2026, 0, 2, 10),
      // The dashboard's "to" is the last millisecond it covers.
      to: Date.UTC(2026, 0, 3, 0, 0, 59, 999),
      page: 3,
      size: MAX_PAGE_SIZE,
    };
    const path = apiListPath(listParams('5f0000000000000000000001', view));
    assert.ok(path.startsWith(`${API_PREFIX}/orgs/5f0000000000000000000001/events?`));
    assert.deepEqual(parseListEventsParams(parseQuery(path.slice(path.indexOf('?')))), {
      eventTypes: ['API_KEY_CREATED', 'JOINED_ORG'],
      minCreated: view.from,
      maxCreated: view.to,
      pageNum: 3,
      itemsPerPage: MAX_ITEMS_PER_PAGE,
      includeCount: true,
      includeRaw: false,
    });
    const orgs = parseQuery(API_ORGS_PATH.slice(API_ORGS_PATH.indexOf('?')));
    assert.equal(parsePaging(orgs).itemsPerPage, MAX_ITEMS_PER_PAGE);
    const eventPath = apiEventPath('5f0000000000000000000001', '6a793fbd2c88faeba59bd3b5', true);
    assert.deepEqual(parseGetEventParams(parseQuery(eventPath.slice(eventPath.indexOf('?')))), {
      includeRaw: true,
    });
  });
});
