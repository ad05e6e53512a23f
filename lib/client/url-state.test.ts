import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import {
  DEFAULT_PAGE_SIZE,
  DEFAULT_VIEW,
  apiEventTypesPath,
  apiExportPath,
  exportEnd,
  apiListPath,
  eventPageHref,
  eventsViewHref,
  listBounds,
  listParams,
  notAppliedInUrl,
  pageCount,
  pageForNewSize,
  parseEventTab,
  parseEventsView,
  presetStart,
  serializeEventsView,
  withoutUnknownTypes,
} from './url-state';
import { MAX_ITEMS_PER_PAGE, OBJECT_ID_PATTERN } from '@/lib/domain/limits';
import { parseEndBound } from '@/lib/domain/dates';

const ORG = '5f0000000000000000000001';
const EVENT = '6a793fbd2c88faeba59bd3b5';

describe('lib/client/url-state', () => {
  it('reads every field of a view from the URL', () => {
    const view = parseEventsView(
      new URLSearchParams(
        `types=JOINED_ORG,API_KEY_CREATED&from=2026-01-02T10:00Z&to=2026-01-03T00:00Z&page=3&size=25&tz=local&event=${EVENT}`,
      ),
      'Europe/Paris',
    );
    assert.deepEqual(view, {
      types: ['API_KEY_CREATED', 'JOINED_ORG'],
      excludeTypes: [],
      fields: {},
      actor: [],
      q: '',
      range: null,
      from: Date.UTC(2026, 0, 2, 10),
      // All of the minute it names.
      to: Date.UTC(2026, 0, 3, 0, 0, 59, 999),
      page: 3,
      size: 25,
      tz: 'local',
      event: EVENT,
    });
  });

  it('falls back to defaults for every bad value instead of failing', () => {
    const view = parseEventsView(
      {
        types: 'lower_case,,JOINED_ORG,JOINED_ORG',
        range: '2y',
        from: 'soon',
        page: '-4',
        size: '501',
        tz: 'mars',
        event: 'not-an-id',
      },
      'UTC',
    );
    assert.deepEqual(view, { ...DEFAULT_VIEW, types: ['JOINED_ORG'] });
    assert.equal(parseEventsView({ page: '1e3', size: '0' }, 'UTC').page, 1);
    assert.equal(parseEventsView({ size: '0' }, 'UTC').size, DEFAULT_PAGE_SIZE);
  });

  it('lets explicit bounds win over a preset and orders swapped bounds', () => {
    const view = parseEventsView(
      { range: '24h', from: '2026-01-03T00:00Z', to: '2026-01-02T00:00Z' },
      'UTC',
    );
    assert.equal(view.range, null);
    assert.equal(view.from, Date.UTC(2026, 0, 2));
    assert.equal(view.to, Date.UTC(2026, 0, 3, 0, 0, 59, 999));
  });

  it('reads bare dates given the wrong way round as both days, not the second between them', () => {
    const view = parseEventsView({ from: '2026-11-10', to: '2026-11-09' }, 'UTC');
    assert.equal(view.from, Date.UTC(2026, 10, 9));
    assert.equal(view.to, parseEndBound('2026-11-10', 'UTC'));
  });

  it('reads a list parameter repeated as one list, as the API reads eventType', () => {
    for (const input of [
      new URLSearchParams(
        'types=JOINED_ORG&types=JOINED_TEAM&clusterName=analytics&clusterName=orders&actor=a&actor=b',
      ),
      {
        types: ['JOINED_ORG', 'JOINED_TEAM'],
        clusterName: ['analytics', 'orders'],
        actor: ['a', 'b'],
      },
    ]) {
      const view = parseEventsView(input, 'UTC');
      assert.deepEqual(view.types, ['JOINED_ORG', 'JOINED_TEAM']);
      assert.deepEqual(view.fields.clusterName, ['analytics', 'orders']);
      assert.deepEqual(view.actor, ['a', 'b']);
      assert.deepEqual(notAppliedInUrl(input, 'UTC'), []);
    }
  });

  it('reads offset-less bounds in the chosen zone', () => {
    const local = parseEventsView({ from: '2026-01-02T11:00', tz: 'local' }, 'Europe/Paris');
    assert.equal(local.from, Date.UTC(2026, 0, 2, 10));
    const utc = parseEventsView({ from: '2026-01-02T11:00' }, 'Europe/Paris');
    assert.equal(utc.from, Date.UTC(2026, 0, 2, 11));
  });

  it('reads a bare date as "to" as that whole day, on days of 23 and 25 hours too', () => {
    const utc = parseEventsView({ from: '2026-11-10', to: '2026-11-10' }, 'UTC');
    assert.equal(utc.from, Date.UTC(2026, 10, 10));
    assert.equal(utc.to, Date.UTC(2026, 10, 10, 23, 59, 59, 999));
    assert.deepEqual(listBounds(listParams(ORG, utc), 0), {
      min: Date.UTC(2026, 10, 10),
      max: Date.UTC(2026, 10, 10, 23, 59, 59, 999),
    });
    // New York: 1 November 2026 has 25 hours, 8 March 2026 23.
    for (const [day, offsetHours] of [
      ['2026-11-01', 5],
      ['2026-03-08', 4],
    ] as const) {
      const local = parseEventsView({ to: day, tz: 'local' }, 'America/New_York');
      const [y, m, d] = day.split('-').map(Number) as [number, number, number];
      assert.equal(local.to, Date.UTC(y, m - 1, d, 23 + offsetHours, 59, 59, 999), day);
    }
  });

  it('leaves defaults out of the URL and round-trips every view', () => {
    assert.equal(serializeEventsView(DEFAULT_VIEW, 'UTC'), '');
    assert.equal(eventsViewHref(ORG, DEFAULT_VIEW, 'UTC'), `/orgs/${ORG}/events`);
    const views = [
      { ...DEFAULT_VIEW, types: ['A_TYPE', 'B_TYPE'], range: '7d' as const, page: 4 },
      {
        ...DEFAULT_VIEW,
        from: Date.UTC(2026, 0, 2, 10, 30),
        to: Date.UTC(2026, 0, 2, 12, 0, 15, 999),
        size: 500,
        tz: 'local' as const,
        event: EVENT,
      },
      // A "from" with a fraction of a second (typed so): the URL keeps it.
      { ...DEFAULT_VIEW, from: Date.UTC(2026, 0, 2, 10, 30, 0, 500), to: null },
    ];
    for (const view of views) {
      const query = serializeEventsView(view, 'America/New_York');
      assert.deepEqual(parseEventsView(new URLSearchParams(query), 'America/New_York'), view);
    }
    assert.equal(
      serializeEventsView(views[1]!, 'America/New_York'),
      `from=2026-01-02T05:30-05:00&to=2026-01-02T07:00:15-05:00&size=500&tz=local&event=${EVENT}`,
    );
  });

  it('maps a view to exactly one API query', () => {
    const view = parseEventsView(
      {
        types: 'JOINED_ORG,API_KEY_CREATED',
        from: '2026-01-02T10:00Z',
        to: '2026-01-03T00:00Z',
        page: '2',
        size: '25',
      },
      'UTC',
    );
    assert.equal(
      apiListPath(listParams(ORG, view)),
      `/api/public/v1.0/orgs/${ORG}/events?eventType=API_KEY_CREATED&eventType=JOINED_ORG` +
        '&minDate=2026-01-02T10%3A00%3A00Z&maxDate=2026-01-03T00%3A00%3A59.999Z&pageNum=2&itemsPerPage=25&includeCount=true',
    );
  });

  it('asks for only the second a "to" ending in :00 names, the whole minute a "to" without seconds names, and writes each back as given', () => {
    const maxDate = (view: ReturnType<typeof parseEventsView>) =>
      new URLSearchParams(apiListPath(listParams(ORG, view)).split('?')[1]).get('maxDate');
    for (const [zone, tz, second, minute, utcHour] of [
      ['UTC', 'utc', '2026-01-31T11:30:00Z', '2026-01-31T11:30Z', 11],
      ['America/New_York', 'local', '2026-01-31T11:30:00-05:00', '2026-01-31T11:30-05:00', 16],
    ] as const) {
      const query = tz === 'local' ? '&tz=local' : '';
      const toSecond = parseEventsView({ to: second, tz }, zone);
      assert.equal(maxDate(toSecond), `2026-01-31T${utcHour}:30:00.999Z`, zone);
      assert.equal(serializeEventsView(toSecond, zone), `to=${second}${query}`);
      const toMinute = parseEventsView({ to: minute, tz }, zone);
      assert.equal(maxDate(toMinute), `2026-01-31T${utcHour}:30:59.999Z`, zone);
      assert.equal(serializeEventsView(toMinute, zone), `to=${minute}${query}`);
    }
  });

  it('asks from a "from" with a fraction of a second, not from its whole second', () => {
    const view = parseEventsView({ from: '2026-01-02T10:00:00.500Z' }, 'UTC');
    assert.match(apiListPath(listParams(ORG, view)), /minDate=2026-01-02T10%3A00%3A00.500Z/);
  });

  it('anchors presets to the minute so one view asks for one window', () => {
    const now = Date.UTC(2026, 0, 2, 10, 4, 59, 999);
    assert.equal(presetStart('1h', now), Date.UTC(2026, 0, 2, 9, 4));
    const params = listParams(ORG, { ...DEFAULT_VIEW, range: '24h' });
    assert.equal(apiListPath(params, now), apiListPath(params, Date.UTC(2026, 0, 2, 10, 4, 1)));
    assert.match(apiListPath(params, now), /minDate=2026-01-01T10%3A04%3A00Z/);
  });

  it('pins an open-ended export to the instant it was asked for, so its count and file agree', () => {
    const now = Date.UTC(2026, 0, 2, 10, 4, 59, 123);
    const open = apiExportPath(
      listParams(ORG, DEFAULT_VIEW),
      { format: 'csv', includeRaw: false },
      now,
    );
    assert.equal(
      open,
      `/api/public/v1.0/orgs/${ORG}/events/export?maxDate=2026-01-02T10%3A04%3A59.123Z&format=csv`,
    );
    const bounded = listParams(ORG, { ...DEFAULT_VIEW, range: '24h' });
    assert.equal(
      apiExportPath(bounded, { format: 'ndjson', includeRaw: true }, now).match(/maxDate=/g)
        ?.length,
      1,
    );
  });

  it('pins an open end where nothing the table shows is left out: a future event included', () => {
    const now = Date.UTC(2026, 0, 2, 10, 4, 59, 123);
    const future = Date.UTC(2027, 5, 1);
    assert.equal(exportEnd(now, future), future + 999);
    assert.equal(exportEnd(now, Date.UTC(2026, 0, 1)), Date.UTC(2026, 0, 2, 10, 4, 59, 999));
    assert.equal(exportEnd(now, null), Date.UTC(2026, 0, 2, 10, 4, 59, 999));
    const params = listParams(ORG, { ...DEFAULT_VIEW, range: '24h' });
    // A preset's start still counts from the present, whatever the end.
    const path = apiExportPath(params, { format: 'csv', includeRaw: false }, now, future + 999);
    assert.match(path, /minDate=2026-01-01T10%3A04%3A00Z/);
    assert.match(path, /maxDate=2027-06-01T00%3A00%3A00.999Z/);
  });

  it('counts pages, never fewer than one', () => {
    assert.equal(pageCount(0, 25), 1);
    assert.equal(pageCount(25, 25), 1);
    assert.equal(pageCount(26, 25), 2);
    assert.equal(pageCount(1_000_000, 500), 2000);
  });

  it('a new page size goes to the page holding the first row shown', () => {
    const total = 10_000;
    assert.equal(pageForNewSize(5, 25, 100, total), 2); // row 101: 101-200
    assert.equal(pageForNewSize(2, 100, 25, total), 5); // row 101: 101-125
    assert.equal(pageForNewSize(4, 50, 200, total), 1); // row 151: 1-200
    assert.equal(pageForNewSize(1, 25, 500, total), 1);
    assert.equal(pageForNewSize(3, 200, 50, total), 9); // row 401: 401-450
  });

  it('a new page size with an event open goes to the page holding its row', () => {
    const total = 10_000;
    // Row 190 (index 89 of page 2 at 100): page 8 at 25 (rows 176-200), not the first row's 5.
    assert.equal(pageForNewSize(2, 100, 25, total, 89), 8);
    // Row 550 (index 149 of page 3 at 200, rows 401-600): page 2 at 500, not the first row's 1.
    assert.equal(pageForNewSize(3, 200, 500, total, 149), 2);
    assert.equal(pageForNewSize(5, 25, 100, total, 9), 2); // row 110: 101-200
  });

  it('a new page size from past the last page goes to the last page at that size, not past it', () => {
    // Page 40 at 100 of 1,000 rows (an old link, or a set that shrank): row 3,901 is no row;
    // at 500 a page the last page is 2, where page 8 would still be past the end.
    assert.equal(pageForNewSize(40, 100, 500, 1_000), 2);
    assert.equal(pageForNewSize(40, 100, 25, 1_000), 40);
    assert.equal(pageForNewSize(12, 100, 100, 1_000), 10);
    // Nothing at all: page 1, which says "No events".
    assert.equal(pageForNewSize(3, 50, 200, 0), 1);
  });

  it("reads sizes up to the API's maximum and ids of the API's shape, nothing beyond", () => {
    assert.equal(
      parseEventsView({ size: String(MAX_ITEMS_PER_PAGE) }, 'UTC').size,
      MAX_ITEMS_PER_PAGE,
    );
    assert.equal(
      parseEventsView({ size: String(MAX_ITEMS_PER_PAGE + 1) }, 'UTC').size,
      DEFAULT_PAGE_SIZE,
    );
    assert.equal(parseEventsView({ event: EVENT.toUpperCase() }, 'UTC').event, EVENT);
    assert.equal(parseEventsView({ event: `${EVENT}0` }, 'UTC').event, null);
    assert.ok(OBJECT_ID_PATTERN.test(EVENT));
  });
});

