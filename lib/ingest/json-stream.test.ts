import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import {
  type ArrayElement,
  concatenatedDocuments,
  JsonArraySplitter,
  JsonStructureError,
  LineSplitter,
  type LineRecord,
  NotAListError,
  RepeatedListKeyError,
  recordsPath,
  TwoListsError,
} from './json-stream';
import { Prng } from './seed-prng';

/** Every element of `text` fed in chunks of `size` characters. */
function split(text: string, size: number): { elements: ArrayElement[]; path?: string } {
  const splitter = new JsonArraySplitter();
  const elements: ArrayElement[] = [];
  for (let i = 0; i < text.length; i += size)
    elements.push(...splitter.push(text.slice(i, i + size)));
  splitter.end();
  return { elements, path: splitter.path };
}

/** Each text, split in chunks of 1, 2, 7 and 1000 characters, is refused as broken structure with its message. */
function refusedInEveryChunking(
  cases: readonly (readonly [text: string, message: string])[],
): void {
  for (const [text, message] of cases) {
    for (const size of [1, 2, 7, 1000]) {
      assert.throws(
        () => split(text, size),
        (error: unknown) => error instanceof JsonStructureError && error.message === message,
        `${text} in chunks of ${size}`,
      );
    }
  }
}

/** The line (from 1) on which `text` has its `offset`-th character. */
function lineAt(text: string, offset: number): number {
  return text.slice(0, offset).split('\n').length;
}

/**
 * Random cuts of `text`: mostly a few characters to a few thousand, so an
 * element or line may end in the chunk it began in or span many.
 */
function randomChunks(random: Prng, text: string): string[] {
  const chunks: string[] = [];
  for (let i = 0; i < text.length; ) {
    const size = random.chance(0.2)
      ? random.range(1, 3)
      : random.chance(0.5)
        ? random.range(1, 40)
        : random.range(1, 4000);
    chunks.push(text.slice(i, i + size));
    i += size;
  }
  return chunks;
}

/** What a character-level scan can trip on, for random strings (keys included). */
const TRICKY = [
  '"',
  '\\',
  '[',
  ']',
  '{',
  '}',
  ',',
  ':',
  '\n',
  '\r',
  '\t',
  ' ',
  'a',
  'é',
  '😀',
  '\u2028',
];
const TRICKY_WORDS = [...TRICKY, 'results', 'content', '\\"', '\\\\'];

function randomText(random: Prng): string {
  let text = '';
  for (let n = random.int(12); n > 0; n--) text += random.pick(TRICKY_WORDS);
  return text;
}

/** A random JSON value, nested up to four levels, whose keys include `results` and `content`. */
function randomValue(random: Prng, depth = 0): unknown {
  const r = random.float();
  if (depth > 3 || r < 0.3) {
    return random.pick([
      () => randomText(random),
      () => random.range(-500_000, 500_000),
      () => random.float() * 100,
      () => null,
      () => random.chance(0.5),
    ])();
  }
  if (r < 0.65) {
    const object: Record<string, unknown> = {};
    for (let n = random.int(5); n > 0; n--) {
      object[random.pick(['results', 'content', 'a', randomText(random)])] = randomValue(
        random,
        depth + 1,
      );
    }
    return object;
  }
  return Array.from({ length: random.int(5) }, () => randomValue(random, depth + 1));
}

