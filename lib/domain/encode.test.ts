import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import type { Variant } from '@/lib/config';
import { generateEvents } from '@/lib/ingest/seed';
import { typeMix } from '@/lib/ingest/seed-types';
import { parseDateTime } from './dates';
import { canonicalJson, cutCompactSorted, encodeEvent, encodeFromMembers } from './encode';
import { eventInputSchema, formatCreated, type NewEvent } from './event';

const ORG = '6a0a1b2c3d4e5f6a7b8c9d0e';
const OTHER_ORG = '6a0a1b2c3d4e5f6a7b8c9d0f';

describe('canonicalJson', () => {
  test('sorts keys at every depth, inside arrays too, and keeps array order', () => {
    assert.equal(
      canonicalJson({ b: 1, a: { d: [3, { z: 1, y: [{ q: 0, p: 1 }] }, 1], c: null } }),
      '{"a":{"c":null,"d":[3,{"y":[{"p":1,"q":0}],"z":1},1]},"b":1}',
    );
    assert.equal(canonicalJson([{ b: 2, a: 1 }, [], {}]), '[{"a":1,"b":2},[],{}]');
  });

  test('orders keys by UTF-16 code units, not by code points or locale', () => {
    // 'B' < 'a' < 'z' < 'é' (U+00E9) < '漢' (U+6F22) < '😀' (surrogates from
    // U+D83D) < '～' (U+FF5E): by code point the emoji (U+1F600) would come last.
    const keys = ['～', 'z', '😀', 'a', '漢', 'é', 'B'];
    const value = Object.fromEntries(keys.map((key, i) => [key, i]));
    assert.equal(canonicalJson(value), '{"B":6,"a":3,"z":1,"é":5,"漢":4,"😀":2,"～":0}');
  });

  test('writes strings as JSON.stringify does: escapes where needed, unicode verbatim', () => {
    const text = 'quote " backslash \\ tab \t newline \n é 漢 😀 \u2028 lone \ud800';
    assert.equal(canonicalJson({ s: text }), `{"s":${JSON.stringify(text)}}`);
    assert.equal(
      canonicalJson({ s: text }),
      '{"s":"quote \\" backslash \\\\ tab \\t newline \\n é 漢 😀 \u2028 lone \\ud800"}',
    );
  });

  test('writes numbers as JSON does, and non-finite ones as null', () => {
    assert.equal(
      canonicalJson({
        int: 65535,
        negative: -42,
        fraction: 0.1 + 0.2,
        small: 1.5e-7,
        large: 1e21,
        negativeZero: -0,
        nan: Number.NaN,
        infinity: Number.POSITIVE_INFINITY,
      }),
      '{"fraction":0.30000000000000004,"infinity":null,"int":65535,"large":1e+21,"nan":null,"negative":-42,"negativeZero":0,"small":1.5e-7}',
    );
  });

  test('integer-like keys come first, ascending, as JavaScript objects hold them', () => {
    assert.equal(canonicalJson({ b: 1, 10: 2, 2: 3, a: 4 }), '{"2":3,"10":2,"a":4,"b":1}');
  });

  test('drops undefined members like JSON.stringify, and converts a Date through toJSON', () => {
    assert.equal(canonicalJson({ b: undefined, a: 1 }), '{"a":1}');
    assert.equal(canonicalJson({ at: new Date(0) }), '{"at":"1970-01-01T00:00:00.000Z"}');
  });
});

/**
 * The reference encoding, written independently of encode.ts: a JSON round
 * trip, then every object rebuilt from its entries sorted by key. Slow and
 * obvious on purpose.
 */
function referenceSort(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(referenceSort);
  if (value !== null && typeof value === 'object') {
    const entries = Object.entries(value).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return Object.fromEntries(entries.map(([key, inner]) => [key, referenceSort(inner)]));
  }
  return value;
}

function referenceEncode(orgId: string, record: unknown): NewEvent {
  const copy = JSON.parse(JSON.stringify(record)) as Record<string, unknown>;
  const { raw, links: _links, ...fields } = copy;
  const created = parseDateTime(fields.created as string)!;
  fields.orgId = orgId;
  fields.created = formatCreated(created);
  return {
    id: fields.id as string,
    created,
    eventTypeName: fields.eventTypeName as string,
    doc: JSON.stringify(referenceSort(fields)),
    raw: raw === undefined || raw === null ? null : JSON.stringify(raw),
  };
}

