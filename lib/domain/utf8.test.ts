import assert from 'node:assert/strict';
import { test } from 'node:test';
import { Prng } from '@/lib/ingest/seed-prng';
import { decodeMarkingInvalid, hasLoneSurrogate, NOT_UTF8 } from './utf8';

test('well-formed UTF-8 decodes as it is, a BOM and U+FFFD sent as text included', () => {
  const text = '\ufeff{"username":"café €𝄞 \ufffd"}';
  assert.equal(decodeMarkingInvalid(Buffer.from(text, 'utf8')), text);
});

test('each byte that begins no UTF-8 sequence is marked: stray, overlong, surrogate, past U+10FFFF, cut short', () => {
  const cases: [number[], string][] = [
    [[0x61, 0xff, 0x62], `a${NOT_UTF8}b`],
    [[0xc0, 0xaf], NOT_UTF8.repeat(2)], // overlong "/"
    [[0xed, 0xa0, 0x80], NOT_UTF8.repeat(3)], // a surrogate
    [[0xf4, 0x90, 0x80, 0x80], NOT_UTF8.repeat(4)], // past U+10FFFF
    [[0xe2, 0x82, 0x41], `${NOT_UTF8.repeat(2)}A`], // "€" cut short
    [[0xe2, 0x82], NOT_UTF8.repeat(2)], // cut short at the end
    [[0xe9, 0x74, 0xe9], `${NOT_UTF8}t${NOT_UTF8}`], // Latin-1 "été"
  ];
  for (const [bytes, expected] of cases) {
    assert.equal(decodeMarkingInvalid(Buffer.from(bytes)), expected, bytes.join(' '));
  }
});

test('random bytes: marks stand exactly where a replacing decoder puts U+FFFD, and nowhere else', () => {
  const prng = new Prng('utf-8 marks');
  const pieces = ['a', '{', '"', 'é', '€', '𝄞', '\u07ff', '\uffef'].map((s) => Buffer.from(s));
  let checked = 0;
  while (checked < 2000) {
    const parts: Buffer[] = [];
    for (let i = prng.range(0, 12); i > 0; i--) {
      parts.push(prng.chance(0.6) ? prng.pick(pieces) : Buffer.from([prng.range(0x80, 0xff)]));
    }
    const bytes = Buffer.concat(parts);
    // A U+FFFD sent as text would be ambiguous in the comparison below.
    if (bytes.includes(Buffer.from('\ufffd'))) continue;
    checked++;
    const marked = decodeMarkingInvalid(bytes);
    // One U+FFFD per maximal subpart against one mark per byte: runs compare.
    assert.equal(
      marked.replace(/\udfff+/g, '#'),
      bytes.toString('utf8').replace(/\ufffd+/g, '#'),
      bytes.toString('hex'),
    );
  }
});

test('hasLoneSurrogate: half a surrogate pair, escaped or raw, in a value or a key, is found; whole pairs and look-alikes are not', () => {
  for (const json of [
    '{"a":"\\ud800lone"}',
    '{"a":"\\uDBFF"}',
    '{"a":"\\udc00"}',
    '{"a":"x\\ud83d"}',
    '{"a":"\\ud83d\\u0041"}',
    '{"a":"\\ud83d\\n"}',
    '{"a":"\\ud83d\\\\ude00"}',
    '{"a":"\\ud83d\\ud83d\\ude00"}',
    '{"\\udfff":1}',
    '{"a":"\ud800"}',
    '{"a":"\ud83d\\ude00"}',
  ]) {
    assert.equal(hasLoneSurrogate(json), true, json);
  }
  for (const json of [
    '{"a":"plain"}',
    '{"a":"\\ud83d\\ude00","b":"\\uD834\\uDD1E"}',
    '{"a":"😀 é \\u00e9 \\"\\\\"}',
    '{"a":"\\\\ud800"}',
  ]) {
    assert.equal(hasLoneSurrogate(json), false, json);
  }
});