function stripCr(text: string): string {
  return text.endsWith('\r') ? text.slice(0, -1) : text;
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

  test("the records array's key, or the content holding it, named twice is refused: JSON.parse would take the other list", () => {
    for (const text of [
      '{"results": [{"a": 1}],\n"results": [{"b": 2}]}',
      '{"results": [], "r\\u0065sults": [{"b": 2}]}',
      '{"content": {"results": [{"a": 1}], "results": []}}',
      '{"content": {"results": [{"a": 1}]}, "content": {}}',
    ]) {
      for (const size of [1, 5, 1000]) {
        assert.throws(
          () => split(text, size),
          (error: unknown) =>
            error instanceof RepeatedListKeyError &&
            /^"(results|content)" appears twice in one object: which list of records is meant is unclear \(line \d\)$/.test(
              error.message,
            ),
          `${text} in chunks of ${size}`,
        );
      }
    }
    // The same names elsewhere are no second list.
    for (const text of [
      '{"results": [{"results": [], "results": []}], "links": {"results": 1, "results": 2}}',
      '{"id": "x", "results": [1], "results": [2]}',
    ]) {
      assert.doesNotThrow(() => split(text, 3), text);
    }
  });

  test('an envelope holding both a results list and a content.results one is refused, in either order, with the line the second opens on', () => {
    for (const text of [
      '{"content": {"results": [1]},\n"results": [2]}',
      '{"results": [2], "content":\n{"results": []}}',
      '{"content": {"x": 1, "results": [1]}, "links": [], "results": []}',
    ]) {
      for (const size of [1, 5, 1000]) {
        assert.throws(
          () => split(text, size),
          (error: unknown) =>
            error instanceof TwoListsError &&
            error.message ===
              'the object holds both a "results" list and a "content.results" list: which list of records is meant is unclear (line ' +
                `${text.includes('\n') ? 2 : 1})`,
          `${text} in chunks of ${size}`,
        );
      }
    }
    // Not a second list: not an array, not at the envelope's level, or the root is an event.
    for (const text of [
      '{"content": {"results": [1]}, "results": {"a": [2]}}',
      '{"results": [1], "content": {"results": 2, "more": {"results": []}}}',
      '{"results": [{"content": {"results": []}}], "meta": {"results": []}}',
      '{"id": "x", "content": {"results": [1]}, "results": [2]}',
      '[{"results": []}, {"content": {"results": []}}]',
    ]) {
      assert.doesNotThrow(() => split(text, 3), text);
    }
  });

  test('recordsPath names the list the splitter reads, for each shape', () => {
    for (const text of [
      '[1]',
      '{"results": [1]}',
      '{"status": 200, "content": {"results": [1]}}',
      '{"results": null, "content": {"results": [1]}}',
      '{"content": {"results": [1]}, "results": {"a": [2]}}',
    ]) {
      assert.equal(recordsPath(JSON.parse(text)), split(text, 4).path, text);
    }
    for (const value of [
      { id: 'x', results: [] },
      { eventTypeName: 'X', content: { results: [] } },
      // envelope=true around one event with a field of its own named results.
      { status: 200, content: { results: [], id: 'x' } },
      1,
      null,
      {},
    ]) {
      assert.equal(recordsPath(value), undefined, JSON.stringify(value));
    }
  });

  test('an object key holding a raw control character or an unknown escape is broken structure, with its line', () => {
    for (const text of ['{"resu\nlts": []}', '{"a\\q": [], "results": []}', '{\n"a\tb": 1}']) {
      assert.throws(
        () => split(text, 1000),
        (error: unknown) =>
          error instanceof JsonStructureError &&
          /^An object key holds a raw control character or an escape JSON does not know \(line \d\)$/.test(
            error.message,
          ),
        text,
      );
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

  test('a record is cut with the characters around it that are no JSON whitespace (a no-break space, a byte order mark), so that its parse refuses it as JSON.parse does the file', () => {
    for (const space of ['\u00a0', '\ufeff', '\u2028', '\f']) {
      for (const size of [1, 1000]) {
        const { elements } = split(`[\n${space}{"a": 1}, 2${space} ]`, size);
        const texts = elements.map((element) => element.text);
        assert.deepEqual(texts, [`${space}{"a": 1}`, `2${space}`], `U+${space.charCodeAt(0)}`);
        for (const text of texts) assert.throws(() => JSON.parse(text), SyntaxError);
      }
    }
  });

  test('a comma missing, doubled or trailing, in the records array or the envelope around it, is broken structure, with its line and column', () => {
    const cases: [string, RegExp][] = [
      [
        '[{"a": 1},\n{"b": 2},\n]',
        /Expected a value after ',', found ']' \(a trailing comma\) \(line 3, column 1\)/,
      ],
      [
        '[{"a": 1},,\n{"b": 2}]',
        /Expected a value, found ',' \(two commas in a row, or one after '\['\) \(line 1, column 11\)/,
      ],
      [
        '[\n, 1]',
        /Expected a value, found ',' \(two commas in a row, or one after '\['\) \(line 2, column 1\)/,
      ],
      [
        '[{"a": 1}\n{"b": 2}]',
        /Expected ',' or ']' after an element, found '\{' \(a missing comma\) \(line 2, column 1\)/,
      ],
      [
        '[[1]\n"x"]',
        /Expected ',' or ']' after an element, found '"' \(a missing comma\) \(line 2, column 1\)/,
      ],
      [
        '{"results": [1]\n"totalCount": 1}',
        /Expected ',' or '}' after a member, found '"' \(a missing comma\) \(line 2, column 1\)/,
      ],
      [
        '{"results": [1],,\n"totalCount": 1}',
        /Expected a member's key, found ',' \(line 1, column 17\)/,
      ],
      [
        '{"results": [1],\n}',
        /Expected a member's key after ',', found '}' \(a trailing comma\) \(line 2, column 1\)/,
      ],
      [
        '{"links" [],\n"results": [1]}',
        /Expected ':' after a member's key, found '\[' \(line 1, column 10\)/,
      ],
      [
        '{"totalCount": 1 2, "results": [1]}',
        /Expected ',' or '}' after a member, found '2' \(a missing comma\) \(line 1, column 18\)/,
      ],
      [
        '{"links": [{"rel": "self"}\n{"rel": "next"}], "results": [1]}',
        /Expected ',' or ']' after an element, found '\{' \(a missing comma\) \(line 2, column 1\)/,
      ],
      ['{"results": [1], "totalCount": }', /Expected a value, found '}' \(line 1, column 32\)/],
    ];
    for (const [text, message] of cases) {
      for (const size of [1, 7, 1000]) {
        assert.throws(
          () => split(text, size),
          (error: unknown) => error instanceof JsonStructureError && message.test(error.message),
          `${text} in chunks of ${size}`,
        );
      }
    }
  });

  test('a broken literal or number followed by more (`[tru e]`, `nul l`, `- 1`) is named as the invalid token at its own line and column, not as a missing comma', () => {
    const cases: [string, string][] = [
      [
        '[tru e]',
        "Invalid literal 'tru' (JSON's literals are true, false and null; a string needs quotes) (line 1, column 2)",
      ],
      [
        '[nul l]',
        "Invalid literal 'nul' (JSON's literals are true, false and null; a string needs quotes) (line 1, column 2)",
      ],
      [
        '[fals e]',
        "Invalid literal 'fals' (JSON's literals are true, false and null; a string needs quotes) (line 1, column 2)",
      ],
      [
        '[\n  tru\n  e]',
        "Invalid literal 'tru' (JSON's literals are true, false and null; a string needs quotes) (line 2, column 3)",
      ],
      ['[- 1]', "Invalid number '-': no digit after the minus sign (line 1, column 2)"],
      ['[1. 5]', "Invalid number '1.': no digit after the decimal point (line 1, column 2)"],
      [
        '[01 2]',
        "Invalid number '01': a number cannot start with 0 followed by a digit (line 1, column 2)",
      ],
      ['[1e 5]', "Invalid number '1e': no digit in the exponent (line 1, column 2)"],
      [
        '{"results": [{"a": 1}, tru e]}',
        "Invalid literal 'tru' (JSON's literals are true, false and null; a string needs quotes) (line 1, column 24)",
      ],
      // Outside the records: an envelope's own member.
      [
        '{"totalCount": tru e, "results": []}',
        "Invalid literal 'tru' (JSON's literals are true, false and null; a string needs quotes) (line 1, column 16)",
      ],
      [
        '{"results": [], "totalCount": 1. 5}',
        "Invalid number '1.': no digit after the decimal point (line 1, column 31)",
      ],
    ];
    refusedInEveryChunking(cases);
  });

  test('a comma missing after a bare element (a number, a string, true, null) is broken structure too, naming its line and column, as after an object; a bare element whole is one element', () => {
    const cases: [string, string][] = [
      [
        '[1 2]',
        "Expected ',' or ']' after an element, found '2' (a missing comma) (line 1, column 4)",
      ],
      [
        '[1\n  2]',
        "Expected ',' or ']' after an element, found '2' (a missing comma) (line 2, column 3)",
      ],
      [
        '["x" "y"]',
        `Expected ',' or ']' after an element, found '"' (a missing comma) (line 1, column 6)`,
      ],
      [
        '["x""y"]',
        `Expected ',' or ']' after an element, found '"' (a missing comma) (line 1, column 5)`,
      ],
      [
        '[true false]',
        "Expected ',' or ']' after an element, found 'f' (a missing comma) (line 1, column 7)",
      ],
      [
        '[null {"a": 1}]',
        "Expected ',' or ']' after an element, found '{' (a missing comma) (line 1, column 7)",
      ],
      [
        '[1 [2]]',
        "Expected ',' or ']' after an element, found '[' (a missing comma) (line 1, column 4)",
      ],
      [
        '{"results": [{"a": 1},\n 1 2]}',
        "Expected ',' or ']' after an element, found '2' (a missing comma) (line 2, column 4)",
      ],
      [
        '{"content": {"results": ["x" 2]}}',
        "Expected ',' or ']' after an element, found '2' (a missing comma) (line 1, column 30)",
      ],
    ];
    refusedInEveryChunking(cases);
    for (const size of [1, 2, 1000]) {
      assert.deepEqual(
        split('[12, -3.5e2 , "a b",true,\nnull]', size).elements.map((e) => e.text),
        ['12', '-3.5e2', '"a b"', 'true', 'null'],
      );
    }
  });

  test('broken structure is thrown by the next push or end, after the whole elements before it in the same chunk', () => {
    const splitter = new JsonArraySplitter();
    const elements = splitter.push('[{"a": 1},\n{"b": [2]}}\n, {"c": 3}]');
    assert.deepEqual(
      elements.map((e) => e.text),
      ['{"a": 1}', '{"b": [2]}'],
    );
    assert.ok(splitter.failed);
    assert.throws(() => splitter.push(']'), /Unexpected '}' \(line 2\)/);
    assert.throws(() => splitter.end(), /Unexpected '}' \(line 2\)/);
  });

  test('documents in a row are read in turn only when a sequence is expected, each a list or one event', () => {
    const text = '[{"a": 1}]\n{"links": [], "results": [\n{"b": 2}]}{"content": {"results": [3]}}';
    for (const size of [1, 4, 1000]) {
      const splitter = new JsonArraySplitter(Infinity, true);
      const seen: string[] = [];
      for (let i = 0; i < text.length; i += size) {
        for (const e of splitter.push(text.slice(i, i + size))) {
          seen.push(`${e.path}[${e.index}] ${e.text} (line ${e.line})`);
        }
      }
      splitter.end();
      splitter.assertList();
      assert.deepEqual(
        seen,
        ['[0] {"a": 1} (line 1)', 'results[0] {"b": 2} (line 3)', 'content.results[0] 3 (line 3)'],
        `chunks of ${size}`,
      );
    }
    assert.throws(() => split(text, 1000), /after the end of the JSON document \(line 2\)/);
    // One that is one event is given whole, as one record, with its start line.
    for (const size of [1, 4, 1000]) {
      const withEvent = new JsonArraySplitter(Infinity, true);
      const text = '[1]\n{\n"id": "x", "a": [{}]}\n[2]';
      const given: ArrayElement[] = [];
      for (let i = 0; i < text.length; i += size)
        given.push(...withEvent.push(text.slice(i, i + size)));
      withEvent.end();
      withEvent.assertList();
      assert.deepEqual(
        given.map((e) => [e.text, e.line, e.document ?? false]),
        [
          ['1', 1, false],
          ['{\n"id": "x", "a": [{}]}', 2, true],
          ['2', 4, false],
        ],
        `chunks of ${size}`,
      );
    }
    // One event larger than the limit whose own "results" came before its
    // id, that list given by then, is refused where the next begins (or at
    // the end), with its start line.
    const notList = new JsonArraySplitter(12, true);
    const text2 = '[1]\n{\n"results": [3], "id": "x"}\n[2]';
    assert.throws(
      () => {
        for (const c of text2) notList.push(c);
        notList.end();
      },
      (error: unknown) =>
        error instanceof NotAListError &&
        [error.reason, error.line, error.document].join() === 'oneEvent,2,2',
    );
  });

  test('an event whose own "results" (or "content.results") comes before its id is one event, given whole, its list never given; so is the content of an envelope=true answer that is one event', () => {
    const cases: [string, string][] = [
      [
        '{\n"results": [{"id": "a"}, 2],\n"id": "x"}',
        '{\n"results": [{"id": "a"}, 2],\n"id": "x"}',
      ],
      [
        '{"content": {"results": [1]}, "eventTypeName": "E"}',
        '{"content": {"results": [1]}, "eventTypeName": "E"}',
      ],
      // envelope=true around one event: its content is the event.
      [
        '{"status": 200,\n"content": {"results": [{"id": "a"}], "id": "x"}}',
        '{"results": [{"id": "a"}], "id": "x"}',
      ],
      ['{"status": 200, "content": {"id": "x", "results": [1]}}', '{"id": "x", "results": [1]}'],
      ['{"status": 200, "content": {"eventTypeName": "E"}}', '{"eventTypeName": "E"}'],
    ];
    for (const [text, event] of cases) {
      for (const size of [1, 4, 1000]) {
        const splitter = new JsonArraySplitter(200, true);
        const given: ArrayElement[] = [];
        for (const part of [text, '\n[7]']) {
          for (let i = 0; i < part.length; i += size)
            given.push(...splitter.push(part.slice(i, i + size)));
        }
        splitter.end();
        splitter.assertList();
        assert.deepEqual(
          given.map((e) => [e.text, e.document ?? false]),
          [
            [event, true],
            ['7', false],
          ],
          `${text} in chunks of ${size}`,
        );
      }
      // Outside a sequence (an NDJSON line's page) it is no page.
      const line = new JsonArraySplitter();
      assert.deepEqual(line.push(text.replace(/\n/g, ' ')), [], text);
      line.end();
      assert.equal(line.path, undefined, text);
    }
  });

  test('a list envelope whose records are held while its root may prove one event gives them once it outgrows the limit, before it ends', () => {
    const text =
      '{"links": [], "results": [{"a": 1}, {"b": 2}, {"c": 3}, {"d": 4}], "totalCount": 4}';
    const splitter = new JsonArraySplitter(30, true);
    const early = splitter.push(text.slice(0, 50));
    assert.deepEqual(
      early.map((e) => e.text),
      ['{"a": 1}', '{"b": 2}'],
    );
    const rest = splitter.push(text.slice(50));
    splitter.end();
    splitter.assertList();
    assert.deepEqual(
      rest.map((e) => e.text),
      ['{"c": 3}', '{"d": 4}'],
    );
  });

  test('each element says where it ends (just past its last character), wherever the chunks cut it: where an import stopped after it stands', () => {
    const text = '[{"a": 1},\n 22 , "x"]';
    for (const size of [1, 2, 7, 1000]) {
      assert.deepEqual(
        split(text, size).elements.map((element) => [element.text, element.end]),
        [
          ['{"a": 1}', 9],
          ['22', 14],
          ['"x"', 20],
        ],
        `chunks of ${size}`,
      );
    }
  });

  test('one event in a sequence longer than the limit is given as its size, its text not held', () => {
    const splitter = new JsonArraySplitter(10, true);
    const text = '{"id": "x", "pad": "0123456789"}';
    const given = [...splitter.push(text.slice(0, 12)), ...splitter.push(text.slice(12))];
    splitter.end();
    splitter.assertList();
    assert.deepEqual(given, [
      {
        text: '',
        path: '',
        index: 0,
        line: 1,
        end: text.length,
        oversize: text.length,
        document: true,
      },
    ]);
  });

  test('an event after an envelope that outgrew the limit before its records array is given whole, not as too large', () => {
    // The envelope's root was held while it might prove one event, and
    // outgrew the limit (a long "links") before its "results" showed.
    const envelope = `{"links": ["${'x'.repeat(40)}"], "results": [1]}`;
    const event = '\n{"id": "x"}';
    const text = envelope + event;
    for (const size of [5, 20]) {
      const splitter = new JsonArraySplitter(30, true);
      const given: ArrayElement[] = [];
      for (let i = 0; i < text.length; i += size)
        given.push(...splitter.push(text.slice(i, i + size)));
      splitter.end();
      splitter.assertList();
      assert.deepEqual(
        given,
        [
          { text: '1', path: 'results', index: 0, line: 1, end: envelope.indexOf('[1]') + 2 },
          {
            text: '{"id": "x"}',
            path: '',
            index: 0,
            line: 2,
            end: text.length,
            document: true,
          },
        ],
        `chunks of ${size}`,
      );
    }
  });

  test('a byte order mark between documents in a row is skipped (files each saved with one, joined by cat), also between documents on one line', () => {
    const text = '[{"a": 1}]\n\ufeff{"results": [2]}\ufeff[3]';
    for (const size of [1, 1000]) {
      const splitter = new JsonArraySplitter(Infinity, true);
      const seen: string[] = [];
      for (let i = 0; i < text.length; i += size) {
        for (const e of splitter.push(text.slice(i, i + size))) seen.push(e.text);
      }
      splitter.end();
      assert.deepEqual(seen, ['{"a": 1}', '2', '3'], `chunks of ${size}`);
    }
    assert.throws(() => split('[1]\ufeff[2]', 1000), /after the end of the JSON document/);
    assert.deepEqual(concatenatedDocuments('{"a":1}\ufeff{"b":2} \ufeff [3]'), [
      '{"a":1}',
      '{"b":2}',
      '[3]',
    ]);
  });

  test('random documents cut at random places give the elements JSON.parse finds, as cut whole', () => {
    const random = new Prng('json-array-splitter');
    // Arrays named `results` elsewhere in the document are not the records.
    const decoys = { links: [{ results: [1, 2] }], content2: { results: ['x'] } };
    for (let k = 0; k < 1500; k++) {
      const records = Array.from({ length: random.int(8) }, () => randomValue(random));
      const indent = random.pick([undefined, 1, 2, '\t']);
      const extra = random.chance(0.5) ? decoys : {};
      const [document, path] = random.pick<() => [string, string]>([
        () => [JSON.stringify(records, null, indent), ''],
        () => [
          JSON.stringify({ ...extra, results: records, totalCount: 1 }, null, indent),
          'results',
        ],
        () => [
          JSON.stringify(
            { status: 200, ...extra, content: { a: [1], results: records } },
            null,
            indent,
          ),
          'content.results',
        ],
      ])();
      // Some documents under a limit a few records outgrow.
      const limit = random.chance(0.3) ? random.range(1, 200) : Infinity;
      const whole = new JsonArraySplitter(limit);
      const expected = whole.push(document);
      whole.end();
      const splitter = new JsonArraySplitter(limit);
      const elements = randomChunks(random, document).flatMap((chunk) => splitter.push(chunk));
      splitter.end();
      const context = `document ${k}, limit ${limit}: ${document.slice(0, 200)}`;
      assert.equal(splitter.path, path, context);
      assert.equal(elements.length, records.length, context);
      elements.forEach((element, i) => {
        assert.equal(element.index, i, context);
        assert.equal(element.line, expected[i]!.line, context);
        if (element.oversize === undefined) {
          assert.deepEqual(JSON.parse(element.text), records[i], context);
        } else {
          // Only an element longer than the limit goes unheld.
          assert.ok(element.oversize > limit, context);
        }
      });
      if (limit === Infinity) assert.deepEqual(elements, expected, context);
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

  test('gives the same lines, CRLF and blank ones included, with where each starts and ends (past its line break), however the text is cut into chunks', () => {
    const expected: LineRecord[] = [
      { text: '{"a":1}', line: 1, start: 0, end: 8 },
      { text: '{"b":"two"}', line: 2, start: 8, end: 21 },
      { text: '', line: 3, start: 21, end: 22 },
      { text: 'x'.repeat(40), line: 4, start: 22, end: 63 },
      { text: '{"c":[3]}', line: 5, start: 63, end: 73 },
      { text: 'y'.repeat(25), line: 6, start: 73, end: 98 },
    ];
    for (let size = 1; size <= text.length; size++) {
      assert.deepEqual(lines(text, size, Infinity), expected, `chunks of ${size}`);
    }
  });

  test('measures a line longer than the limit instead of holding it, wherever the chunks cut it', () => {
    for (let size = 1; size <= text.length; size++) {
      const records = lines(text, size, 30);
      const [oversize, next, last] = [
        { text: '', line: 4, start: 22, end: 63, oversize: 40 },
        { text: '{"c":[3]}', line: 5, start: 63, end: 73 },
        { text: 'y'.repeat(25), line: 6, start: 73, end: 98 },
      ];
      assert.deepEqual(records[3], oversize, `chunks of ${size}`);
      assert.deepEqual(records[4], next, `chunks of ${size}`);
      assert.deepEqual(records[5], last, `chunks of ${size}`);
      assert.equal(records.length, 6);
    }
  });

  test('a CRLF line is measured without its CR, wherever the chunks cut it', () => {
    // 10 characters and a CR: exactly a limit of 10; 11 and a CR: one over.
    const text = `${'a'.repeat(10)}\r\n${'b'.repeat(11)}\r\n${'c'.repeat(11)}\r`;
    for (let size = 1; size <= text.length; size++) {
      assert.deepEqual(
        lines(text, size, 10),
        [
          { text: 'a'.repeat(10), line: 1, start: 0, end: 12 },
          { text: '', line: 2, start: 12, end: 25, oversize: 11 },
          { text: '', line: 3, start: 25, end: 37, oversize: 11 },
        ],
        `chunks of ${size}`,
      );
    }
  });

  test('random lines cut at random places come out as split whole, CR dropped', () => {
    const random = new Prng('line-splitter');
    for (let k = 0; k < 1500; k++) {
      const written = Array.from(
        { length: random.int(10) },
        () => randomText(random).replaceAll('\n', '') + (random.chance(0.2) ? '\r' : ''),
      );
      const text = written.join('\n') + (random.chance(0.5) ? '\n' : '');
      const expected = text === '' ? [] : text.split('\n');
      if (text.endsWith('\n')) expected.pop();
      const limit = random.chance(0.3) ? random.range(1, 20) : Infinity;
      const splitter = new LineSplitter(limit);
      const records = randomChunks(random, text).flatMap((chunk) => splitter.push(chunk));
      const last = splitter.end();
      if (last) records.push(last);
      const context = `text ${k}, limit ${limit}: ${JSON.stringify(text)}`;
      assert.equal(records.length, expected.length, context);
      let start = 0;
      records.forEach((record, i) => {
        const line = stripCr(expected[i]!);
        assert.equal(record.line, i + 1, context);
        const end = Math.min(start + expected[i]!.length + 1, text.length);
        assert.deepEqual([record.start, record.end], [start, end], context);
        start = end;
        if (record.oversize === undefined) assert.equal(record.text, line, context);
        else assert.ok(line.length > limit && record.oversize > limit, context);
      });
    }
  });
});
