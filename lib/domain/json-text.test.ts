import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateEventBatches } from '@/lib/ingest/seed';
import {
  compactJson,
  objectMembers,
  prettyJson,
  spliceMembers,
  CompactJsonChecker,
  hasControlCharacter,
  type JsonSource,
  parseJsonSource,
  sourceMember,
} from './json-text';

const seeded = [
  ...generateEventBatches({ orgId: '6a0a1b2c3d4e5f6a7b8c9d0e', count: 300, seed: 'text' }),
].flat();
/** Stored documents (top-level keys sorted) and raw documents (any order). */
const docs = seeded.flatMap((event) => [event.doc, ...(event.raw === null ? [] : [event.raw])]);

describe('json-text', () => {
  test('prettyJson writes what JSON.stringify(value, null, 2) writes, for every seeded document', () => {
    for (const doc of docs) assert.equal(prettyJson(doc), JSON.stringify(JSON.parse(doc), null, 2));
    for (const edge of ['{}', '[]', '{"a":[],"b":{},"c":[{}]}', '"x"', '[1,"a,b:{c}"]']) {
      assert.equal(prettyJson(edge), JSON.stringify(JSON.parse(edge), null, 2), edge);
    }
  });

  test('prettyJson and compactJson keep numbers, escapes and key order as written', () => {
    const text = '{"b":9007199254740993,"a":[1.0,-0.0,1E+2],"10":"\\u00e9 \\" , : {"}';
    const pretty = prettyJson(text);
    assert.equal(
      pretty,
      '{\n  "b": 9007199254740993,\n  "a": [\n    1.0,\n    -0.0,\n    1E+2\n  ],\n  "10": "\\u00e9 \\" , : {"\n}',
    );
    assert.equal(compactJson(pretty), text);
  });

  test('objectMembers: top-level members in written order, values compacted, escaped keys decoded', () => {
    const members = objectMembers('{ "b" : [ 1 , 2 ] ,\n "a\\u0062": { "x": "a b" }, "c":null }');
    assert.deepEqual(members, [
      { key: 'b', keyText: '"b"', value: '[1,2]' },
      { key: 'ab', keyText: '"a\\u0062"', value: '{"x":"a b"}' },
      { key: 'c', keyText: '"c"', value: 'null' },
    ]);
    assert.deepEqual(objectMembers(' {} '), []);
  });

  test('spliceMembers inserts in sorted place and drops named members', () => {
    const doc = '{"a":1,"m":{"links":2},"z":"raw"}';
    assert.equal(
      spliceMembers(doc, [
        ['links', '[]'],
        ['raw', '{}'],
      ]),
      '{"a":1,"links":[],"m":{"links":2},"raw":{},"z":"raw"}',
    );
    assert.equal(
      spliceMembers(doc, [['zz', '0']], new Set(['a', 'z'])),
      '{"m":{"links":2},"zz":0}',
    );
    assert.equal(spliceMembers('{}', [['links', '[]']]), '{"links":[]}');
    for (const { doc } of seeded) {
      const spliced = spliceMembers(doc, [['links', '[]']]);
      const keys = Object.keys(JSON.parse(spliced) as object);
      assert.deepEqual(keys, [...keys].sort());
    }
  });

  test('spliceMembers places each insertion as `<` orders keys: prefixes, non-ASCII and escaped keys, escapes before and after', () => {
    // Keys around 'links' and 'raw' as a document may hold them, written
    // plainly or escaped (then decoded before comparing). Each document's
    // keys are sorted by their decoded text, as stored documents are.
    const keys = [
      'link',
      'links',
      'linksA',
      'linkt',
      'Links',
      'l\\u0069nkz',
      'ra',
      'raw0',
      'räw',
      'r\\"',
      '\\u00e9',
    ];
    const decode = (key: string) => JSON.parse(`"${key}"`) as string;
    const sorted = [...keys].sort((a, b) => (decode(a) < decode(b) ? -1 : 1));
    const insert: [string, string][] = [
      ['links', '[]'],
      ['raw', '{}'],
    ];
    for (let from = 0; from < sorted.length; from++) {
      for (const value of ['1', '"a\\\\"', '{"x":"\\u0041"}']) {
        const members = sorted.slice(from).filter((key) => !['links', 'raw'].includes(decode(key)));
        const doc = `{${members.map((key) => `"${key}":${value}`).join(',')}}`;
        const spliced = spliceMembers(doc, insert);
        const expectedKeys = [...members.map(decode), 'links', 'raw'].sort((x, y) =>
          x < y ? -1 : 1,
        );
        const parsed = JSON.parse(spliced) as Record<string, unknown>;
        assert.deepEqual(Object.keys(parsed), expectedKeys, doc);
        assert.deepEqual(parsed.links, []);
        assert.deepEqual(parsed.raw, {});
        for (const key of members) assert.deepEqual(parsed[decode(key)], JSON.parse(value));
        // The document's own members as written (escapes and all).
        for (const key of members) assert.ok(spliced.includes(`"${key}":${value}`), key);
      }
    }
  });

  test('CompactJsonChecker (on texts without control characters) accepts exactly the compact texts JSON.parse accepts, on thousands of broken ones too', () => {
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    // Characters a break is made of: JSON's structure, literals' letters,
    // number parts, escapes, control characters, whitespace, non-ASCII.
    const breaks = [
      ...'{}[]":,\\/tfnulrsea0123456789-+.eEbux ',
      '\t',
      '\n',
      '\u0000',
      '\u001f',
      'é',
      '\ud800',
    ];
    const edges = [
      '0',
      '-0',
      '01',
      '-',
      '1.',
      '.5',
      '1e',
      '1e+',
      '1E-2',
      '-0.0e0',
      '+1',
      'NaN',
      'Infinity',
      'true',
      'tru',
      'truex',
      'null',
      'nul',
      'false',
      '"',
      '""',
      '"\\"',
      '"\\u12"',
      '"\\u12g4"',
      '"\\x"',
      '"a\tb"',
      '"\\u00e9"',
      '[]',
      '[,]',
      '[1,]',
      '[1 ]',
      '{}',
      '{,}',
      '{"a":}',
      '{"a"1}',
      '{"a":1,}',
      '{"a":1}x',
      '{"a":[1,{"b":null}]}',
      '[[[[]]]]',
      '[[[[]]]',
      '"\ud800"',
      '1 ',
    ];
    const texts = [...edges, ...docs.slice(0, 300)];
    for (const doc of docs.slice(0, 300)) {
      for (let k = 0; k < 10; k++) {
        const at = Math.floor(random() * doc.length);
        const edit = random();
        texts.push(
          edit < 0.4
            ? doc.slice(0, at) + doc.slice(at + 1) // a character dropped
            : edit < 0.8
              ? doc.slice(0, at) + pick(breaks) + doc.slice(at) // one put in
              : doc.slice(0, at), // cut short
        );
      }
    }
    let valid = 0;
    let invalid = 0;
    for (const text of texts) {
      let parses = true;
      try {
        JSON.parse(text);
      } catch {
        parses = false;
      }
      const checker = new CompactJsonChecker();
      const accepted =
        !hasControlCharacter(text) && checker.reset(text).valueEnd(0) === text.length;
      // Compact: whitespace only inside strings (compactJson keeps such a text as it is).
      const compact = parses && compactJson(text) === text;
      assert.equal(accepted, compact, JSON.stringify(text));
      if (accepted) valid++;
      else if (!parses) invalid++;
    }
    // Both verdicts are common, or the comparison proves little.
    assert.ok(valid > 1000 && invalid > 1000, `${valid} valid, ${invalid} invalid`);
    // Nesting deeper than the stack: declined, never thrown.
    const deep = '['.repeat(200_000) + ']'.repeat(200_000);
    assert.equal(new CompactJsonChecker().reset(deep).valueEnd(0), -1);
  });
  test('parseJsonSource keeps every literal, member order and repeated key as written', () => {
    const text =
      '{ "b": 9007199254740993, "2": 1.0, "1": -0.0, "e": 1e400, "s": "\\u00e9\\"", "b": [true, null, {}], "d": 0.1000000000000000055511151231257827 }';
    const tree = parseJsonSource(text);
    assert.equal(tree.kind, 'object');
    assert.equal(tree.text, text.trim());
    if (tree.kind !== 'object') return;
    assert.deepEqual(
      tree.members.map((m) => [m.key, m.value.text]),
      [
        ['b', '9007199254740993'],
        ['2', '1.0'],
        ['1', '-0.0'],
        ['e', '1e400'],
        ['s', '"\\u00e9\\""'],
        ['b', '[true, null, {}]'],
        ['d', '0.1000000000000000055511151231257827'],
      ],
    );
    assert.equal(
      sourceMember(tree, 'b')?.kind,
      'array',
      'the last of a repeated key, as JSON.parse keeps',
    );
    assert.throws(() => parseJsonSource('{"a":1,}'));
    assert.throws(() => parseJsonSource('[1] 2'));
  });

  test('parseJsonSource agrees with JSON.parse on random documents, written compact and spaced', () => {
    let seed = 7;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const value = (depth: number): unknown => {
      const r = random();
      if (depth > 3 || r < 0.4) {
        return [null, true, false, Math.floor(random() * 1e6) / 100, -random(), 'x"\\\u00e9', ''][
          Math.floor(random() * 7)
        ];
      }
      if (r < 0.7) return Array.from({ length: Math.floor(random() * 4) }, () => value(depth + 1));
      return Object.fromEntries(
        Array.from({ length: Math.floor(random() * 4) }, (_, i) => [`k${i}`, value(depth + 1)]),
      );
    };
    /** The value a source tree stands for (each scalar through JSON.parse of its own text). */
    const valueOf = (node: JsonSource): unknown =>
      node.kind === 'object'
        ? Object.fromEntries(node.members.map((m) => [m.key, valueOf(m.value)]))
        : node.kind === 'array'
          ? node.items.map(valueOf)
          : JSON.parse(node.text);
    for (let i = 0; i < 500; i++) {
      const v = value(0);
      for (const text of [JSON.stringify(v), JSON.stringify(v, null, i % 2 ? 2 : '\t')]) {
        const tree = parseJsonSource(text);
        assert.deepEqual(valueOf(tree), JSON.parse(text), text);
        assert.equal(tree.text, text);
      }
    }
  });
});