describe('values a URL asks for that the view leaves out', () => {
  it('names each malformed value, and nothing for a clean URL', () => {
    const problems = notAppliedInUrl(
      new URLSearchParams(
        'remoteAddress=10.0.0.0/99,10.0.0.1&actor=x&from=garbage&size=100000&page=0&range=5y&types=lower',
      ),
      'UTC',
    );
    assert.equal(problems.length, 6);
    for (const part of [
      '10.0.0.0/99',
      'from=garbage',
      'size=100000',
      'page=0',
      'range=5y',
      'lower',
    ]) {
      assert.ok(
        problems.some((problem) => problem.includes(part)),
        part,
      );
    }
    assert.ok(!problems.some((problem) => problem.includes('10.0.0.1')));
    assert.deepEqual(
      notAppliedInUrl(
        new URLSearchParams(
          `types=JOINED_ORG&remoteAddress=10.0.0.0/8&from=2026-01-02&to=2026-01-03&size=25&page=2&tz=local&event=${EVENT}`,
        ),
        'Europe/Paris',
      ),
      [],
    );
  });

  it('names an empty filter value, a search with no words and a preset overridden by dates, each left out of the view', () => {
    const cases: [string, string][] = [
      ['actor=', 'actor: an empty value'],
      ['clusterName=%20', 'clusterName: an empty value'],
      ['types=JOINED_ORG,', 'types: an empty value'],
      ['q=%25%25%25', 'q=%%% has no words to search for'],
      ['range=7d&from=2026-11-01', 'range=7d: from and to give the range instead'],
    ];
    for (const [query, problem] of cases) {
      assert.deepEqual(notAppliedInUrl(new URLSearchParams(query), 'UTC'), [problem], query);
    }
    const view = parseEventsView(new URLSearchParams('actor=&clusterName=%20&q=%25%25%25'), 'UTC');
    assert.deepEqual([view.actor, view.fields, view.q], [[], {}, '']);
    // What the dashboard writes itself is never named: an empty search, a filter repeated.
    assert.deepEqual(notAppliedInUrl(new URLSearchParams('q=&actor=a&actor=&range=7d'), 'UTC'), []);
  });

  it('leaves out a search word written with a leading dash, which the API would search for, and names it', () => {
    const input = new URLSearchParams('q=alice -bob -bob  us-east-1 -');
    assert.equal(parseEventsView(input, 'UTC').q, 'alice us-east-1 -');
    assert.deepEqual(notAppliedInUrl(input, 'UTC'), [
      'q: -bob: free text cannot be left out, only event types can (excludeTypes)',
    ]);
    const alone = new URLSearchParams('q=-bob');
    assert.equal(parseEventsView(alone, 'UTC').q, '');
    assert.deepEqual(notAppliedInUrl(alone, 'UTC'), [
      'q: -bob: free text cannot be left out, only event types can (excludeTypes)',
    ]);
  });

  it('says so when a type is both included and excluded (the inclusion wins)', () => {
    const input = new URLSearchParams(
      'types=CLUSTER_INSTANCE_SWAPPED&excludeTypes=CLUSTER_INSTANCE_SWAPPED,JOINED_ORG',
    );
    assert.deepEqual(parseEventsView(input, 'UTC').excludeTypes, ['JOINED_ORG']);
    assert.deepEqual(notAppliedInUrl(input, 'UTC'), [
      'excludeTypes: CLUSTER_INSTANCE_SWAPPED is also in types, which wins',
    ]);
  });

  it('leaves out the event types the catalogue lacks, and keeps the view as is otherwise', () => {
    const view = {
      ...DEFAULT_VIEW,
      types: ['JOINED_ORG', 'NOT_A_TYPE'],
      excludeTypes: ['OLD_TYPE'],
      actor: ['x'],
    };
    const catalogue = ['JOINED_ORG', 'API_KEY_CREATED'];
    assert.deepEqual(withoutUnknownTypes(view, catalogue), {
      view: { ...view, types: ['JOINED_ORG'], excludeTypes: [] },
      unknown: ['NOT_A_TYPE', 'OLD_TYPE'],
    });
    assert.equal(withoutUnknownTypes(view, null).view, view);
    const known = { ...view, types: ['JOINED_ORG'], excludeTypes: [] };
    assert.equal(withoutUnknownTypes(known, catalogue).view, known);
  });
});

