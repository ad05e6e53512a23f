import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateEvents } from '@/lib/ingest/seed';
import { eventInputSchema, isValidEventInput, nestingProblem } from './event';

const events = [
  ...generateEvents({ orgId: '6a0a1b2c3d4e5f6a7b8c9d0e', count: 400, seed: 'event-check' }),
].map((event) => JSON.parse(JSON.stringify(event)) as Record<string, unknown>);

/** Values of every JSON type and shape a field may wrongly (or rightly) hold. */
const PROBES: unknown[] = [
  null,
  true,
  false,
  0,
  -1,
  1.5,
  27017,
  70000,
  'text',
  '',
  '27017',
  '65535',
  '65536',
  '99999',
  '1.0',
  '-2.5e3',
  'x1',
  '6a0a1b2c3d4e5f6a7b8c9d0e',
  'JOINED_ORG',
  'joined',
  '2026-01-01T00:00:00Z',
  '2026-13-45',
  [],
  [1],
  {},
  { number: 1, units: 'RAW' },
  { number: '2.50', units: 'million tokens' },
  { number: 'lots' },
  { number: null, units: null, extra: 1 },
  { units: 5 },
  { id: 'p', name: 'n', onBehalfOf: { id: 'q' } },
  { id: 'p', onBehalfOf: { name: 7 } },
  { id: 1 },
  { _t: 'X', nested: [1, { a: null }] },
];

const FIELDS = [...Object.keys(eventInputSchema.shape), 'somethingNew'] as const;

describe('isValidEventInput', () => {
  test('agrees with eventInputSchema on every seeded event', () => {
    for (const event of events) {
      assert.equal(isValidEventInput(event), eventInputSchema.safeParse(event).success);
      assert.equal(isValidEventInput(event), true);
    }
  });

  test('agrees with eventInputSchema for every field set to every probe value, and for missing fields', () => {
    let refused = 0;
    for (const [i, field] of FIELDS.entries()) {
      const base = events[i % events.length]!;
      for (const probe of PROBES) {
        const value = { ...base, [field]: probe };
        const expected = eventInputSchema.safeParse(value).success;
        assert.equal(isValidEventInput(value), expected, `${field} = ${JSON.stringify(probe)}`);
        if (!expected) refused++;
      }
      const { [field]: _, ...without } = base;
      assert.equal(
        isValidEventInput(without),
        eventInputSchema.safeParse(without).success,
        `${field} missing`,
      );
    }
    assert.ok(refused > 100, `${refused} probes refused`);
  });

  test('a port is 0 to 65535, as a number or as a string of digits', () => {
    const base = events[0]!;
    for (const [port, valid] of [
      [0, true],
      [65535, true],
      [65536, false],
      ['0', true],
      ['27017', true],
      ['65535', true],
      ['65536', false],
      ['99999', false],
      ['-1', false],
      ['80.0', false],
      [27017.5, false],
      [-1, false],
      [Infinity, false],
      [true, false],
    ] as const) {
      const value = { ...base, port };
      assert.equal(isValidEventInput(value), valid, JSON.stringify(port));
      const parsed = eventInputSchema.safeParse(value);
      assert.equal(parsed.success, valid, JSON.stringify(port));
      // One message however it is wrong (an import reports it with the record).
      if (!parsed.success) {
        assert.deepEqual(
          parsed.error.issues.map((issue) => [issue.path.join('.'), issue.message]),
          [['port', 'port must be an integer from 0 to 65535']],
          String(port),
        );
      }
    }
  });

  test('agrees on the mutually exclusive pairs and on values that are not objects', () => {
    const base = events[0]!;
    for (const extra of [
      { apiKeyId: 'a', userId: 'b' },
      { apiKeyId: null, userId: 'b' },
      { publicKey: 'k', username: 'u' },
      { publicKey: 'k', username: null },
    ]) {
      const value = {
        ...base,
        apiKeyId: undefined,
        userId: undefined,
        publicKey: undefined,
        username: undefined,
        ...extra,
      };
      for (const key of Object.keys(value))
        if (value[key as keyof typeof value] === undefined) delete value[key as keyof typeof value];
      assert.equal(
        isValidEventInput(value),
        eventInputSchema.safeParse(value).success,
        JSON.stringify(extra),
      );
    }
    for (const value of [null, [], 'event', 1, [base]]) {
      assert.equal(isValidEventInput(value), false);
      assert.equal(eventInputSchema.safeParse(value).success, false);
    }
  });
});

describe('nestingProblem', () => {
  /** An object `levels` deep: objects and arrays taking turns, a string of brackets at the bottom. */
  function nested(levels: number): unknown {
    let value: unknown = '[[{{';
    for (let level = levels; level >= 1; level--) value = level % 2 ? { a: value } : [value];
    return value;
  }

  test('100 levels pass and 101 do not, read from the text and from the value alike', () => {
    for (const [levels, tooDeep] of [
      [1, false],
      [100, false],
      [101, true],
      [20_000, true],
    ] as const) {
      const value = nested(levels);
      // Built by hand: JSON.stringify recurses, and overflows at depths like the last.
      const text = `${'{"a":['.repeat(Math.floor(levels / 2))}${levels % 2 ? '{"a":' : ''}"[[{{"${
        levels % 2 ? '}' : ''
      }${']}'.repeat(Math.floor(levels / 2))}`;
      if (levels < 1000) assert.equal(text, JSON.stringify(value));
      for (const problem of [nestingProblem(value, undefined), nestingProblem(value, text)]) {
        assert.equal(problem !== undefined, tooDeep, `${levels} levels`);
      }
    }
  });
});