function assertMatchesReference(orgId: string, records: readonly unknown[]): void {
  records.forEach((record, i) => {
    const input = eventInputSchema.parse(record);
    assert.deepEqual(encodeEvent(orgId, input), referenceEncode(orgId, record), `record ${i}`);
  });
}

describe('encodeEvent', () => {
  for (const [variant, count] of [
    // Enough for this seed to reach every type (the rarest first shows after ~10,200).
    ['hosted', 15_000],
    ['self-hosted', 15_000],
  ] as const satisfies readonly (readonly [Variant, number])[]) {
    test(`equals the reference encoding on seeded ${variant} events of every type`, () => {
      const records = [
        ...generateEvents({
          orgId: ORG,
          count,
          seed: 7,
          variant,
          from: Date.UTC(2026, 0, 1),
          to: Date.UTC(2026, 3, 1),
        }),
      ];
      const seen = new Set(records.map((record) => record.eventTypeName));
      const missing = typeMix(variant)
        .map((spec) => spec.type)
        .filter((type) => !seen.has(type));
      assert.deepEqual(missing, [], 'the sample covers every type the generator makes');
      assertMatchesReference(ORG, records);
    });
  }

  test('equals the reference encoding on the import fixtures, tricky ones included', () => {
    // The same records lib/ingest/import.test.ts imports, and its tricky variant.
    const events = [
      ...generateEvents({
        orgId: ORG,
        count: 1200,
        seed: 'import',
        from: Date.UTC(2026, 1, 1),
        to: Date.UTC(2026, 2, 1),
      }),
    ];
    const tricky = events.slice(0, 40).map((e, i) => ({
      ...e,
      collection: `we\\ird "name" ]}{[, \u00e9\u6f22\ud83d\ude00 #${i}`,
      raw: { note: 'ends with a backslash \\', nested: { list: [1, '[', { a: '}' }] } },
    }));
    assertMatchesReference(ORG, events);
    assertMatchesReference(ORG, tricky);
    // Rehomed: another org's export lands with this org's id.
    assertMatchesReference(
      ORG,
      events.slice(0, 50).map((e) => ({ ...e, orgId: OTHER_ORG })),
    );
  });

  test('equals the reference encoding on hand-made records the generator never makes', () => {
    const records = [
      // No orgId, an offset and milliseconds on created, links to drop, raw null.
      {
        id: '65a0000000000000000000aa',
        created: '2026-02-01T01:30:00.250+01:00',
        eventTypeName: 'JOINED_ORG',
        links: [{ href: 'https://elsewhere/events/1', rel: 'self' }],
        raw: null,
      },
      // Delegated access nested three deep; unknown fields with nested objects and arrays.
      {
        zeta: { y: [{ b: 1, a: 2 }], x: 'é' },
        id: '65a0000000000000000000ab',
        eventTypeName: 'API_KEY_CREATED',
        created: '2026-02-01',
        delegatePrincipal: {
          onBehalfOf: { onBehalfOf: { name: 'root', id: '1' }, name: 'mid' },
          name: 'app',
        },
        alpha: [3, 2, 1],
        currentValue: { units: 'RAW', number: 7 },
        raw: { z: 1, a: { y: 2, b: 3 } },
      },
    ];
    assertMatchesReference(ORG, records);
    // The raw document keeps the sender's key order; the public fields do not.
    const encoded = encodeEvent(ORG, eventInputSchema.parse(records[1]));
    assert.equal(encoded.raw, '{"z":1,"a":{"y":2,"b":3}}');
    assert.ok(encoded.doc.startsWith('{"alpha":[3,2,1],"created":"2026-02-01T00:00:00Z",'));
  });
});