describe('the type picker counts', () => {
  it('are asked under the dates and filters, never the types', () => {
    const view = {
      ...DEFAULT_VIEW,
      types: ['JOINED_ORG'],
      excludeTypes: ['API_KEY_CREATED'],
      actor: ['x'],
      from: Date.UTC(2026, 0, 2),
    };
    const path = apiEventTypesPath(ORG, listParams(ORG, view));
    const query = new URL(path, 'http://h').searchParams;
    assert.deepEqual(query.getAll('actor'), ['x']);
    assert.equal(query.get('minDate'), '2026-01-02T00:00:00Z');
    assert.equal(query.get('eventType'), null);
    assert.equal(query.get('excludeEventType'), null);
    assert.ok(!apiEventTypesPath(ORG).includes('?'));
  });
});

describe("an event's own page", () => {
  it('names the zone and the raw tab in its query, the defaults not at all', () => {
    assert.equal(eventPageHref(ORG, EVENT, { tz: 'utc' }), `/orgs/${ORG}/events/${EVENT}`);
    assert.equal(
      eventPageHref(ORG, EVENT, { tz: 'utc', tab: 'details' }),
      `/orgs/${ORG}/events/${EVENT}`,
    );
    assert.equal(
      eventPageHref(ORG, EVENT, { tz: 'local', tab: 'raw' }),
      `/orgs/${ORG}/events/${EVENT}?tz=local&tab=raw`,
    );
    assert.equal(
      eventPageHref(ORG, EVENT, { tz: 'utc', tab: 'raw' }),
      `/orgs/${ORG}/events/${EVENT}?tab=raw`,
    );
  });

  it('reads the tab back: raw, or details for anything else', () => {
    for (const tab of ['raw', 'details'] as const) {
      const href = eventPageHref(ORG, EVENT, { tz: 'utc', tab });
      assert.equal(parseEventTab(new URL(href, 'http://x').searchParams.get('tab')), tab);
    }
    assert.equal(parseEventTab(undefined), 'details');
    assert.equal(parseEventTab(['raw', 'raw']), 'details');
    assert.equal(parseEventTab('RAW'), 'details');
  });
});
