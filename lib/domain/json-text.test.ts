import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { generateEventBatches } from '@/lib/ingest/seed';
import { compactJson, objectMembers, prettyJson, spliceMembers } from './json-text';

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
});
