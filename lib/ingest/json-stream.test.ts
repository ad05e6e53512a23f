import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type ArrayElement,
  JsonArraySplitter,
  JsonStructureError,
  LineSplitter,
  type LineRecord,
} from './json-stream';

/** Every element of `text` fed in chunks of `size` characters. */
function split(text: string, size: number): { elements: ArrayElement[]; path?: string } {
  const splitter = new JsonArraySplitter();
  const elements: ArrayElement[] = [];
  for (let i = 0; i < text.length; i += size)
    elements.push(...splitter.push(text.slice(i, i + size)));
  splitter.end();
  return { elements, path: splitter.path };
}

/** The line (from 1) on which `text` has its `offset`-th character. */
function lineAt(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

describe('JsonArraySplitter', () => {
  // Records with what a character-level scan can trip on: escaped quotes and
  // backslashes, brackets and commas inside strings, nested arrays and
  // objects, empty containers, numbers as written.
  const records: unknown[] = [
    { id: 'a', raw: { text: 'say "hi" \\ [not] {an} , array', list: [1, [2, [3]], {}, []] } },
    { id: 'b', n: 1.5, nested: { deeper: { deepest: ['}', ']', '\\', '"'] } } },
    { id: 'c', empty: {}, none: null, flag: false },
    ['an', { array: 'element' }],
    'a string element with \\"quotes\\"',
    42,
  ];

  test('finds the same elements, with their lines, however the text is cut into chunks', () => {
    const documents = [
      JSON.stringify({ links: [], results: records, totalCount: records.length }),
      JSON.stringify({ results: records }, null, 2),
      JSON.stringify({ status: 200, content: { results: records } }, null, '\t'),
      JSON.stringify(records, null, 1),
    ];
    for (const document of documents) {
      const whole = split(document, document.length);
      assert.deepEqual(
        whole.elements.map((element) => JSON.parse(element.text) as unknown),
        records,
      );
      for (const element of whole.elements) {
        const offset = document.indexOf(element.text);
        assert.ok(offset >= 0, `${element.text} is cut from the document as written`);
        assert.equal(element.line, lineAt(document, offset), element.text);
      }
      for (let size = 1; size <= 40; size++) {
        assert.deepEqual(split(document, size), whole, `chunks of ${size}`);
      }
    }
  });

  test('a backslash ending a chunk inside a string escapes what follows, in every position', () => {
    const document = JSON.stringify({ results: [{ a: 'x\\"y\\\\', b: ['\\\\"'] }, { c: 1 }] });
    const expected = split(document, document.length);
    assert.equal(expected.elements.length, 2);
    for (let cut = 1; cut < document.length; cut++) {
      const splitter = new JsonArraySplitter();
      const elements = [
        ...splitter.push(document.slice(0, cut)),
        ...splitter.push(document.slice(cut)),
      ];
      splitter.end();
      assert.deepEqual(elements, expected.elements, `cut at ${cut}`);
    }
  });

  test('a bracket of the wrong kind inside a record is broken structure, with its line', () => {
    for (const size of [1, 7, 1000]) {
      assert.throws(
        () => split('{"results": [\n{"a": 1},\n{"b": [1, 2}\n]}', size),
        (error: unknown) =>
          error instanceof JsonStructureError && /Unexpected '}' \(line 3\)/.test(error.message),
        `chunks of ${size}`,
      );
    }
  });
});

/** Every line of `text` fed in chunks of `size` characters, lines over `maxChars` only measured. */
function lines(text: string, size: number, maxChars: number): LineRecord[] {
  const splitter = new LineSplitter(maxChars);
  const records: LineRecord[] = [];
  for (let i = 0; i < text.length; i += size)
    records.push(...splitter.push(text.slice(i, i + size)));
  const last = splitter.end();
  if (last) records.push(last);
  return records;
}

describe('LineSplitter', () => {
  const text = ['{"a":1}', '{"b":"two"}\r', '', 'x'.repeat(40), '{"c":[3]}', 'y'.repeat(25)].join(
    '\n',
  );

  test('gives the same lines, CRLF and blank ones included, however the text is cut into chunks', () => {
    const expected: LineRecord[] = [
      { text: '{"a":1}', line: 1 },
      { text: '{"b":"two"}', line: 2 },
      { text: '', line: 3 },
      { text: 'x'.repeat(40), line: 4 },
      { text: '{"c":[3]}', line: 5 },
      { text: 'y'.repeat(25), line: 6 },
    ];
    for (let size = 1; size <= text.length; size++) {
      assert.deepEqual(lines(text, size, Infinity), expected, `chunks of ${size}`);
    }
  });

  test('measures a line longer than the limit instead of holding it, wherever the chunks cut it', () => {
    for (let size = 1; size <= text.length; size++) {
      const records = lines(text, size, 30);
      assert.deepEqual(records[3], { text: '', line: 4, oversize: 40 }, `chunks of ${size}`);
      assert.deepEqual(records[4], { text: '{"c":[3]}', line: 5 }, `chunks of ${size}`);
      assert.deepEqual(records[5], { text: 'y'.repeat(25), line: 6 }, `chunks of ${size}`);
      assert.equal(records.length, 6);
    }
  });
});