describe('encodeEvent from the source text', () => {
  test('equals the object encoding for sorted records (every seeded event type)', () => {
    const seeded = [...generateEvents({ orgId: ORG, count: 2000, seed: 'text-path' })].map(
      (event) => JSON.parse(JSON.stringify(event)) as Record<string, unknown>,
    );
    for (const record of seeded) {
      const input = eventInputSchema.parse(record);
      assert.deepEqual(encodeEvent(ORG, input, JSON.stringify(record)), encodeEvent(ORG, input));
    }
  });

  test('keeps values as written where the object encoding cannot', () => {
    const text =
      '{"id":"6a0000000000000000000001","created":"2026-02-01T12:00:00+02:00","eventTypeName":"JOINED_ORG","x":{"b":1.0,"a":9007199254740993},"links":[],"raw":{"2":0,"1":1.50}}';
    const input = eventInputSchema.parse(JSON.parse(text));
    const encoded = encodeEvent(ORG, input, text);
    assert.equal(
      encoded.doc,
      `{"created":"2026-02-01T10:00:00Z","eventTypeName":"JOINED_ORG","id":"6a0000000000000000000001","orgId":"${ORG}","x":{"b":1.0,"a":9007199254740993}}`,
    );
    assert.equal(encoded.raw, '{"2":0,"1":1.50}');
    assert.equal(encodeEvent(ORG, input).raw, '{"1":1.5,"2":0}');
  });

  test('where the fast cut takes a record (compact, keys in order, orgId and created as stored) it equals the general path; both paths run on many shapes', () => {
    let seed = 11;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const records = [...generateEvents({ orgId: ORG, count: 3000, seed: 'fast-cut' })].map(
      (event) => JSON.parse(JSON.stringify(event)) as Record<string, unknown>,
    );
    let cut = 0;
    let declined = 0;
    let rehomedCut = 0;
    for (const [i, original] of records.entries()) {
      const record: Record<string, unknown> = { ...original };
      // Shapes the fast cut must handle, or decline, each in some records.
      if (i % 5 === 1) record.links = [{ href: 'https://example.com/x', rel: 'self' }];
      if (i % 7 === 2) record.raw = null;
      if (i % 11 === 3) delete record.raw;
      if (i % 13 === 4) record.orgId = OTHER_ORG; // rehomed: orgId rewritten
      if (i % 17 === 5) delete record.orgId; // orgId added
      if (i % 19 === 6)
        record.created = formatCreated(parseDateTime(String(record.created))!).replace(
          'Z',
          '+00:00',
        );
      let keys = Object.keys(record);
      // Shuffled, sorted (links and raw in their alphabetical places), or as generated.
      if (i % 3 === 0) keys = keys.sort(() => random() - 0.5);
      else if (i % 3 === 1) keys = keys.sort();
      const ordered = Object.fromEntries(keys.map((key) => [key, record[key]]));
      let text = JSON.stringify(ordered);
      if (i % 23 === 7) text = JSON.stringify(ordered, null, pick([1, 2, '\t']));
      if (i % 29 === 8) text = text.replace('"id":', '"\\u0069d":'); // an escaped key
      if (i % 31 === 9) text = text.replace(/"raw":\{/, '"raw":{"big":9007199254740993,"one":1.0,');
      if (i % 37 === 10) text = ` ${text}`;
      if (i % 41 === 11) text = text.replace('","', '", "');
      if (i % 47 === 13) text = text.replace(/"raw":\{"/, '"raw":{ "'); // space inside a value
      if (i % 43 === 12) text = text.replace(/\}$/, ',"raw":{}}'); // raw twice
      const input = eventInputSchema.parse(JSON.parse(text));
      const created = parseDateTime(input.created)!;
      let expected: NewEvent | Error;
      try {
        expected = encodeFromMembers(ORG, input, created, text);
      } catch (error) {
        expected = error as Error;
      }
      const fast = cutCompactSorted(ORG, text);
      if (fast === undefined) {
        declined++;
        continue;
      }
      cut++;
      if (record.orgId === OTHER_ORG) rehomedCut++;
      assert.ok(
        !(expected instanceof Error),
        `record ${i} cut where the general path fails: ${text}`,
      );
      assert.deepEqual(fast, { doc: expected.doc, raw: expected.raw }, `record ${i}: ${text}`);
    }
    // Both paths ran often: the test proves nothing if one of them never does.
    assert.ok(cut > 1000 && declined > 1000, `${cut} cut, ${declined} declined`);
    // Another org's records (a rehomed import) are cut too, their orgId replaced.
    assert.ok(rehomedCut > 50, `${rehomedCut} rehomed records cut`);
  });
});
