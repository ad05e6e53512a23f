import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { eventCategories } from '@/lib/domain/catalog';
import { FILTER_FIELDS } from '@/lib/domain/filters';
import {
  CHIP_KEYS,
  NO_FILTERS,
  TYPES_PER_CATEGORY_CHIP,
  applyQuery,
  completions,
  currentToken,
  filterChips,
  removeChip,
  resolveChipKey,
  toggleChip,
  tokenize,
} from './query-syntax';
import { columnPivots, eventPivots, networkOf } from './pivots';
import {
  DEFAULT_VIEW,
  apiFacetsPath,
  apiHistogramPath,
  apiListPath,
  listParams,
  notAppliedInUrl,
  parseEventsView,
  serializeEventsView,
} from './url-state';

const CATALOGUE = [
  'CLUSTER_CREATED',
  'CLUSTER_DELETED',
  'DATA_EXPLORER',
  'DATA_EXPLORER_CRUD',
  'JOINED_ORG',
];

describe('lib/client/query-syntax', () => {
  it('knows every filter field of the schema by its own name, in any letter case', () => {
    for (const field of FILTER_FIELDS) {
      assert.equal(resolveChipKey(field), field);
      assert.equal(resolveChipKey(field.toUpperCase()), field);
    }
    assert.deepEqual(CHIP_KEYS.slice(2), [...FILTER_FIELDS]);
    assert.equal(resolveChipKey('cluster'), 'clusterName');
    assert.equal(resolveChipKey('ip'), 'remoteAddress');
    assert.equal(resolveChipKey('type'), 'eventType');
    assert.equal(resolveChipKey('http'), null);
  });

  it('reads the example of issue 9 into filters', () => {
    const { filters, problems } = applyQuery(
      NO_FILTERS,
      'actor:alice@example.com type:CLUSTER_* cluster:Cluster0 ip:10.0.0.0/8 -type:DATA_EXPLORER "free text"',
      CATALOGUE,
    );
    assert.deepEqual(problems, []);
    assert.deepEqual(filters, {
      types: ['CLUSTER_CREATED', 'CLUSTER_DELETED'],
      excludeTypes: ['DATA_EXPLORER'],
      fields: { clusterName: ['Cluster0'], remoteAddress: ['10.0.0.0/8'] },
      actor: ['alice@example.com'],
      q: 'free text',
    });
    assert.deepEqual(
      filterChips(filters).map((chip) => chip.text),
      [
        'type:CLUSTER_CREATED',
        'type:CLUSTER_DELETED',
        '-type:DATA_EXPLORER',
        'actor:alice@example.com',
        'cluster:Cluster0',
        'ip:10.0.0.0/8',
        '"free text"',
      ],
    );
  });

  it('treats bare words and unknown names as free text, and quoted values as one value', () => {
    assert.deepEqual(tokenize('http://x.io deleted host:"a b"'), [
      { kind: 'text', text: 'http://x.io' },
      { kind: 'text', text: 'deleted' },
      {
        kind: 'field',
        name: 'host',
        value: 'a b',
        quoted: true,
        negate: false,
        source: 'host:"a b"',
      },
    ]);
    const { filters } = applyQuery(NO_FILTERS, 'clu del host:a,b', CATALOGUE);
    assert.equal(filters.q, 'clu del');
    assert.deepEqual(filters.fields.hostname, ['a', 'b']);
  });

  it('says what it cannot do instead of guessing', () => {
    const { filters, problems } = applyQuery(
      NO_FILTERS,
      'type:NOPE_* -cluster:x ip:10.0.0.0/99 ip:not-an-ip actor: type:NOT_CATALOGUED',
      CATALOGUE,
    );
    assert.deepEqual(filters, NO_FILTERS);
    assert.equal(problems.length, 6);
    assert.match(problems[5]!, /no event type matches NOT_CATALOGUED/);
    assert.match(problems[0]!, /no event type matches NOPE_\*/);
    assert.match(problems[1]!, /only event types can be left out/);
    assert.match(problems[2]!, /CIDR/);
  });

  it('keeps free text past 500 characters in all in the box, unapplied, and says so', () => {
    // The URL keeps at most 500: the longer q came back cut, reported as "from the link".
    const long = Array.from({ length: 68 }, (_, i) => `word${i}`).join(' ');
    assert.equal(long.length, 465);
    const first = applyQuery(NO_FILTERS, long, CATALOGUE);
    assert.equal(first.filters.q, long);
    assert.deepEqual(first.problems, []);
    const more = applyQuery(
      first.filters,
      'cluster:c0 abcdefghij "klmnopqrstu vwxyzabcdefghij" xy',
      CATALOGUE,
    );
    // Each text is applied while the whole stays within 500; the one that would pass it is kept.
    assert.equal(more.filters.q, `${long} abcdefghij xy`);
    assert.deepEqual(more.filters.fields.clusterName, ['c0']);
    assert.equal(more.refused, 'klmnopqrstu vwxyzabcdefghij');
    assert.deepEqual(more.problems, [
      'free text: at most 500 characters in all; the rest not applied',
    ]);
    assert.ok(more.filters.q.length <= 500);
  });

  it('refuses a mistyped field name with the field it most likely meant, and searches it as text once quoted', () => {
    const { filters, problems, refused } = applyQuery(
      NO_FILTERS,
      'usr:alice clustr:"Cluster 0" zzzzzz:1 deleted',
      CATALOGUE,
    );
    assert.deepEqual(filters, { ...NO_FILTERS, q: 'deleted' });
    assert.equal(refused, 'usr:alice clustr:"Cluster 0" zzzzzz:1');
    assert.deepEqual(problems, [
      'usr: is not a field (did you mean user:?); "usr:alice" in quotes searches it as text',
      'clustr: is not a field (did you mean cluster:?); "clustr:Cluster 0" in quotes searches it as text',
      'zzzzzz: is not a field; "zzzzzz:1" in quotes searches it as text',
    ]);
    assert.equal(applyQuery(NO_FILTERS, '"usr:alice"', CATALOGUE).filters.q, 'usr alice');
    // What cannot be a field stays free text: URLs, IPv6 addresses, a bare `name:`.
    const text = applyQuery(NO_FILTERS, 'https://x.io fe80::1 abcd::2 note:', CATALOGUE);
    assert.deepEqual(text.problems, []);
    assert.equal(text.filters.q, 'https x io fe80 1 abcd 2 note');
  });

  it('says that punctuation alone has nothing to search for and keeps it in the box, rather than widening to every event', () => {
    for (const lone of ['-', '/', '"--"']) {
      const { filters, problems, refused } = applyQuery(NO_FILTERS, lone, CATALOGUE);
      assert.deepEqual(filters, NO_FILTERS, lone);
      assert.equal(refused, lone.replace(/"/g, ''), lone);
      assert.deepEqual(problems, [
        `"${lone.replace(/"/g, '')}" has no words to search for (free text matches letters and digits)`,
      ]);
    }
    // Beside words, the words apply and the punctuation is named.
    const mixed = applyQuery(NO_FILTERS, 'alice / cluster:c0', CATALOGUE);
    assert.deepEqual(mixed.filters, {
      ...NO_FILTERS,
      q: 'alice',
      fields: { clusterName: ['c0'] },
    });
    assert.equal(mixed.refused, '/');
    assert.equal(mixed.problems.length, 1);
  });

  it('refuses a free-text word with a leading dash as an exclusion q cannot make, applying the rest', () => {
    const result = applyQuery(NO_FILTERS, 'alice -bob cluster:c0', CATALOGUE);
    assert.deepEqual(result.filters, {
      ...NO_FILTERS,
      q: 'alice',
      fields: { clusterName: ['c0'] },
    });
    assert.equal(result.refused, '-bob');
    assert.deepEqual(result.problems, [
      'free text cannot be left out (-bob): only event types can (-type:…)',
    ]);
    // A dash inside a word, or quoted text, is searched as typed.
    for (const typed of ['us-east-1', '"-bob"']) {
      const searched = applyQuery(NO_FILTERS, typed, CATALOGUE);
      assert.deepEqual(searched.problems, [], typed);
      assert.notEqual(searched.filters.q, '', typed);
    }
  });

  it('guesses a key only for names long enough to be typos of one, reads eventTypeName as type, and keeps letter-led IPv6 addresses as text', () => {
    const hint = (input: string) => applyQuery(NO_FILTERS, input, CATALOGUE).problems[0] ?? '';
    for (const input of ['q:alice', 'id:6b0c7aeda848b9d0965730d3', 'to:2026-02-01', 'after:x']) {
      assert.doesNotMatch(hint(input), /did you mean/, input);
      assert.match(hint(input), /is not a field/, input);
    }
    assert.match(hint('usr:x'), /did you mean user:\?/);
    assert.match(hint('clustr:x'), /did you mean cluster:\?/);
    assert.deepEqual(applyQuery(NO_FILTERS, 'eventTypeName:JOINED_ORG', CATALOGUE).filters.types, [
      'JOINED_ORG',
    ]);
    const ipv6 = applyQuery(NO_FILTERS, 'face:b00c::1 dead:beef::1/64', CATALOGUE);
    assert.deepEqual(ipv6.problems, []);
    assert.equal(ipv6.filters.q, 'face b00c 1 dead beef 64');
  });

  it('says how many values of a pasted list are over the limit of 100, keeping the first ones typed', () => {
    const addresses = Array.from({ length: 120 }, (_, i) => `10.0.0.${i + 1}`);
    const { filters, problems } = applyQuery(
      NO_FILTERS,
      `ip:${[...addresses, '94.120.18.88'].join(',')}`,
      CATALOGUE,
    );
    assert.equal(filters.fields.remoteAddress?.length, 100);
    assert.ok(filters.fields.remoteAddress?.includes('10.0.0.100'));
    assert.ok(!filters.fields.remoteAddress?.includes('10.0.0.101'));
    assert.deepEqual(problems, [
      'ip: at most 100 values at once; 21 not applied (10.0.0.101, 10.0.0.102, 10.0.0.103, …)',
    ]);
  });

  it('hands back the refused chips as typed, to be fixed in the box', () => {
    const { filters, problems, refused } = applyQuery(
      NO_FILTERS,
      'actor:x ip:10.0.0.0/99 team -type:JOINED_ORG -cluster:"a b" type:NOPE',
      CATALOGUE,
    );
    assert.equal(problems.length, 3);
    assert.equal(refused, 'ip:10.0.0.0/99 -cluster:"a b" type:NOPE');
    assert.deepEqual(filters.actor, ['x']);
    assert.deepEqual(filters.excludeTypes, ['JOINED_ORG']);
    assert.equal(filters.q, 'team');
    assert.equal(applyQuery(NO_FILTERS, 'actor:x team', CATALOGUE).refused, '');
  });

  it('including a type takes it out of the excluded ones and back', () => {
    const excluded = applyQuery(NO_FILTERS, '-type:JOINED_ORG', CATALOGUE).filters;
    assert.deepEqual(excluded.excludeTypes, ['JOINED_ORG']);
    const included = applyQuery(excluded, 'type:joined_org', CATALOGUE).filters;
    assert.deepEqual(included.types, ['JOINED_ORG']);
    assert.deepEqual(included.excludeTypes, []);
  });

  it('shows a category chosen or left out as one chip, removed whole, and fewer types one by one', () => {
    const billing = eventCategories('hosted').find((category) => category.name === 'Billing')!;
    const user = eventCategories('hosted').find((category) => category.name === 'User')!;
    const few = user.types.slice(0, TYPES_PER_CATEGORY_CHIP - 1);
    const filters = {
      ...NO_FILTERS,
      types: [...few].sort(),
      excludeTypes: [...billing.types, 'DATA_EXPLORER'].sort(),
    };
    const chips = filterChips(filters);
    assert.deepEqual(
      chips.map((chip) => chip.text),
      [
        ...[...few].sort().map((type) => `type:${type}`),
        `-type:Billing (${billing.types.length} types)`,
        '-type:DATA_EXPLORER',
      ],
    );
    assert.equal(billing.types.length, 80);
    const withoutBilling = removeChip(filters, chips[few.length]!);
    assert.deepEqual(withoutBilling, { ...filters, excludeTypes: ['DATA_EXPLORER'] });
    // Part of a category (a pattern, or the types with events) says so.
    const credit = billing.types.filter((type) => type.startsWith('CREDIT_'));
    assert.equal(
      filterChips({ ...NO_FILTERS, excludeTypes: [...credit].sort() })[0]!.text,
      `-type:Billing (${credit.length} of ${billing.types.length} types)`,
    );
    // Chosen rather than left out, the same.
    const chosen = filterChips({ ...NO_FILTERS, types: [...billing.types].sort() });
    assert.equal(chosen.length, 1);
    assert.equal(chosen[0]!.text, `type:Billing (${billing.types.length} types)`);
    assert.deepEqual(removeChip({ ...NO_FILTERS, types: billing.types }, chosen[0]!), NO_FILTERS);
  });

  it('removes chips one by one and toggles facet values', () => {
    const { filters } = applyQuery(NO_FILTERS, 'cluster:a cluster:b actor:x "some words"', []);
    const chips = filterChips(filters);
    let rest = filters;
    for (const chip of chips) rest = removeChip(rest, chip);
    assert.deepEqual(rest, NO_FILTERS);
    assert.deepEqual(removeChip(filters, chips[1]!).fields, { clusterName: ['b'] });
    const toggled = toggleChip(toggleChip(NO_FILTERS, 'opType', 'find'), 'opType', 'find');
    assert.deepEqual(toggled, NO_FILTERS);
    // The facet's "leave out" control: on, then off again, the included types untouched.
    const typed = toggleChip(NO_FILTERS, 'eventType', 'JOINED_ORG');
    const left = toggleChip(typed, 'eventType', 'DATA_EXPLORER', true);
    assert.deepEqual(left.excludeTypes, ['DATA_EXPLORER']);
    assert.deepEqual(left.types, ['JOINED_ORG']);
    assert.deepEqual(toggleChip(left, 'eventType', 'DATA_EXPLORER', true), typed);
  });

  it('completes key names, then values from a source', () => {
    assert.deepEqual(
      completions('clu', () => []).map((c) => c.insert),
      ['cluster:', 'clusterId:', 'clusterName:'],
    );
    assert.deepEqual(
      completions('-ty', () => []).map((c) => c.insert),
      ['-type:'],
    );
    const source = () => [
      { value: 'ada@example.com', count: 3 },
      { value: 'grace hopper', count: 1 },
    ];
    assert.deepEqual(
      completions('actor:gr', source).map((c) => [c.insert, c.count]),
      [['actor:"grace hopper"', 1]],
    );
    assert.deepEqual(currentToken('type:X actor:"a b'), { start: 7, text: 'actor:"a b' });
  });

  it('completes user: and key: with actor:, whose counts the actor facet gives', () => {
    const actors = () => [
      { value: 'ada@example.com', count: 3 },
      { value: 'nmtxqlkl', count: 5 },
    ];
    assert.deepEqual(
      completions('user:', actors).map((c) => [c.insert, c.count]),
      [
        ['actor:ada@example.com', 3],
        ['actor:nmtxqlkl', 5],
      ],
    );
    assert.deepEqual(
      completions('key:nm', actors).map((c) => c.insert),
      ['actor:nmtxqlkl'],
    );
    // Keys with values of their own keep the name typed.
    assert.deepEqual(
      completions('cluster:C', () => [{ value: 'Cluster0', count: 1 }]).map((c) => c.insert),
      ['cluster:Cluster0'],
    );
  });
});

describe('lib/client/url-state with investigation filters', () => {
  it('round-trips every filter through the URL and maps it to the API', () => {
    const { filters } = applyQuery(
      NO_FILTERS,
      'actor:alice@example.com type:CLUSTER_CREATED cluster:Cluster0 ip:10.0.0.0/8 -type:DATA_EXPLORER words',
      CATALOGUE,
    );
    const view = { ...DEFAULT_VIEW, ...filters };
    const query = serializeEventsView(view, 'UTC');
    assert.equal(
      query,
      'types=CLUSTER_CREATED&excludeTypes=DATA_EXPLORER&clusterName=Cluster0&remoteAddress=10.0.0.0%2F8&actor=alice%40example.com&q=words',
    );
    assert.deepEqual(parseEventsView(new URLSearchParams(query), 'UTC'), view);
    const path = apiListPath(listParams('5f0000000000000000000001', view));
    assert.match(
      path,
      /eventType=CLUSTER_CREATED&excludeEventType=DATA_EXPLORER&clusterName=Cluster0&remoteAddress=10.0.0.0%2F8&actor=alice%40example.com&q=words&pageNum=1/,
    );
  });

  it('asks the facets and the histogram for the same filters and dates as the list', () => {
    const view = {
      ...DEFAULT_VIEW,
      actor: ['ada@example.com'],
      from: Date.UTC(2026, 0, 1),
      to: Date.UTC(2026, 0, 2) - 1,
    };
    const params = listParams('5f0000000000000000000001', view);
    const filters =
      'actor=ada%40example.com&minDate=2026-01-01T00%3A00%3A00Z&maxDate=2026-01-01T23%3A59%3A59.999Z';
    assert.ok(apiListPath(params).includes(`?${filters}&pageNum=1`));
    assert.ok(
      apiFacetsPath(params, ['actor', 'clusterName'], 10).endsWith(
        `/events/facets?${filters}&field=actor%2CclusterName&limit=10`,
      ),
    );
    assert.ok(apiHistogramPath(params, 200).endsWith(`/events/histogram?${filters}&buckets=200`));
  });

  it('a value with a comma or a backslash is one value: typed, in the URL, to the API', () => {
    const ldap = 'CN=Alice,OU=Eng,DC=example,DC=com';
    const typed = applyQuery(
      NO_FILTERS,
      `collection:"orders,2024" user:"${ldap}" actor:DOMAIN\\user db:sales\\,hr host:a,b`,
      CATALOGUE,
    );
    assert.deepEqual(typed.problems, []);
    const view = { ...DEFAULT_VIEW, ...typed.filters };
    assert.deepEqual(view.fields, {
      username: [ldap],
      database: ['sales,hr'],
      collection: ['orders,2024'],
      hostname: ['a', 'b'],
    });
    assert.deepEqual(view.actor, ['DOMAIN\\user']);
    // Shown unescaped, quoted as typed; the chip's text reads back as the same value.
    const chips = filterChips(view).map((chip) => chip.text);
    assert.ok(chips.includes('collection:"orders,2024"'), chips.join(' '));
    assert.deepEqual(applyQuery(NO_FILTERS, chips.join(' '), CATALOGUE).filters, typed.filters);
    const query = serializeEventsView(view, 'UTC');
    assert.match(query, /collection=orders%5C,2024(&|$)/);
    assert.match(query, /actor=DOMAIN%5Cuser(&|$)/);
    // Reload, back and a shared link read the same view.
    assert.deepEqual(parseEventsView(new URLSearchParams(query), 'UTC'), view);
    assert.deepEqual(notAppliedInUrl(new URLSearchParams(query), 'UTC'), []);
    const path = apiListPath(listParams('5f0000000000000000000001', view));
    assert.ok(path.includes(`collection=${encodeURIComponent('orders\\,2024')}&`), path);
    assert.ok(path.includes(`database=${encodeURIComponent('sales\\,hr')}&`), path);
    // Toggling a facet value with a comma filters on exactly it.
    assert.deepEqual(toggleChip(NO_FILTERS, 'clusterName', 'a,b').fields, { clusterName: ['a,b'] });
  });

  it('drops malformed filter values from the URL instead of failing', () => {
    const view = parseEventsView(
      new URLSearchParams(
        'remoteAddress=10.0.0.0/99,1.2.3.4&clusterName=,,&q=%20!!%20&excludeTypes=bad type',
      ),
      'UTC',
    );
    assert.deepEqual(view.fields, { remoteAddress: ['1.2.3.4'] });
    assert.equal(view.q, '');
    assert.deepEqual(view.excludeTypes, []);
  });
});

describe('lib/client/pivots', () => {
  const event = {
    id: '6a793fbd2c88faeba59bd3b5',
    created: '2026-01-01T00:00:00Z',
    eventTypeName: 'DATA_EXPLORER',
    username: 'ada@example.com',
    userId: '65a000000000000000000009',
    clusterName: 'Cluster0',
    groupId: '65a000000000000000000001',
    remoteAddress: '203.0.113.7',
    opType: 'find',
  };

  it('offers per column what the cell shows, and the whole event in the panel', () => {
    assert.deepEqual(
      columnPivots(event, 'actor').map((p) => [p.key, p.value]),
      [['actor', 'ada@example.com']],
    );
    assert.deepEqual(
      columnPivots(event, 'resource').map((p) => [p.key, p.value]),
      [
        ['clusterName', 'Cluster0'],
        ['groupId', '65a000000000000000000001'],
      ],
    );
    assert.deepEqual(
      columnPivots(event, 'remote').map((p) => p.value),
      ['203.0.113.7', '203.0.113.0/24'],
    );
    // A cell showing a cluster's or host's id (no name) offers that id.
    assert.deepEqual(
      columnPivots(
        { ...event, clusterName: undefined, clusterId: '65a00000000000000000000c', hostId: 'h-7' },
        'resource',
      ).map((p) => [p.key, p.value]),
      [
        ['clusterId', '65a00000000000000000000c'],
        ['hostId', 'h-7'],
        ['groupId', '65a000000000000000000001'],
      ],
    );
    assert.equal(columnPivots(event, 'target').length, 0);
    assert.equal(columnPivots(event, 'type')[0]!.canExclude, true);
    const all = eventPivots(event).map((p) => `${p.key}:${p.value}`);
    assert.ok(all.includes('opType:find'));
    assert.ok(all.includes('userId:65a000000000000000000009'));
    assert.ok(!all.includes('username:ada@example.com'), 'the actor stands for the username');
    assert.equal(networkOf('2001:db8:1:2::42'), '2001:db8:1::/48');
  });
});
