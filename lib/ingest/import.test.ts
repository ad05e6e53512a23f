import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';
import zlib from 'node:zlib';
import { after, before, beforeEach, describe, test } from 'node:test';
import { openStore } from '@/lib/store';
import { databaseWithVacuumLock } from '@/tests/helpers/postgres';
import type { EventStore } from '@/lib/store/types';
import { encodeEvent, encodeRecordText } from '@/lib/domain/encode';
import { eventInputSchema, type EventInput } from '@/lib/domain/event';
import { MAX_INDEXED_VALUE_LENGTH } from '@/lib/domain/filters';
import { MAX_RECORD_BYTES_LIMIT } from '@/lib/domain/limits';
import {
  ImportFatalError,
  type ImportReport,
  importEvents,
  innerRecords,
  readEventBatches,
  toNewEvent,
  tooLargeMessage,
} from './import';
import { generateEvents } from './seed';
import { Prng } from './seed-prng';

const ORG = '6a0a1b2c3d4e5f6a7b8c9d0e';
const OTHER_ORG = '6a0a1b2c3d4e5f6a7b8c9d0f';
const events = [
  ...generateEvents({
    orgId: ORG,
    count: 1200,
    seed: 'import',
    from: Date.UTC(2026, 1, 1),
    to: Date.UTC(2026, 2, 1),
  }),
];

describe('import', () => {
  let dir: string;
  let store: EventStore;
  let n = 0;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-import-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));
  /** A new, empty store holding the import's organization in place of the last one. */
  async function freshStore(): Promise<void> {
    await store?.close();
    store = await openStore(path.join(dir, `store-${++n}.db`));
    await store.createOrg({ id: ORG, name: 'Import Org', created: 0 });
  }
  beforeEach(freshStore);

  function write(name: string, content: string): string {
    const file = path.join(dir, name);
    fs.writeFileSync(file, content);
    return file;
  }

  /**
   * The stored rows must be exactly what encodeEvent makes of the records,
   * but for the sort key of a whole-second `created`, which lies inside that
   * second (ListingOrder: never .000).
   */
  async function assertStored(records: readonly EventInput[]): Promise<void> {
    assert.equal(await store.countEvents({ orgId: ORG }), records.length);
    for (const record of records.filter((_, i) => i % 37 === 0)) {
      const expected = encodeEvent(ORG, eventInputSchema.parse(record));
      const stored = await store.getEvent(ORG, record.id, true);
      assert.ok(stored);
      if (expected.created % 1000 === 0) {
        assert.ok(
          stored.created > expected.created && stored.created <= expected.created + 999,
          `${record.id}: sort key ${stored.created} outside the second of ${expected.created}`,
        );
      } else assert.equal(stored.created, expected.created);
      assert.deepEqual(stored, { ...expected, created: stored.created, orgId: ORG });
    }
  }

  const formats: [string, () => string, string][] = [
    [
      'the API list envelope, pretty-printed',
      () =>
        JSON.stringify(
          {
            links: [{ href: 'https://x/events?pageNum=1', rel: 'self' }],
            results: events,
            totalCount: 1200,
          },
          null,
          2,
        ),
      'envelope',
    ],
    // What `curl` saves of an answer: one line, no line break after it.
    [
      'the API list envelope on one line',
      () =>
        JSON.stringify({
          results: events,
          totalCount: 1200,
          links: [{ href: 'https://x/events?pageNum=1', rel: 'self' }],
        }),
      'envelope',
    ],
    [
      'the envelope=true response form',
      () => JSON.stringify({ status: 200, content: { results: events } }),
      'envelope',
    ],
    [
      'the envelope=true response form, pretty-printed',
      () => JSON.stringify({ status: 200, content: { totalCount: 1, results: events } }, null, 1),
      'envelope',
    ],
    // One record a line inside an envelope: the second line alone parses,
    // yet the file is no NDJSON.
    [
      'a list envelope of one record a line, commas leading',
      () => `{"results":[\n${events.map((e) => JSON.stringify(e)).join('\n,')}\n]}`,
      'envelope',
    ],
    [
      'a list envelope of one record a line, commas trailing',
      () =>
        `{"status":200,"content":{"results":[\n${events.map((e) => JSON.stringify(e)).join(',\n')}\n]}}`,
      'envelope',
    ],
    ['a compact JSON array', () => JSON.stringify(events), 'array'],
    [
      'a pretty JSON array with a byte order mark',
      () => `\ufeff${JSON.stringify(events, null, 4)}`,
      'array',
    ],
    ['NDJSON', () => events.map((e) => JSON.stringify(e)).join('\n') + '\n', 'ndjson'],
    [
      'NDJSON with CRLF, blank lines, no final newline',
      () => events.map((e) => JSON.stringify(e)).join('\r\n\r\n'),
      'ndjson',
    ],
    // `cat a.ndjson b.ndjson` of two files each saved with a byte order mark:
    // the second mark begins a line inside the file.
    [
      'NDJSON of two files joined, each with a byte order mark',
      () =>
        [events.slice(0, 600), events.slice(600)]
          .map((part) => `\ufeff${part.map((e) => JSON.stringify(e)).join('\n')}\n`)
          .join(''),
      'ndjson',
    ],
    [
      'NDJSON of saved API pages',
      () =>
        [0, 500, 1000]
          .map((start) =>
            JSON.stringify({ results: events.slice(start, start + 500), totalCount: 1200 }),
          )
          .join('\n'),
      'ndjson',
    ],
  ];
  for (const [name, content, format] of formats) {
    test(`imports ${name}`, async () => {
      const file = write(`${name.replace(/\W+/g, '-')}.json`, content());
      const report = await importEvents(store, file, { orgId: ORG, batchSize: 500 });
      assert.equal(report.format, format);
      assert.equal(report.read, 1200);
      assert.equal(report.inserted, 1200);
      assert.equal(report.invalid, 0);
      assert.deepEqual(report.issues, []);
      await assertStored(events);
    });
  }

  test('is idempotent: a second run inserts nothing and counts duplicates', async () => {
    const file = write('again.ndjson', events.map((e) => JSON.stringify(e)).join('\n'));
    await importEvents(store, file, { orgId: ORG });
    const again = await importEvents(store, file, { orgId: ORG });
    assert.equal(again.inserted, 0);
    assert.equal(again.duplicates, 1200);
    await assertStored(events);
  });

  test('reports each invalid NDJSON record with its line and reason, and imports the rest', async () => {
    const good = events.slice(0, 5).map((e) => JSON.stringify(e));
    const lines = [
      good[0],
      '{"id": "nope", "created": "2026-02-01T00:00:00Z", "eventTypeName": "JOINED_ORG"}',
      good[1],
      'this is not json',
      '',
      JSON.stringify({ ...events[5], userId: 'a'.repeat(24), apiKeyId: 'b'.repeat(24) }),
      JSON.stringify({ ...events[6], orgId: OTHER_ORG }),
      '[1, 2]',
      JSON.stringify({ ...events[7], created: 'yesterday' }),
      JSON.stringify({ ...events[8], currentValue: { number: 'lots', units: 'RAW' } }),
      good[2],
      '{"id": "0123456789abcdef01234567"}',
    ];
    const report = await importEvents(store, write('bad.ndjson', lines.join('\n')), { orgId: ORG });
    const byLine = new Map(report.issues.map((i) => [i.line, i.message]));
    assert.deepEqual(
      report.issues.map((i) => i.line),
      [2, 4, 6, 7, 8, 8, 9, 10, 12],
    );
    assert.match(byLine.get(2)!, /^id: id must be 24 lowercase hex digits/);
    assert.match(byLine.get(4)!, /^Not valid JSON/);
    assert.match(byLine.get(6)!, /mutually exclusive/);
    assert.match(byLine.get(7)!, new RegExp(`orgId "${OTHER_ORG}" is not the target organization`));
    assert.match(
      byLine.get(9)!,
      /^created: created must be a date \(2026-01-31\) or an ISO 8601 date-time/,
    );
    assert.match(byLine.get(10)!, /^currentValue\.number: must be a number or a numeric string/);
    assert.equal(byLine.get(12), 'created: missing; eventTypeName: missing');
    assert.equal(report.issues.find((i) => i.line === 8)!.location, 'line 8, [0]');
    assert.match(report.issues.find((i) => i.line === 8)!.message, /Expected an event object/);
    assert.deepEqual(
      { read: report.read, inserted: report.inserted, invalid: report.invalid },
      { read: 12, inserted: 3, invalid: 9 },
    );
    await assertStored(events.slice(0, 3));
  });

  test('a page that names its records array twice is refused, never one list checked and the other stored', async () => {
    const [first, second, third] = events.slice(0, 3).map((e) => JSON.stringify(e));
    // A line: that line is an invalid record, the lines around it imported.
    const lines = [first, `{"results":[${second}],"results":[${third}]}`, `{"results":[${third}]}`];
    const report = await importEvents(store, write('twice.ndjson', lines.join('\n')), {
      orgId: ORG,
    });
    assert.deepEqual(
      report.issues.map((i) => [i.location, i.message]),
      [
        [
          'line 2',
          '"results" appears twice in one object: which list of records is meant is unclear',
        ],
      ],
    );
    await assertStored([events[0]!, events[2]!]);
    // A document: the import stops, nothing of it read.
    await freshStore();
    const document = `{\n"results": [${first}],\n"results": [${second}]\n}`;
    await assert.rejects(
      importEvents(store, write('twice.json', document), { orgId: ORG }),
      (error: unknown) => {
        assert.ok(error instanceof ImportFatalError);
        assert.match(
          error.message,
          /^The file cannot be read as a list of events: "results" appears twice in one object: which list of records is meant is unclear \(line 3\)/,
        );
        return true;
      },
    );
    assert.equal(await store.countEvents({ orgId: ORG }), 0);
  });

  test('NDJSON whose first line is cut off inside a string is NDJSON, however broken the next line', async () => {
    const whole = JSON.stringify(events[1]);
    const text = [JSON.stringify(events[0]).slice(0, 40), '{oops}', whole].join('\n');
    const report = await importEvents(store, write('cut-first.ndjson', text), { orgId: ORG });
    assert.equal(report.format, 'ndjson');
    assert.deepEqual([report.read, report.inserted, report.invalid], [3, 1, 2]);
    assert.deepEqual(
      report.issues.map((i) => i.line),
      [1, 2],
    );
    assert.equal((await store.getEvent(ORG, events[1]!.id, false))?.id, events[1]!.id);
  });

  test('pages appended on one line (curl >> file), lines of arrays (jq -c .results) and an empty file import as NDJSON', async () => {
    const [e0, e1, e2, e3] = events.slice(0, 4).map((e) => JSON.stringify(e));
    for (const [name, text, records] of [
      ['appended.ndjson', `{"results":[${e0}],"totalCount":4}{"results":[${e1},${e2}]}`, 3],
      ['appended-later.ndjson', `${e3}\n{"results":[${e0}]}{"results":[${e1},${e2}]}\n`, 4],
      // Arrays back to back, and pages with a space between: read as a whole
      // file reads them (before, only `}{` was looked for, and each line was
      // one invalid record, its events not imported).
      ['arrays-appended.ndjson', `[${e0}][${e1},${e2}]\n[${e3}]`, 4],
      ['spaced.ndjson', `{"results":[${e0}]} {"results":[${e1}]}\t[${e2}] \n`, 3],
      ['arrays.ndjson', `[${e0},${e1}]\n[]\n[${e2}]\n`, 3],
      ['empty.ndjson', '', 0],
      ['blank.ndjson', ' \n\n', 0],
    ] as const) {
      await freshStore();
      const report = await importEvents(store, write(name, text), { orgId: ORG });
      assert.deepEqual(
        [report.format, report.read, report.inserted, report.issues],
        ['ndjson', records, records, []],
        name,
      );
    }
    // Appended pages longer together than a record may be, each within it.
    await freshStore();
    const page = `{"results":[${e0},${e1}]}`;
    const long = await importEvents(
      store,
      write('appended-long.ndjson', `${page}{"results":[${e2},${e3}]}`),
      { orgId: ORG, maxRecordBytes: page.length + 100 },
    );
    assert.deepEqual([long.inserted, long.issues], [4, []]);
    // One cut short among them is one bad record; the others import.
    await freshStore();
    const cut = await importEvents(
      store,
      write('appended-cut.ndjson', `{"results":[${e0}]}{"results":[${e1}`),
      { orgId: ORG },
    );
    assert.deepEqual([cut.format, cut.inserted, cut.invalid], ['ndjson', 1, 1]);
  });

  test('API answers appended one after another (curl >> file), pretty-printed or compact before pretty-printed ones, import in turn, one that is an event as one record; one that is no list stops the import at its line', async () => {
    const pretty = (value: unknown) => JSON.stringify(value, null, 2);
    const pages = [
      pretty({ links: [], results: events.slice(0, 3), totalCount: 5 }),
      pretty({ content: { results: [events[3]] } }),
      pretty(events.slice(4, 6)),
    ];
    // Written by curl (no line break at the end) and by a tool that adds one.
    for (const joint of ['', '\n']) {
      await freshStore();
      const report = await importEvents(store, write('pages.json', pages.join(joint)), {
        orgId: ORG,
      });
      assert.deepEqual(
        [report.format, report.read, report.inserted, report.issues],
        ['envelope', 6, 6, []],
        JSON.stringify(joint),
      );
    }
    // A compact answer (as the API writes it) before pretty-printed ones, on
    // its own line or with the next one's opening after it: documents in a
    // row, not NDJSON whose later lines are all broken.
    const compact = [
      JSON.stringify({ links: [], results: events.slice(0, 3), totalCount: 5 }),
      JSON.stringify(events.slice(0, 3)),
    ];
    for (const [name, text] of [
      ['compact-then-pretty.json', `${compact[0]}\n${pages[1]}\n${pages[2]}`],
      ['compact-pretty-one-line.json', `${compact[0]}${pages[1]}`],
      ['arrays-compact-then-pretty.json', `${compact[1]}\n${pages[2]}`],
    ] as const) {
      await freshStore();
      const report = await importEvents(store, write(name, text), { orgId: ORG });
      assert.deepEqual(
        [report.invalid, report.inserted, report.issues],
        [
          0,
          name === 'compact-then-pretty.json'
            ? 6
            : name === 'arrays-compact-then-pretty.json'
              ? 5
              : 4,
          [],
        ],
        name,
      );
    }
    // A bad record of the second answer is located in it, by its own index and line.
    await freshStore();
    const badSecond = pretty({ results: [events[6], { id: 'x' }] });
    const joined = pages[0]! + badSecond;
    const badLine = joined.slice(0, joined.indexOf('"id": "x"')).split('\n').length - 1;
    const located = await importEvents(store, write('bad-second.json', joined), { orgId: ORG });
    assert.deepEqual(
      [located.inserted, located.issues.map((i) => [i.location, i.index])],
      [4, [[`results[1] (line ${badLine})`, 1]]],
    );
    // An answer that is one event (curl …/events/ID) is one record among the pages.
    await freshStore();
    const oneEvent = pretty(events[7]);
    const withEvent = await importEvents(
      store,
      write('event-second.json', `${pages[0]}\n${oneEvent}\n${pages[2]}`),
      { orgId: ORG },
    );
    assert.deepEqual([withEvent.read, withEvent.inserted, withEvent.issues], [6, 6, []]);
    // An answer that is no list: the error names its line, and the answers
    // before it import (whole batches are kept: a batch a record here).
    await freshStore();
    await assert.rejects(
      importEvents(
        store,
        write('no-list-second.json', `${pages[0]}\n${pretty({ totalCount: 3 })}\n${pages[2]}`),
        { orgId: ORG, batchSize: 1 },
      ),
      (error: unknown) => {
        assert.ok(error instanceof ImportFatalError);
        assert.match(
          error.message,
          new RegExp(
            `^The JSON document starting on line ${pages[0]!.split('\n').length + 1} has no "results" array`,
          ),
        );
        assert.deepEqual([error.partial?.inserted, error.partial?.read], [3, 3]);
        return true;
      },
    );
    // Anything but a document after one is still broken structure.
    await freshStore();
    await assert.rejects(
      importEvents(store, write('trailing.json', `${pages[0]}\nnot json`), { orgId: ORG }),
      /content after the end of the JSON document \(line/,
    );
  });

  test('API answers each saved with a byte order mark and joined (cat a.json b.json) import in turn, pretty-printed or compact', async () => {
    const answers = [
      { links: [], results: events.slice(0, 3), totalCount: 5 },
      { links: [], results: events.slice(3, 5), totalCount: 5 },
    ];
    for (const [name, text] of [
      // Saved by an editor (a final line break) or by a tool that writes none.
      ['pretty.json', answers.map((a) => `\ufeff${JSON.stringify(a, null, 2)}\n`).join('')],
      ['pretty-unended.json', answers.map((a) => `\ufeff${JSON.stringify(a, null, 2)}`).join('')],
      // Compact answers joined without a line break share one line.
      ['compact.json', answers.map((a) => `\ufeff${JSON.stringify(a)}`).join('')],
      ['compact-spaced.json', answers.map((a) => `\ufeff${JSON.stringify(a)} `).join('')],
    ] as const) {
      await freshStore();
      const report = await importEvents(store, write(name, text), { orgId: ORG });
      assert.deepEqual(
        [report.read, report.inserted, report.invalid, report.issues],
        [5, 5, 0, []],
        name,
      );
    }
  });

  test('reports invalid array elements by index and line, malformed ones included', async () => {
    const text = [
      '[',
      JSON.stringify(events[0]) + ',',
      '{"id": tru, "x": "a \\" quoted ] bracket }"},',
      '"a string",',
      JSON.stringify({ ...events[1], eventTypeName: 'not-a-type' }) + ',',
      JSON.stringify(events[2]),
      ']',
    ].join('\n');
    const report = await importEvents(store, write('bad.json', text), { orgId: ORG });
    assert.equal(report.format, 'array');
    assert.deepEqual(
      report.issues.map((i) => [i.location, i.index]),
      [
        ['[1] (line 3)', 1],
        ['[2] (line 4)', 2],
        ['[3] (line 5)', 3],
      ],
    );
    assert.match(report.issues[0]!.message, /^Not valid JSON/);
    assert.match(report.issues[1]!.message, /Expected an event object/);
    assert.match(
      report.issues[2]!.message,
      /^eventTypeName: eventTypeName must be UPPER_SNAKE_CASE/,
    );
    await assertStored([events[0]!, events[2]!]);
  });

  test('NDJSON whose first two records are broken is still NDJSON: they are reported, the rest imported', async () => {
    const broken = JSON.stringify(events[0]).replace('"id":', '"note":"a\ttab","id":');
    const lines = [
      broken,
      broken.replace('"id":"', '"id":"x'),
      ...events.slice(1, 4).map((e) => JSON.stringify(e)),
    ];
    const report = await importEvents(store, write('broken-start.ndjson', lines.join('\n')), {
      orgId: ORG,
    });
    assert.equal(report.format, 'ndjson');
    assert.deepEqual([report.read, report.inserted, report.invalid], [5, 3, 2]);
    assert.deepEqual(
      report.issues.map((i) => i.line),
      [1, 2],
    );
  });

  test('an invalid element of an envelope is located by the path of its records array', async () => {
    for (const [document, path] of [
      [{ results: [events[0], { id: 'nope' }] }, 'results'],
      [{ status: 200, content: { results: [events[0], { id: 'nope' }] } }, 'content.results'],
    ] as const) {
      const text = JSON.stringify(document, null, 2);
      const report = await importEvents(store, write('located.json', text), { orgId: ORG });
      assert.equal(report.format, 'envelope');
      // The element opens on the line above its "id": that line's number from 1
      // is the id line's index from 0.
      const line = text.split('\n').findIndex((l) => l.includes('"nope"'));
      assert.deepEqual(
        report.issues.map((i) => i.location),
        [`${path}[1] (line ${line})`],
      );
    }
  });

  test('a created beyond the year 9999 (or before 0000) once its offset applies is reported, not stored unreadable', async () => {
    const records = [
      { ...events[0], created: '9999-12-31T23:59:59-01:00' },
      { ...events[1], created: '0000-01-01T00:00:00+01:00' },
      events[2],
    ];
    const file = write('far.ndjson', records.map((e) => JSON.stringify(e)).join('\n'));
    const report = await importEvents(store, file, { orgId: ORG });
    assert.deepEqual([report.read, report.inserted, report.invalid], [3, 1, 2]);
    for (const issue of report.issues)
      assert.match(issue.message, /^created: created must be a date/);
  });

  test('an id repeated in the file stores its first copy, whatever the batch size', async () => {
    const first = events[0]!;
    // Newer, so a batch holding both writes it first (write order: type, newest first).
    const later = { ...first, created: '2099-01-01T00:00:00Z', isGlobalAdmin: true };
    const file = write(
      'repeated.ndjson',
      [first, events[1], later].map((e) => JSON.stringify(e)).join('\n'),
    );
    for (const batchSize of [1, 2, 100]) {
      await freshStore();
      const report = await importEvents(store, file, { orgId: ORG, batchSize });
      assert.deepEqual(
        [report.read, report.inserted, report.duplicates],
        [3, 2, 1],
        `batches of ${batchSize}`,
      );
      const stored = await store.getEvent(ORG, first.id, true);
      assert.ok(stored);
      // Its sort key lies inside its whole second (ListingOrder).
      assert.deepEqual(
        { ...stored, created: Math.floor(stored.created / 1000) * 1000 },
        { ...encodeEvent(ORG, eventInputSchema.parse(first)), orgId: ORG },
        `batches of ${batchSize}`,
      );
    }
  });

  test('rehome imports another organization’s export into this one', async () => {
    const foreign = events.slice(0, 20).map((e) => ({ ...e, orgId: OTHER_ORG }));
    const file = write('foreign.json', JSON.stringify({ results: foreign }));
    const refused = await importEvents(store, file, { orgId: ORG });
    assert.equal(refused.inserted, 0);
    assert.equal(refused.invalid, 20);
    const rehomed = await importEvents(store, file, { orgId: ORG, rehome: true });
    assert.equal(rehomed.inserted, 20);
    const stored = await store.getEvent(ORG, foreign[0]!.id, false);
    assert.equal((JSON.parse(stored!.doc) as { orgId: string }).orgId, ORG);
  });

  test('splits correctly however the bytes are chunked (escapes, unicode, brackets in strings)', async () => {
    const tricky = events.slice(0, 40).map((e, i) => ({
      ...e,
      collection: `we\\ird "name" ]}{[, \u00e9\u6f22\ud83d\ude00 #${i}`,
      raw: { note: 'ends with a backslash \\', nested: { list: [1, '[', { a: '}' }] } },
    }));
    const text = JSON.stringify({ results: tricky, totalCount: 40 }, null, 2);
    const bytes = Buffer.from(text, 'utf8');
    for (const size of [1, 2, 3, 7, 64]) {
      await store.close();
      store = await openStore(path.join(dir, `chunks-${size}.db`));
      await store.createOrg({ id: ORG, name: 'Import Org', created: 0 });
      const chunks = Readable.from(
        (function* () {
          for (let i = 0; i < bytes.length; i += size) yield bytes.subarray(i, i + size);
        })(),
      );
      const report = await importEvents(store, chunks, { orgId: ORG, batchSize: 7 });
      assert.equal(report.inserted, 40, `chunk size ${size}`);
      assert.equal(report.invalid, 0, JSON.stringify(report.issues[0]));
      await assertStored(tricky);
    }
  });

  /** Each refusal, and the format the summary names: none where the file was refused before its format was known. */
  const fatal: [string, string, RegExp, ImportReport['format']][] = [
    ['text that is not JSON', 'hello world\n', /The file is not JSON: it must start with/, null],
    // This tool's own CSV export, given back.
    [
      'CSV, named as such',
      'id,created\r\n1,2\r\n',
      /The file looks like CSV: import reads JSON/,
      null,
    ],
    [
      'a document without results',
      '{\n  "links": [],\n  "totalCount": 0\n}',
      /no "results" array/,
      'envelope',
    ],
    ['unbalanced brackets', '[\n{"a": 1}}\n]', /Unexpected '}' \(line 2\)/, 'array'],
    ['trailing garbage', '[\n]\n]', /after the end of the JSON document/, 'array'],
  ];
  for (const [name, content, message, format] of fatal) {
    test(`refuses ${name} as a whole`, async () => {
      const file = write(`${name.replace(/\W+/g, '-')}.txt`, content);
      await assert.rejects(importEvents(store, file, { orgId: ORG }), (error: unknown) => {
        assert.ok(error instanceof ImportFatalError);
        assert.match(error.message, message);
        assert.equal(error.partial?.format, format);
        return true;
      });
    });
  }

  test('an object with no records array is refused alike on one line or pretty-printed, naming its members; one event on one line imports', async () => {
    const noRecords = { totalCount: 3, links: [] };
    for (const [name, text] of [
      ['compact', JSON.stringify(noRecords)],
      ['pretty', JSON.stringify(noRecords, null, 2)],
    ] as const) {
      await assert.rejects(
        importEvents(store, write(`no-records-${name}.json`, text), { orgId: ORG }),
        (error: unknown) => {
          assert.ok(error instanceof ImportFatalError, name);
          assert.equal(
            error.message,
            'The JSON document has no "results" array: it is an object whose members are "totalCount", "links" (expected an array of events, a list envelope {"results": [...]}, or NDJSON)',
            name,
          );
          assert.equal(error.partial?.format, 'envelope', name);
          return true;
        },
      );
    }
    await assert.rejects(importEvents(store, write('empty-object.json', '{}\n'), { orgId: ORG }), {
      message:
        'The JSON document has no "results" array: it is an empty object (expected an array of events, a list envelope {"results": [...]}, or NDJSON)',
    });
    // One event on one line is NDJSON of one record (what jq -c . writes).
    const one = await importEvents(store, write('one.json', JSON.stringify(events[0])), {
      orgId: ORG,
    });
    assert.deepEqual([one.format, one.inserted, one.issues], ['ndjson', 1, []]);
  });

  test('an envelope whose "results" (or content.results) is not an array is refused saying so and what it is, not as having no "results"', async () => {
    for (const [name, text, expected] of [
      ['number', '{\n  "results": 5,\n  "totalCount": 5\n}', '"results" is a number'],
      ['object', '{"totalCount": 1, "results": {"id": "x"}}', '"results" is an object'],
      ['null', '{"results": null}', '"results" is null'],
      [
        'content',
        '{"status": 200, "content": {"results": "none"}}',
        '"content.results" is a string',
      ],
    ] as const) {
      await assert.rejects(
        importEvents(store, write(`results-${name}.json`, text), { orgId: ORG }),
        {
          message: `The JSON document's ${expected}, not an array of events (expected an array of events, a list envelope {"results": [...]}, or NDJSON)`,
        },
        name,
      );
    }
  });

  // What `curl --digest … > events.json` saves when the request fails: the
  // API's error answer (ApiError), pretty-printed as the 401 challenge's
  // body is (recorded live, atlas-events-api.md 4.2), or compact.
  const UNAUTHORIZED =
    '{\n  "error" : 401,\n  "reason" : "Unauthorized",\n  "detail" : "You are not authorized for this resource.",\n  "errorCode" : "UNEXPECTED_ERROR"\n}';
  const TIMEOUT =
    '{"detail":"Unable to calculate the total number of results. Retry with includeCount=false.","error":500,"errorCode":"TIMEOUT_WHILE_PAGING","parameters":[],"reason":"Internal Server Error"}';

  /** Imports `file`, which must be refused as one error answer of the API. */
  const refusedAsErrorAnswer = (file: string) =>
    assert.rejects(importEvents(store, file, { orgId: ORG }), (error: unknown) => {
      assert.ok(error instanceof ImportFatalError);
      assert.equal(
        error.message,
        'The JSON document is an error answer of the API ("error" and "errorCode"), not a list of events: the request that saved it failed (a wrong key, a timeout); ask for it again',
      );
      return true;
    });

  /** Imports `file`, a page of 3 events with an error answer appended (`curl >> FILE`): the page before it is read. */
  const refusedAfterItsPage = (file: string) =>
    assert.rejects(importEvents(store, file, { orgId: ORG }), (error: unknown) => {
      assert.ok(error instanceof ImportFatalError);
      assert.match(
        error.message,
        /^The JSON document starting on line \d+ is an error answer of the API \("error" and "errorCode"\)/,
      );
      assert.equal(error.partial?.read, 3);
      return true;
    });

  /** Imports `file`, NDJSON of a page of 3 events, TIMEOUT's answer and another page: the pages go in, the answer is line 2's invalid record. */
  const importsAroundTimeoutLine = async (file: string) => {
    const report = await importEvents(store, file, { orgId: ORG });
    assert.equal(report.inserted, 6);
    assert.deepEqual(
      report.issues.map((issue) => [issue.location, issue.message]),
      [
        [
          'line 2',
          'An error answer of the API, not an event: 500 TIMEOUT_WHILE_PAGING "Unable to calculate the total number of results. Retry with includeCount=false." (the request that saved it failed; ask for that page again)',
        ],
      ],
    );
  };

  test("a file holding the API's error answer instead of a page is refused as such, not as a document without results", async () => {
    await refusedAsErrorAnswer(write('unauthorized.json', UNAUTHORIZED));
    // Alone on one line, as `curl` saves it: refused alike.
    await refusedAsErrorAnswer(write('timeout.json', TIMEOUT));
    const page = JSON.stringify({ results: events.slice(0, 3) }, null, 2);
    await refusedAfterItsPage(write('page-then-401.json', `${page}\n${UNAUTHORIZED}`));
  });

  test("an NDJSON line holding the API's error answer is reported as such, with its status and code, and the pages around it are imported", async () => {
    const page = (from: number) => JSON.stringify({ results: events.slice(from, from + 3) });
    await importsAroundTimeoutLine(
      write('pages-and-error.ndjson', `${page(0)}\n${TIMEOUT}\n${page(3)}\n`),
    );
  });

  test("the API's error answer with envelope=true ({status, content: {error, errorCode}}) is named an error answer as a file and as an NDJSON line, as the answer without it is", async () => {
    const enveloped = (body: string) =>
      `{"status":${(JSON.parse(body) as { error: number }).error},"content":${body}}`;
    const pretty = JSON.stringify(JSON.parse(enveloped(UNAUTHORIZED)), null, 2);
    await refusedAsErrorAnswer(write('401-envelope.json', pretty));
    // Alone on one line, as `curl` saves it.
    await refusedAsErrorAnswer(write('timeout-envelope.json', enveloped(TIMEOUT)));
    const page = JSON.stringify({ status: 200, content: { results: events.slice(0, 3) } }, null, 2);
    await refusedAfterItsPage(write('page-then-401-envelope.json', `${page}\n${pretty}`));
    // One line among pages: an invalid record naming its status, code and detail.
    await freshStore();
    const line = (from: number) =>
      JSON.stringify({ status: 200, content: { results: events.slice(from, from + 3) } });
    await importsAroundTimeoutLine(
      write('pages-and-error-envelope.ndjson', `${line(0)}\n${enveloped(TIMEOUT)}\n${line(3)}\n`),
    );
  });

  test('pages gathered in an array (jq -s . page*.json) are each reported as a page of so many events, not as an event missing its fields', async () => {
    const pages = [events.slice(0, 3), events.slice(3, 5)].map((results) => ({
      links: [],
      results,
      totalCount: 5,
    }));
    const file = write('slurped.json', JSON.stringify([...pages, [events[5]]], null, 2));
    const report = await importEvents(store, file, { orgId: ORG });
    assert.equal(report.inserted, 0);
    const advice =
      "not an event: pages gathered in an array (as jq -s writes them) are not read as pages; import the pages themselves, or one a line (jq -c '.[]' FILE)";
    assert.deepEqual(
      report.issues.map((issue) => issue.message),
      [
        `A list envelope of 3 events, ${advice}`,
        `A list envelope of 2 events, ${advice}`,
        `An array of 1 event, ${advice}`,
      ],
    );
  });

  test('an NDJSON file cut short within its last line (a page saved by an interrupted curl) says the file ends there; a broken line before the end does not', async () => {
    const page = JSON.stringify({ results: events.slice(0, 5) });
    const broken = page.slice(0, -40);
    const file = write('cut-page.json', `${broken}\n${page}\n${broken}`);
    const report = await importEvents(store, file, { orgId: ORG });
    assert.equal(report.inserted, 5);
    const [middle, last] = report.issues;
    assert.match(middle!.message, /^Not valid JSON: Unterminated string/);
    assert.equal(report.issues.length, 2);
    assert.match(
      last!.message,
      /^Not valid JSON: the file ends within this line \(cut short\?\): Unterminated string/,
    );
  });

  test("a file saved as UTF-16 (Windows PowerShell 5's > and Out-File) is refused naming its encoding and how to convert it, not as a binary file", async () => {
    const text = JSON.stringify({ results: events.slice(0, 2) }, null, 2);
    const utf16le = Buffer.concat([Buffer.from([0xff, 0xfe]), Buffer.from(text, 'utf16le')]);
    const utf16be = Buffer.from(utf16le);
    utf16be.swap16();
    for (const [name, bytes] of [
      ['le.json', utf16le],
      ['be.json', utf16be],
      ['le.json.gz', zlib.gzipSync(utf16le)],
    ] as const) {
      const file = path.join(dir, name);
      fs.writeFileSync(file, bytes);
      await assert.rejects(importEvents(store, file, { orgId: ORG }), (error: unknown) => {
        assert.ok(error instanceof ImportFatalError);
        assert.equal(
          error.message,
          'The file is not UTF-8 but UTF-16 (it opens with its byte order mark, as Windows PowerShell 5 writes files): convert it with iconv -f UTF-16 -t UTF-8',
          name,
        );
        return true;
      });
    }
    // A JPEG opens with 0xFF too, but not with UTF-16's mark: a binary file.
    const jpeg = path.join(dir, 'photo.jpg');
    fs.writeFileSync(jpeg, Buffer.from('ffd8ffe000104a46494600010100000100010000', 'hex'));
    await assert.rejects(importEvents(store, jpeg, { orgId: ORG }), /a binary file\?/);
  });

  test('a binary file (an image, random bytes, either gzip-compressed) is refused as no JSON, its summary naming no format; a one-line envelope that is no UTF-8 still says so', async () => {
    // A PNG's signature and the start of its header chunk.
    const png = Buffer.from('89504e470d0a1a0a0000000d49484452000000040000000408020000', 'hex');
    const random = (seed: string) => {
      const prng = new Prng(seed);
      return Buffer.from(Array.from({ length: 4096 }, () => prng.u32() & 0xff));
    };
    const binaries: [string, Buffer][] = [
      ['image.png', png],
      ['image.png.gz', zlib.gzipSync(png)],
      ...['a', 'b', 'c', 'd', 'e'].map((seed): [string, Buffer] => [
        `random-${seed}.bin`,
        random(seed),
      ]),
    ];
    for (const [name, bytes] of binaries) {
      const file = path.join(dir, name);
      fs.writeFileSync(file, bytes);
      await assert.rejects(importEvents(store, file, { orgId: ORG }), (error: unknown) => {
        assert.ok(error instanceof ImportFatalError, name);
        assert.match(error.message, /^The file is not JSON: it must start with/, name);
        assert.equal(error.partial?.format, null, name);
        return true;
      });
    }
    // The same bytes in an envelope on one line: it opens as JSON, and what
    // is wrong is its encoding.
    const latin1 = path.join(dir, 'latin1-one-line.json');
    fs.writeFileSync(
      latin1,
      Buffer.concat([
        Buffer.from('{"results":[{"username":"caf'),
        Buffer.from([0xe9]),
        Buffer.from('"}]}'),
      ]),
    );
    await assert.rejects(importEvents(store, latin1, { orgId: ORG }), /not valid UTF-8: byte 29/);
  });

  test('an NDJSON line holding bytes that are no UTF-8 is reported by line and byte and skipped, instead of becoming U+FFFD; the lines around it import', async () => {
    // Latin-1 "é" (0xE9) and a lone 0xFF inside a username, after two good lines.
    const target = events.find((event) => typeof event.username === 'string')!;
    const [good0, good1, good2] = events
      .filter((event) => event !== target)
      .slice(0, 3)
      .map((event) => JSON.stringify(event));
    const bad = Buffer.from(JSON.stringify({ ...target, username: 'caf#' }), 'utf8');
    const at = bad.indexOf('#');
    const badLine = Buffer.concat([
      bad.subarray(0, at),
      Buffer.from([0xe9, 0xff]),
      bad.subarray(at + 1),
    ]);
    const before = Buffer.from(`${good0}\n${good1}\n`, 'utf8');
    const bytes = Buffer.concat([before, badLine, Buffer.from(`\n${good2}\n`)]);
    // Named by its byte and line: the 0xE9, which 0xFF does not go on with.
    const offset = before.length + at + 1;
    const notUtf8 =
      /^Not valid UTF-8: a byte sequence that is no UTF-8 character \(a file in another encoding converts with iconv -t UTF-8\)$/;
    const file = path.join(dir, 'latin1.ndjson');
    fs.writeFileSync(file, bytes);
    const report = await importEvents(store, file, { orgId: ORG });
    assert.deepEqual(
      report.issues.map((issue) => [issue.location, issue.line]),
      [[`line 3, byte ${offset}`, 3]],
    );
    assert.match(report.issues[0]!.message, notUtf8);
    assert.deepEqual([report.read, report.invalid, report.inserted], [4, 1, 3]);
    assert.equal(await store.getEvent(ORG, target.id, false), null);

    // The same bytes piped, cut anywhere: the same line and byte (a stream is not read again).
    for (const cut of [before.length + 3, offset - 1, offset, offset + 1, bytes.length - 2]) {
      const piped = await importEvents(
        store,
        Readable.from([bytes.subarray(0, cut), bytes.subarray(cut)]),
        {
          orgId: ORG,
        },
      );
      assert.deepEqual(
        piped.issues.map((issue) => issue.location),
        [`line 3, byte ${offset}`],
        `cut at ${cut}`,
      );
      assert.deepEqual([piped.read, piped.invalid], [4, 1]);
    }

    // A file ending within a character: its last line is the invalid one.
    fs.writeFileSync(file, Buffer.concat([Buffer.from(`${good0}\n`), Buffer.from([0xe2, 0x82])]));
    const cut = await importEvents(store, file, { orgId: ORG });
    assert.deepEqual(
      cut.issues.map((issue) => [issue.location, issue.message]),
      [
        [
          `line 2, byte ${Buffer.byteLength(good0!) + 2}`,
          'Not valid UTF-8: the file ends within a character (a file in another encoding converts with iconv -t UTF-8)',
        ],
      ],
    );

    // The first line: decided NDJSON by the lines after it, as for a first record otherwise broken.
    fs.writeFileSync(file, Buffer.concat([badLine, Buffer.from(`\n${good0}\n${good1}\n`)]));
    const firstLine = await importEvents(store, file, { orgId: ORG });
    assert.equal(firstLine.format, 'ndjson');
    assert.deepEqual(
      firstLine.issues.map((issue) => [issue.location, issue.message]),
      [[`line 1, byte ${at + 1}`, report.issues[0]!.message]],
    );

    // The same text in UTF-8 is imported as written.
    fs.writeFileSync(file, `${JSON.stringify({ ...target, username: 'café' })}\n`);
    const fixed = await importEvents(store, file, { orgId: ORG });
    assert.deepEqual(fixed.issues, []);
    assert.equal(fixed.inserted, 1);
    const stored = await store.getEvent(ORG, target.id, false);
    assert.equal((JSON.parse(stored!.doc) as { username: string }).username, 'café');
  });

  test('bytes that are no UTF-8 across reads: a line cut by a read, a character cut by one, lines in UTF-8 after them', async () => {
    const [a, b, c, d] = events
      .slice(0, 4)
      .map((event) => ({ ...event, username: `${event.id}-é€` }));
    const line = (event: EventInput) => Buffer.from(`${JSON.stringify(event)}\n`, 'utf8');
    // B's "€" (E2 82 AC) is cut by a read, then a lone FF a little later in B;
    // C begins with an "é" cut from its second byte (C3, then "A"), a
    // sequence that begins in the read before the one that shows it wrong;
    // D is good, with "é€" read whole.
    const lineB = line(b!);
    const euro = lineB.indexOf(Buffer.from('€'));
    const badB = Buffer.concat([
      lineB.subarray(0, euro + 5),
      Buffer.from([0xff]),
      lineB.subarray(euro + 5),
    ]);
    const lineC = Buffer.concat([Buffer.from([0xc3]), Buffer.from('A'), line(c!)]);
    const reads = [
      Buffer.concat([line(a!), badB.subarray(0, euro + 1)]),
      badB.subarray(euro + 1, euro + 3),
      Buffer.concat([badB.subarray(euro + 3), lineC.subarray(0, 1)]),
      Buffer.concat([lineC.subarray(1, 40)]),
      Buffer.concat([lineC.subarray(40), line(d!)]),
    ];
    const start = line(a!).length;
    const report = await importEvents(store, Readable.from(reads), { orgId: ORG });
    assert.deepEqual(
      report.issues.map((issue) => issue.location),
      [`line 2, byte ${start + euro + 6}`, `line 3, byte ${start + badB.length + 1}`],
    );
    assert.deepEqual([report.read, report.invalid, report.inserted], [4, 2, 2]);
    for (const [event, kept] of [
      [a!, true],
      [b!, false],
      [c!, false],
      [d!, true],
    ] as const) {
      const stored = await store.getEvent(ORG, event.id, false);
      assert.equal(
        stored === null ? null : (JSON.parse(stored.doc) as { username: string }).username,
        kept ? event.username : null,
      );
    }
  });

  test('random reads of NDJSON with random bytes that are no UTF-8: exactly the lines that are not UTF-8 are reported, once each, and every other line is imported as written', async () => {
    const prng = new Prng('not utf-8');
    const strict = new TextDecoder('utf-8', { fatal: true });
    const isUtf8 = (bytes: Buffer) => {
      try {
        strict.decode(bytes);
        return true;
      } catch {
        return false;
      }
    };
    const withUsername = events.filter((event) => typeof event.username === 'string');
    const noUtf8 = [
      [0x80],
      [0xbf],
      [0xc0],
      [0xc1],
      [0xf5],
      [0xff],
      [0xe2, 0x82],
      [0xf0, 0x9d, 0x84],
    ];
    for (let round = 0; round < 8; round++) {
      await freshStore();
      // Events with a username (one with a publicKey cannot have one).
      const written = withUsername.slice(round * 60, round * 60 + 60).map((event, i) => ({
        ...event,
        username: `${event.id}-${['é', '€', '𝄞', 'a'][i % 4]}`,
      }));
      const lines = written.map((event) => {
        const bytes = Buffer.from(JSON.stringify(event), 'utf8');
        if (!prng.chance(0.25)) return bytes;
        const at = prng.int(bytes.length + 1);
        return Buffer.concat([
          bytes.subarray(0, at),
          Buffer.from(prng.pick(noUtf8)),
          bytes.subarray(at),
        ]);
      });
      const bad = lines.flatMap((bytes, i) => (isUtf8(bytes) ? [] : [i + 1]));
      const text = Buffer.concat(lines.flatMap((bytes) => [bytes, Buffer.from('\n')]));
      const reads: Buffer[] = [];
      for (let at = 0; at < text.length; ) {
        const size = prng.pick([1, 2, 3, prng.range(4, 300), prng.range(300, 5000)]);
        reads.push(text.subarray(at, at + size));
        at += size;
      }
      const report = await importEvents(store, Readable.from(reads), { orgId: ORG });
      assert.deepEqual(
        report.issues.map((issue) => issue.line),
        bad,
        `round ${round}`,
      );
      // Each named by a byte of its own line (1-based offsets).
      const starts = lines.map((_, i) =>
        lines.slice(0, i).reduce((sum, l) => sum + l.length + 1, 0),
      );
      for (const issue of report.issues) {
        assert.match(issue.message, /^Not valid UTF-8: /);
        const byte = Number(/, byte (\d+)$/.exec(issue.location)?.[1]);
        const start = starts[issue.line - 1]!;
        assert.ok(byte > start && byte <= start + lines[issue.line - 1]!.length, issue.location);
      }
      assert.equal(report.inserted, written.length - bad.length);
      for (const [i, event] of written.entries()) {
        const stored = await store.getEvent(ORG, event.id, false);
        if (bad.includes(i + 1)) assert.equal(stored, null);
        else
          assert.equal((JSON.parse(stored!.doc) as { username: string }).username, event.username);
      }
    }
  });

  test('bytes that are no UTF-8 in a JSON document stop its import, naming byte and line (no part of a document can be skipped)', async () => {
    const target = events[7]!;
    const text = JSON.stringify(
      { links: [], results: [events[6], { ...target, username: 'caf#' }] },
      null,
      2,
    );
    const at = Buffer.from(text).indexOf('#');
    const file = path.join(dir, 'latin1.json');
    const bytes = Buffer.from(text, 'utf8');
    fs.writeFileSync(
      file,
      Buffer.concat([bytes.subarray(0, at), Buffer.from([0xe9]), bytes.subarray(at + 1)]),
    );
    const line = text.slice(0, at).split('\n').length;
    await assert.rejects(
      importEvents(store, file, { orgId: ORG }),
      new RegExp(
        `The file is not valid UTF-8: byte ${at + 1} \\(line ${line}\\) begins a byte sequence that is no UTF-8 character`,
      ),
    );
    assert.equal(await store.getEvent(ORG, target.id, false), null);
  });

  test('an event with a field of its own named results is one record, never a page: too large it is reported, pretty-printed alone it is one record (its results before its id too), and none of its inner objects is stored', async () => {
    const [outer, ...inner] = events.slice(0, 5);
    for (const field of ['results', 'content']) {
      await freshStore();
      const list = inner.map((e) => ({ ...e }));
      const record = { ...outer!, [field]: field === 'results' ? list : { results: list } };
      const line = JSON.stringify(record);
      const file = write(`field-${field}.ndjson`, `${line}\n`);
      const limit = Buffer.byteLength(line) - 1;
      const report = await importEvents(store, file, { orgId: ORG, maxRecordBytes: limit });
      assert.deepEqual(
        [report.read, report.invalid, report.inserted, report.issues[0]?.location],
        [1, 1, 0, 'line 1'],
        field,
      );
      assert.match(report.issues[0]!.message, /larger than/);
      // Under the limit it is one event, its field kept.
      const whole = await importEvents(store, file, { orgId: ORG });
      assert.deepEqual([whole.read, whole.inserted], [1, 1]);
      for (const e of inner) assert.equal(await store.getEvent(ORG, e.id, false), null, field);
    }
    // The same event pretty-printed alone is one record, its field kept,
    // whether its `results` comes after its id or before it (read as a page
    // until the id showed, it was refused, its inner events stored by then).
    await freshStore();
    const sorted = await importEvents(
      store,
      write('one-event.json', JSON.stringify({ ...outer!, results: inner }, null, 2)),
      { orgId: ORG },
    );
    assert.deepEqual([sorted.read, sorted.inserted], [1, 1]);
    assert.match((await store.getEvent(ORG, outer!.id, false))?.doc ?? '', /"results":\[/);
    for (const e of inner) assert.equal(await store.getEvent(ORG, e.id, false), null);
    await freshStore();
    const first = await importEvents(
      store,
      write('results-first.json', JSON.stringify({ results: inner, ...outer! }, null, 2)),
      { orgId: ORG, batchSize: 1 },
    );
    assert.deepEqual([first.format, first.read, first.inserted, first.invalid], ['event', 1, 1, 0]);
    assert.match((await store.getEvent(ORG, outer!.id, false))?.doc ?? '', /"results":\[/);
    for (const e of inner) assert.equal(await store.getEvent(ORG, e.id, false), null);
  });

  test("an envelope=true answer holding one event (curl …/events/ID?envelope=true) imports as that event, stored as its content's own text, pretty-printed or not, its own results before or after its id, also appended one after another", async () => {
    const [one, two, three] = events.slice(0, 3);
    const inner = events.slice(3, 5);
    // Its own field named results, before its id or after it.
    const oneFirst = { results: inner, ...one! };
    const oneAfter = { ...one!, results: inner };
    const twoFirst = { results: inner, ...two! };
    const compact = (event: object) => `{"status":200,"content":${JSON.stringify(event)}}`;
    const cases: [string, string, EventInput[]][] = [
      ['enveloped.json', JSON.stringify({ status: 200, content: one }, null, 2), [one!]],
      ['enveloped-one-line.json', compact(one!), [one!]],
      [
        'enveloped-results-first.json',
        JSON.stringify({ status: 200, content: oneFirst }, null, 2),
        [oneFirst],
      ],
      ['enveloped-results-after.json', compact(oneAfter), [oneAfter]],
      // curl >> FILE of three answers, each ending without a line break, the last on a line of its own.
      [
        'enveloped-appended.json',
        `${compact(one!)}${compact(twoFirst)}\n${compact(three!)}\n`,
        [one!, twoFirst, three!],
      ],
    ];
    for (const [name, text, expected] of cases) {
      await freshStore();
      const report = await importEvents(store, write(name, text), { orgId: ORG, batchSize: 1 });
      assert.deepEqual(
        [report.read, report.inserted, report.invalid, report.issues],
        [expected.length, expected.length, 0, []],
        name,
      );
      // Each stored as its content's own text (compact here): its own results kept.
      for (const event of expected) {
        const stored = await store.getEvent(ORG, event.id, true);
        const expectedRow = encodeEvent(ORG, eventInputSchema.parse(event), JSON.stringify(event));
        // The sort key of a whole-second created lies inside its second (ListingOrder).
        assert.deepEqual(stored, { ...expectedRow, created: stored?.created, orgId: ORG }, name);
      }
      for (const e of inner) assert.equal(await store.getEvent(ORG, e.id, false), null, name);
    }
  });

  test('a page whose totalCount is more than the events the file holds is imported with a warning that the file holds only part of its listing; pages adding up, a totalCount of 0 (not counted) or a file of no page are not', async () => {
    const links = [{ href: 'https://x/events?pageNum=1&itemsPerPage=3', rel: 'self' }];
    const pageObject = (from: number, totalCount: unknown) => ({
      links,
      results: events.slice(from, from + 3),
      totalCount,
    });
    const page = (from: number, totalCount: unknown) =>
      JSON.stringify(pageObject(from, totalCount));
    const onePage =
      'The file holds one page of a longer listing: 3 of its 1,250 events ("totalCount": 1250). ' +
      "Import its other pages too (pageNum=2, 3, …; itemsPerPage up to 500), or copy the organization whole with 'mirror'.";
    const cases: [string, string, string[]][] = [
      ['page-1.json', JSON.stringify(pageObject(0, 1250), null, 2), [onePage]],
      ['page-1-one-line.json', page(0, 1250), [onePage]],
      [
        'page-1-content.json',
        JSON.stringify({ status: 200, content: pageObject(0, 1250) }),
        [onePage],
      ],
      // Saved by curl >> FILE, a page a line (NDJSON) or pretty-printed in a row.
      [
        'pages-short.ndjson',
        `${page(0, 9)}\n${page(3, 9)}\n`,
        [
          'The file holds 2 pages of a longer listing: 6 of its 9 events ("totalCount": 9). ' +
            "Import its other pages too (pageNum=2, 3, …; itemsPerPage up to 500), or copy the organization whole with 'mirror'.",
        ],
      ],
      ['pages-whole.ndjson', `${page(0, 6)}\n${page(3, 6)}\n`, []],
      // Fetched one by one while an event came in: the listing grew from 5 to 6.
      ['pages-growing.ndjson', `${page(0, 5)}\n${page(3, 6)}\n`, []],
      [
        'pages-whole.json',
        `${JSON.stringify(pageObject(0, 6), null, 2)}\n${JSON.stringify(pageObject(3, 6), null, 2)}`,
        [],
      ],
      // includeCount=false: the API sends 0.
      ['not-counted.json', page(0, 0), []],
      ['array.json', JSON.stringify(events.slice(0, 3)), []],
      [
        'events.ndjson',
        events
          .slice(0, 3)
          .map((e) => JSON.stringify(e))
          .join('\n'),
        [],
      ],
    ];
    for (const [name, text, warnings] of cases) {
      await freshStore();
      const report = await importEvents(store, write(name, text), { orgId: ORG });
      assert.deepEqual(
        [report.inserted, report.invalid, report.warnings ?? []],
        [name.startsWith('pages') ? 6 : 3, 0, warnings],
        name,
      );
    }
  });

  test('a page whose totalCount is no number, or whose links is no array, is no page as the API writes it: its records import, with a warning saying so', async () => {
    const results = events.slice(0, 2);
    const cases: [string, object, string][] = [
      [
        'count-string.json',
        { links: [], results, totalCount: '1250' },
        'Line 1: the page\'s "totalCount" is a string, not a number: it is no page as the API writes it, so whether the file holds every page of its listing was not checked',
      ],
      [
        'count-null.json',
        { results, totalCount: null },
        'Line 1: the page\'s "totalCount" is null, not a number: it is no page as the API writes it, so whether the file holds every page of its listing was not checked',
      ],
      [
        'links-object.json',
        { links: { rel: 'self' }, results, totalCount: 2 },
        'Line 1: the page\'s "links" is an object, not an array: it is no page as the API writes it, so whether the file holds every page of its listing was not checked',
      ],
    ];
    for (const [name, value, warning] of cases) {
      for (const [suffix, text] of [
        ['', JSON.stringify(value, null, 2)],
        ['.ndjson', `${JSON.stringify(value)}\n${JSON.stringify(value)}\n`],
      ] as const) {
        await freshStore();
        const report = await importEvents(store, write(name + suffix, text), { orgId: ORG });
        assert.deepEqual(
          [report.inserted, report.invalid, report.warnings],
          // Said once, for the first page, the others counted.
          [2, 0, [suffix === '' ? warning : `${warning} (nor for 1 more such page)`]],
          name + suffix,
        );
      }
    }
  });

  test('a truncated file keeps the whole batches before the break, and says where it broke', async () => {
    const text = JSON.stringify(events.slice(0, 100), null, 2);
    const file = write('truncated.json', text.slice(0, Math.floor(text.length * 0.8)));
    let error: unknown;
    try {
      await importEvents(store, file, { orgId: ORG, batchSize: 25 });
    } catch (caught) {
      error = caught;
    }
    assert.ok(error instanceof ImportFatalError);
    assert.match(error.message, /truncated|Unterminated/);
    const partial = error.partial as ImportReport;
    assert.ok(partial.read >= 75 && partial.read < 100, `read ${partial.read}`);
    assert.equal(partial.inserted % 25, 0);
    assert.equal(await store.countEvents({ orgId: ORG }), partial.inserted);
  });

  test('an array or envelope with a comma trailing, doubled or missing is refused, naming the line and column, not imported as if the commas were right', async () => {
    const [a, b] = [JSON.stringify(events[0]), JSON.stringify(events[1])];
    const cases: [string, string, RegExp][] = [
      ['trailing.json', `[${a},\n${b},\n]`, /a trailing comma\) \(line 3, column 1\)/],
      [
        'double.json',
        `[${a},,\n${b}]`,
        new RegExp(
          `two commas in a row, or one after '\\['\\) \\(line 1, column ${a.length + 3}\\)`,
        ),
      ],
      ['no-comma.json', `[${a}\n${b}]`, /a missing comma\) \(line 2, column 1\)/],
      [
        'envelope.json',
        `{"results": [${a},\n${b}]\n"totalCount": 2}`,
        /after a member, found '"' \(a missing comma\) \(line 3, column 1\)/,
      ],
    ];
    for (const [name, text, message] of cases) {
      await freshStore();
      await assert.rejects(
        importEvents(store, write(name, text), { orgId: ORG }),
        (error: unknown) =>
          error instanceof ImportFatalError &&
          error.message.startsWith('The file is not valid JSON: Expected ') &&
          message.test(error.message),
        name,
      );
    }
  });

  /**
   * Imports each case's text into a fresh store: it must be refused as not
   * valid JSON with the case's message, and store nothing.
   */
  async function refusedAsInvalidJson(cases: [string, string, string][]): Promise<void> {
    for (const [name, text, message] of cases) {
      await freshStore();
      await assert.rejects(
        importEvents(store, write(name, text), { orgId: ORG }),
        (error: unknown) => {
          assert.ok(error instanceof ImportFatalError, name);
          assert.equal(error.message, `The file is not valid JSON: ${message}`, name);
          return true;
        },
      );
      assert.equal(await store.countEvents({ orgId: ORG }), 0, name);
    }
  }

  /** Imports `text` as the file `name`, gathering the location of every issue reported. */
  async function importLocatingIssues(name: string, text: string) {
    const issues: string[] = [];
    const report = await importEvents(store, write(name, text), {
      orgId: ORG,
      onIssue: (issue) => issues.push(issue.location),
    });
    return { report, issues };
  }

  test('an array of bare values or a one-line envelope with a comma missing between its records is refused naming its line and column, not read as one invalid record', async () => {
    const [a, b] = [JSON.stringify(events[0]), JSON.stringify(events[1])];
    const cases: [string, string, string][] = [
      ['numbers.json', '[1 2]', "found '2' (a missing comma) (line 1, column 4)"],
      ['strings.json', '[\n"x"\n"y"\n]', `found '"' (a missing comma) (line 3, column 1)`],
      [
        'one-line-array.json',
        `[${a} ${b}]`,
        `found '{' (a missing comma) (line 1, column ${a.length + 3})`,
      ],
      // What `curl` saves of an answer: one line, no line break after it.
      [
        'one-line-envelope.json',
        `{"results":[${a} ${b}],"totalCount":2}`,
        `found '{' (a missing comma) (line 1, column ${a.length + 14})`,
      ],
      [
        'one-line-content.json',
        `{"status":200,"content":{"results":[${a}\t${b}]}}`,
        `found '{' (a missing comma) (line 1, column ${a.length + 38})`,
      ],
    ];
    await refusedAsInvalidJson(
      cases.map(([name, text, message]) => [
        name,
        text,
        `Expected ',' or ']' after an element, ${message}`,
      ]),
    );
  });

  test('a file of several lines whose first line opens a list envelope and breaks on it is that envelope, refused naming its line and column, not NDJSON of per-line errors', async () => {
    const [a, b] = [JSON.stringify(events[0]), JSON.stringify(events[1])];
    const cases: [string, string, string][] = [
      [
        'garbage.json',
        `{"results": [ garbage here\n${a},\n${b}\n]}\n`,
        "Invalid literal 'garbage' (JSON's literals are true, false and null; a string needs quotes) (line 1, column 15)",
      ],
      [
        'after-record.json',
        `{"results": [${a} x\n${b}\n]}\n`,
        `Expected ',' or ']' after an element, found 'x' (a missing comma) (line 1, column ${a.length + 15})`,
      ],
      [
        'before-records.json',
        `{"links": [] "results": [${a},\n${b}\n]}\n`,
        `Expected ',' or '}' after a member, found '"' (a missing comma) (line 1, column 14)`,
      ],
      [
        'content.json',
        `{"status": 200, "content": {"results": [ xx yy\n${a}\n]}}\n`,
        "Invalid literal 'xx' (JSON's literals are true, false and null; a string needs quotes) (line 1, column 42)",
      ],
    ];
    for (const [name, text, message] of cases) {
      await freshStore();
      const issues: string[] = [];
      await assert.rejects(
        importEvents(store, write(name, text), {
          orgId: ORG,
          onIssue: (issue) => issues.push(issue.message),
        }),
        (error: unknown) => {
          assert.ok(error instanceof ImportFatalError, name);
          assert.equal(error.message, `The file is not valid JSON: ${message}`, name);
          assert.equal(error.summary?.format, 'envelope', name);
          return true;
        },
      );
      assert.deepEqual(issues, [], name);
    }
    // A broken event on the first line, its own "results" included, is still NDJSON's one invalid record.
    const event = { ...events[2], results: [1] };
    const ndjson = `${JSON.stringify(event).replace('"results":[1]', '"results":[1 2]')}\n${b}\n`;
    const report = await importEvents(store, write('ndjson.json', ndjson), { orgId: ORG });
    assert.equal(report.format, 'ndjson');
    assert.equal(report.inserted, 1);
    assert.equal(report.invalid, 1);
    // So is one cut short after its "id", its own "results" broken before it.
    await freshStore();
    const cut = `{"results": [1 2], "id": "${events[2]!.id}", "created": "2026\n${b}\n`;
    const cutReport = await importEvents(store, write('cut.json', cut), { orgId: ORG });
    assert.equal(cutReport.format, 'ndjson');
    assert.equal(cutReport.inserted, 1);
    assert.equal(cutReport.invalid, 1);
  });

  test('a broken literal between records (`tru e`) stops the import naming it at its line and column, and a broken bare record (`-`, `1.`, `01`, `tru`) is an invalid record saying what is wrong with it', async () => {
    const [a, b] = [JSON.stringify(events[0]), JSON.stringify(events[1])];
    await assert.rejects(
      importEvents(store, write('literal.json', `[${a},\n  tru e,\n${b}]`), { orgId: ORG }),
      (error: unknown) => {
        assert.ok(error instanceof ImportFatalError);
        assert.equal(
          error.message,
          "The file is not valid JSON: Invalid literal 'tru' (JSON's literals are true, false and null; a string needs quotes) (line 2, column 3)",
        );
        return true;
      },
    );
    await freshStore();
    const report = await importEvents(
      store,
      write('bare.json', `[${a},\n-,\n1.,\n01,\ntru,\nnul,\n${b}]`),
      { orgId: ORG },
    );
    assert.equal(report.inserted, 2);
    assert.deepEqual(
      report.issues.map((issue) => `${issue.location}: ${issue.message}`),
      [
        "[1] (line 2): Not valid JSON: Invalid number '-': no digit after the minus sign",
        "[2] (line 3): Not valid JSON: Invalid number '1.': no digit after the decimal point",
        "[3] (line 4): Not valid JSON: Invalid number '01': a number cannot start with 0 followed by a digit",
        "[4] (line 5): Not valid JSON: Invalid literal 'tru' (JSON's literals are true, false and null; a string needs quotes)",
        "[5] (line 6): Not valid JSON: Invalid literal 'nul' (JSON's literals are true, false and null; a string needs quotes)",
      ],
    );
  });

  test('a one-line list envelope whose comma or colon is missing before its records array is refused naming its line and column, not read as one invalid record', async () => {
    const a = JSON.stringify(events[0]);
    const cases: [string, string, string][] = [
      [
        'links-first.json',
        `{"links":[] "results":[${a}],"totalCount":1}`,
        `Expected ',' or '}' after a member, found '"' (a missing comma) (line 1, column 13)`,
      ],
      [
        'count-colon.json',
        `{"links":[],"totalCount" 1,"results":[${a}]}`,
        `Expected ':' after a member's key, found '1' (line 1, column 26)`,
      ],
      [
        'content-first.json',
        `{"status":200 "content":{"results":[${a}]}}`,
        `Expected ',' or '}' after a member, found '"' (a missing comma) (line 1, column 15)`,
      ],
    ];
    await refusedAsInvalidJson(cases);
    // One event on one line with a comma missing is still NDJSON of one
    // invalid record (jq -c . of an event, then edited), its own field
    // named results notwithstanding.
    await freshStore();
    const event = `{"id":"${events[0]!.id}" "results":[],${a.slice(1).replace(/"id":"[^"]*",/, '')}`;
    const { report, issues } = await importLocatingIssues('event.ndjson', event);
    assert.deepEqual(
      [report.format, report.read, report.invalid, ...issues],
      ['ndjson', 1, 1, 'line 1'],
    );
  });

  test('NDJSON whose first two lines are records with a comma too many or too few is still NDJSON: each is one invalid record, the rest import', async () => {
    const [a, b, c] = events.slice(0, 3).map((event) => JSON.stringify(event));
    const text = `${a!.replace(',', ',,')}\n${b!.replace(',', ' ')}\n${c}\n`;
    const { report, issues } = await importLocatingIssues('broken-first.ndjson', text);
    assert.deepEqual(
      [report.format, report.read, report.inserted, report.invalid, ...issues],
      ['ndjson', 3, 1, 2, 'line 1', 'line 2'],
    );
  });

  test('NDJSON whose first two lines each hold a stray quote (so end inside a string) is still NDJSON: each is one invalid record, the rest import', async () => {
    // A quote left unescaped: the rest of the line is read out of step,
    // its commas and colons misplaced, and the line ends inside a string,
    // which no pretty-printed document's first line does.
    const [a, b, c] = events.slice(0, 3).map((event) => JSON.stringify(event));
    const stray = (line: string) => line.replace('"eventTypeName"', '"event"TypeName"');
    const text = `${stray(a!)}\n${stray(b!)}\n${c}\n`;
    const { report, issues } = await importLocatingIssues('stray-quote.ndjson', text);
    assert.deepEqual(
      [report.format, report.read, report.inserted, report.invalid, ...issues],
      ['ndjson', 3, 1, 2, 'line 1', 'line 2'],
    );
  });

  test('a truncated file keeps its whole batches also while all it held shared one second', async () => {
    // Until a second second shows, full batches are held back to learn the file's direction.
    const created = '2025-03-01T10:00:00Z';
    const text = JSON.stringify(events.slice(0, 5).map((e) => ({ ...e, created })));
    const file = write('one-second.json', text.slice(0, text.length - 40));
    await assert.rejects(
      importEvents(store, file, { orgId: ORG, batchSize: 2 }),
      (error: unknown) => {
        assert.ok(error instanceof ImportFatalError);
        const partial = error.partial as ImportReport;
        assert.deepEqual([partial.read, partial.inserted], [4, 4]);
        return true;
      },
    );
    assert.equal(await store.countEvents({ orgId: ORG }), 4);
  });

  test('a gzip-compressed file imports as its text does, members concatenated or not; a damaged or cut short one keeps none of its events', async () => {
    await freshStore();
    const ndjson = events.map((e) => JSON.stringify(e)).join('\n');
    const half = ndjson.indexOf('\n', ndjson.length / 2) + 1;
    // Two members, as `cat a.gz b.gz` makes.
    const compressed = Buffer.concat([
      zlib.gzipSync(ndjson.slice(0, half)),
      zlib.gzipSync(ndjson.slice(half)),
    ]);
    const file = path.join(dir, 'events.ndjson.gz');
    fs.writeFileSync(file, compressed);
    const progress: number[] = [];
    const report = await importEvents(store, file, {
      orgId: ORG,
      onProgress: (bytes) => progress.push(bytes),
    });
    assert.deepEqual([report.format, report.inserted, report.issues], ['ndjson', 1200, []]);
    // Progress counts the file's own bytes, what its size on disk measures.
    assert.equal(report.bytes, compressed.length);
    assert.equal(progress.at(-1), compressed.length);
    await assertStored(events);

    // From a pipe whose first chunk is a single byte: a JSON array.
    await freshStore();
    const array = zlib.gzipSync(JSON.stringify(events));
    const piped = await importEvents(
      store,
      Readable.from([array.subarray(0, 1), array.subarray(1, 5000), array.subarray(5000)]),
      { orgId: ORG },
    );
    assert.deepEqual([piped.format, piped.inserted], ['array', 1200]);

    await freshStore();
    const truncated = path.join(dir, 'truncated.ndjson.gz');
    fs.writeFileSync(truncated, compressed.subarray(0, compressed.length - 200));
    await assert.rejects(importEvents(store, truncated, { orgId: ORG }), (error: unknown) => {
      assert.ok(error instanceof ImportFatalError);
      assert.match(
        error.message,
        /^The file is gzip-compressed but cut short at or before byte [\d,]+: unexpected end of file; fix the file and re-run$/,
      );
      return true;
    });

    // Bytes after the last member that are not gzip: what came before passed
    // its checksums, so what was imported of it stays (not void).
    await freshStore();
    const trailing = path.join(dir, 'trailing.ndjson.gz');
    fs.writeFileSync(trailing, Buffer.concat([compressed, Buffer.from('garbage\n')]));
    await assert.rejects(
      importEvents(store, trailing, { orgId: ORG, batchSize: 100 }),
      (error: unknown) => {
        assert.ok(error instanceof ImportFatalError);
        assert.match(
          error.message,
          /^The file is gzip-compressed, and after its last whole gzip member come bytes that are not gzip \(trailing garbage\)\. What came before them passed its checksums; gunzip -c FILE > FILE\.ndjson writes it without them \(with a warning\): import that$/,
        );
        assert.equal(error.voidsRun, false);
        return true;
      },
    );
    const [kept] = await store.listIngestRuns(ORG);
    assert.equal(kept?.status, 'failed');
    assert.equal(await store.countEvents({ orgId: ORG }), kept?.inserted);

    // A byte changed inside the archive: its checksum, checked at the end,
    // fails after batches of the altered text were committed. None stays.
    await freshStore();
    const stored = zlib.gzipSync(ndjson, { level: 0 }); // stored blocks: the change reaches the text as it is
    const flipped = Buffer.from(stored);
    const at = flipped.indexOf(events[10]!.id);
    flipped[at] = flipped[at] === 0x61 ? 0x62 : 0x61;
    const damaged = path.join(dir, 'flipped.ndjson.gz');
    fs.writeFileSync(damaged, flipped);
    await assert.rejects(
      importEvents(store, damaged, { orgId: ORG, batchSize: 100 }),
      (error: unknown) => {
        assert.ok(error instanceof ImportFatalError);
        const removed = /incorrect data check.*the ([\d,]+) events it had stored were removed/.exec(
          error.message,
        );
        assert.ok(removed && Number(removed[1]!.replace(/,/g, '')) > 0, error.message);
        assert.equal(error.partial?.inserted, 0);
        return true;
      },
    );
    assert.equal(await store.countEvents({ orgId: ORG }), 0);
    const [run] = await store.listIngestRuns(ORG);
    assert.equal(run?.status, 'undone');
    assert.match(String(run?.detail), /incorrect data check; void: .* events were removed at once/);

    // Cut short after that change: what came before the cut was never
    // checked either, so none of it stays.
    await freshStore();
    const cut = path.join(dir, 'cut.ndjson.gz');
    fs.writeFileSync(cut, flipped.subarray(0, Math.floor(flipped.length / 2)));
    await assert.rejects(
      importEvents(store, cut, { orgId: ORG, batchSize: 100 }),
      /cut short .*nothing of this import is kept/,
    );
    assert.equal(await store.countEvents({ orgId: ORG }), 0);

    // Part of it stored by an earlier run (an import of the archive stopped
    // midway): those stay, unverified as well, and a re-run would skip them.
    // Said, with the undo to run, not left under "nothing of this import is kept".
    await freshStore();
    const earlier = path.join(dir, 'earlier.ndjson');
    fs.writeFileSync(
      earlier,
      events
        .slice(0, 50)
        .map((e) => JSON.stringify(e))
        .join('\n'),
    );
    const first = await importEvents(store, earlier, { orgId: ORG });
    await assert.rejects(
      importEvents(store, damaged, { orgId: ORG, batchSize: 100 }),
      (error: unknown) => {
        assert.ok(error instanceof ImportFatalError);
        // 49: the 50th, event 10, has the altered id.
        assert.match(
          error.message,
          /nothing of this import is kept: the [\d,]+ events it had stored were removed; 49 events it found already present stay \(stored by earlier runs: if one of them read this archive, they are unverified too; 'imports list' names it and 'imports undo' removes them\); fix the file and re-run$/,
        );
        return true;
      },
    );
    assert.equal(await store.countEvents({ orgId: ORG }), 50);
    assert.equal(first.inserted, 50);

    // Removing the events fails (the database refuses): said, with what to run, and counted as stored.
    await freshStore();
    const deleteEvents = store.deleteEvents.bind(store);
    store.deleteEvents = () => Promise.reject(new Error('database is locked'));
    try {
      await assert.rejects(
        importEvents(store, damaged, { orgId: ORG, batchSize: 100 }),
        (error: unknown) => {
          assert.ok(error instanceof ImportFatalError);
          assert.match(
            error.message,
            /removing what this import stored failed \(database is locked\): run 'imports undo [0-9a-f]{24}'$/,
          );
          assert.ok((error.partial?.inserted ?? 0) > 0);
          return true;
        },
      );
    } finally {
      store.deleteEvents = deleteEvents;
    }
    const [failed] = await store.listIngestRuns(ORG);
    assert.equal(failed?.status, 'failed');
    assert.match(String(failed?.detail), /void: .*'imports undo /);
  });

  test('a missing file is a clear error', async () => {
    await assert.rejects(
      importEvents(store, path.join(dir, 'missing.json'), { orgId: ORG }),
      /Cannot read .*missing\.json: no such file/,
    );
  });

  test('a record over the size limit is reported with its line and size, the rest import (NDJSON and arrays)', async () => {
    const big = JSON.stringify({ ...events[1], raw: { blob: 'x'.repeat(5000) } });
    const small = [events[0], events[2]].map((e) => JSON.stringify(e));
    const ndjson = await importEvents(
      store,
      write('big.ndjson', [small[0], big, small[1]].join('\n')),
      { orgId: ORG, maxRecordBytes: 4096 },
    );
    assert.equal(ndjson.inserted, 2);
    assert.equal(ndjson.issues.length, 1);
    assert.equal(ndjson.issues[0]!.line, 2);
    assert.match(
      ndjson.issues[0]!.message,
      /larger than the 4,096-byte limit \([\d,]+ bytes or more/,
    );

    // Below the highest limit the message says how to raise it; at it, that there is no higher.
    assert.match(tooLargeMessage(5000, 4096), /raise it with --max-record-bytes/);
    assert.doesNotMatch(
      tooLargeMessage(MAX_RECORD_BYTES_LIMIT + 1, MAX_RECORD_BYTES_LIMIT),
      /raise it/,
    );

    // In an array the oversize element is dropped while it streams in, chunk by chunk.
    const array = `[\n${[small[0], big, small[1]].join(',\n')}\n]`;
    const chunks = Readable.from(array.match(/[\s\S]{1,700}/g)!);
    const fromArray = await importEvents(store, chunks, { orgId: ORG, maxRecordBytes: 4096 });
    assert.equal(fromArray.duplicates, 2);
    assert.deepEqual(
      fromArray.issues.map((i) => [i.location, /4,096-byte limit/.test(i.message)]),
      [['[1] (line 3)', true]],
    );
  });

  test('an event nesting past 100 levels is reported, one at 100 imports (NDJSON, arrays and pages)', async () => {
    await freshStore();
    /** events[i] with `raw` nested so that the whole event is `levels` deep. */
    const nested = (i: number, levels: number): string => {
      const raw = `${'['.repeat(levels - 2)}"deep ] { \\" [["${']'.repeat(levels - 2)}`;
      return JSON.stringify({ ...events[i], raw: { x: 1 } }).replace('{"x":1}', `{"x":${raw}}`);
    };
    const atLimit = nested(0, 100);
    const pastLimit = nested(1, 101);
    const farPast = nested(2, 200_000);
    assert.equal((JSON.parse(atLimit) as { id: string }).id, events[0]!.id);
    const ndjson = await importEvents(
      store,
      write('deep.ndjson', [atLimit, pastLimit, farPast].join('\n')),
      { orgId: ORG },
    );
    assert.equal(ndjson.inserted, 1);
    assert.deepEqual(
      ndjson.issues.map((issue) => [issue.line, /more than 100 levels deep/.test(issue.message)]),
      [
        [2, true],
        [3, true],
      ],
    );
    const stored = await store.getEvent(ORG, events[0]!.id, true);
    assert.ok(
      stored?.raw?.includes('"deep ] { \\" [["'),
      'kept verbatim, brackets in strings and all',
    );

    // The same records in an array, and in a saved page whose envelope adds a level.
    await freshStore();
    const array = await importEvents(store, write('deep.json', `[${atLimit},${pastLimit}]`), {
      orgId: ORG,
    });
    assert.deepEqual([array.inserted, array.issues.length], [1, 1]);
    await freshStore();
    const page = await importEvents(
      store,
      write('deep-page.ndjson', `{"results":[${atLimit},${pastLimit}],"totalCount":2}`),
      { orgId: ORG },
    );
    assert.deepEqual([page.inserted, page.issues.length], [1, 1]);
  });

  test('an array read in chunks as large as the record limit loses no record at the chunk edges', async () => {
    // Each chunk boundary falls inside some record; a record there is no
    // larger than the limit even though the record so far plus the next
    // chunk is (the import reads 1 MB chunks with a 1 MB default limit).
    const array = `{"results": [\n${events.map((e) => JSON.stringify(e)).join(',\n')}\n]}`;
    const chunks = Readable.from(array.match(/[\s\S]{1,4096}/g)!);
    const report = await importEvents(store, chunks, { orgId: ORG, maxRecordBytes: 4096 });
    assert.deepEqual(report.issues, []);
    assert.equal(report.inserted, events.length);
  });

  test('a source that pauses has the records read so far handed on as a batch during the pause', async () => {
    // A pipe whose writer stops mid-batch (tail -f | import -): the first
    // records must not wait for a batch that may never fill.
    let reachedFirstBatch!: () => void;
    const firstBatchSeen = new Promise<void>((resolve) => (reachedFirstBatch = resolve));
    const lines = events.slice(0, 30).map((e) => `${JSON.stringify(e)}\n`);
    async function* pausingSource() {
      yield lines.slice(0, 10).join('');
      // Resumes only once the reader has handed on the first ten (or after
      // 10 s, when the test fails below).
      await Promise.race([firstBatchSeen, new Promise((resolve) => setTimeout(resolve, 10_000))]);
      yield lines.slice(10).join('');
    }
    const started = Date.now();
    const batches: number[] = [];
    for await (const batch of readEventBatches(pausingSource(), { orgId: ORG, batchSize: 1000 })) {
      batches.push(batch.count);
      if (batches.length === 1) {
        assert.ok(Date.now() - started < 5000, 'the first ten came during the pause');
        reachedFirstBatch();
      }
    }
    assert.deepEqual(batches, [10, 20]);
  });

  test('created is stored in the served form (UTC, milliseconds only when not zero), whatever form it came in', async () => {
    const forms: [string, string][] = [
      ['2026-02-01T10:00:00Z', '2026-02-01T10:00:00Z'],
      ['2026-02-01T10:00:00.000Z', '2026-02-01T10:00:00Z'],
      ['2026-02-01T10:00:00.250Z', '2026-02-01T10:00:00.250Z'],
      ['2026-02-01T12:00:00+02:00', '2026-02-01T10:00:00Z'],
      ['2026-02-01', '2026-02-01T00:00:00Z'],
    ];
    const lines = forms.map(([created], i) => JSON.stringify({ ...events[i], created }));
    await importEvents(store, write('created.ndjson', lines.join('\n')), { orgId: ORG });
    for (const [i, [, served]] of forms.entries()) {
      const stored = await store.getEvent(ORG, events[i]!.id, false);
      assert.equal((JSON.parse(stored!.doc) as { created: string }).created, served);
      // The sort key is the served instant, spread within its second when
      // the source gave whole seconds (ListingOrder).
      const instant = Date.parse(served);
      if (instant % 1000 === 0) assert.equal(Math.floor(stored!.created / 1000) * 1000, instant);
      else assert.equal(stored!.created, instant);
    }
  });

  test('a maxDate or minDate on a whole second takes all or none of its events, whichever order the file lists them in', async () => {
    const second = Date.UTC(2026, 1, 1, 10, 0, 0);
    const at = (offset: number) => new Date(second + offset).toISOString().replace('.000Z', 'Z');
    const newestFirst = [
      { ...events[0]!, created: at(5000) },
      { ...events[1]!, created: at(0) },
      { ...events[2]!, created: at(0) },
      { ...events[3]!, created: at(0) },
    ];
    for (const records of [newestFirst, [...newestFirst].reverse()]) {
      await freshStore();
      const text = records.map((e) => JSON.stringify(e)).join('\n');
      await importEvents(store, write('one-second.ndjson', text), { orgId: ORG });
      const count = async (bounds: { minCreated?: number; maxCreated?: number }) =>
        (
          await store.listEvents({
            orgId: ORG,
            offset: 0,
            limit: 10,
            includeCount: true,
            includeRaw: false,
            ...bounds,
          })
        ).totalCount;
      // Before, an oldest-first file put its first event of the second at
      // .000: `maxDate=…T10:00:00Z` counted 1 of the 3, a newest-first file 0.
      assert.equal(await count({ maxCreated: second }), 0);
      assert.equal(await count({ maxCreated: second + 999 }), 3);
      assert.equal(await count({ minCreated: second, maxCreated: second + 999 }), 3);
      assert.equal(await count({ minCreated: second + 1000 }), 1);
    }
  });

  test('events sharing a second keep the order the file lists them in, newest first or oldest first', async () => {
    const second = Date.UTC(2026, 1, 1, 10, 0, 0);
    const at = (offset: number) => new Date(second + offset).toISOString().replace('.000Z', 'Z');
    // Ids in an order unrelated to the listing (by id they would sort otherwise).
    const listed = [
      { ...events[0]!, created: at(1000) },
      { ...events[3]!, created: at(0) },
      { ...events[1]!, created: at(0) },
      { ...events[2]!, created: at(0) },
      { ...events[4]!, created: at(-1000) },
    ];
    const byId = [...listed].sort(
      (a, b) => b.created.localeCompare(a.created) || b.id.localeCompare(a.id),
    );
    assert.notDeepEqual(
      byId.map((e) => e.id),
      listed.map((e) => e.id),
    );
    /** The ids the API lists, newest first, after `records` are imported as NDJSON into a fresh store. */
    const listedAfterImport = async (name: string, records: typeof listed, batchSize?: number) => {
      await freshStore();
      await importEvents(store, write(name, records.map((e) => JSON.stringify(e)).join('\n')), {
        orgId: ORG,
        batchSize,
      });
      const page = await store.listEvents({
        orgId: ORG,
        offset: 0,
        limit: 10,
        includeCount: false,
        includeRaw: false,
      });
      return page.events.map((e) => e.id);
    };

    assert.deepEqual(
      await listedAfterImport('newest-first.ndjson', listed),
      listed.map((e) => e.id),
    );
    const oldestFirst = [...listed].reverse();
    assert.deepEqual(
      await listedAfterImport('oldest-first.ndjson', oldestFirst),
      listed.map((e) => e.id),
    );
    // Oldest first again, in batches of two: the first batch lies within one
    // second, so the file's direction shows only in the second batch.
    const sameSecondFirst = oldestFirst.slice(1); // starts with the three events of one second
    assert.deepEqual(
      await listedAfterImport('oldest-first-one-second.ndjson', sameSecondFirst, 2),
      listed.slice(0, 4).map((e) => e.id),
    );
  });

  test('an export listing a whole second between two events of its last fraction imports back in its order', async () => {
    const second = Date.UTC(2026, 1, 1, 10, 0, 0);
    // What an export lists when the three share the key .999 (a whole second
    // first in its second, then two at .999 of their own): by id among them.
    const listed = [
      { ...events[0]!, id: '6a00000000000000000000c3', created: '2026-02-01T10:00:00.999Z' },
      { ...events[1]!, id: '6a00000000000000000000c2', created: '2026-02-01T10:00:00Z' },
      { ...events[2]!, id: '6a00000000000000000000c1', created: '2026-02-01T10:00:00.999Z' },
      { ...events[3]!, id: '6a00000000000000000000c4', created: '2026-02-01T09:00:00Z' },
    ];
    await importEvents(
      store,
      write('tied.ndjson', listed.map((e) => JSON.stringify(e)).join('\n')),
      {
        orgId: ORG,
      },
    );
    const page = await store.listEvents({
      orgId: ORG,
      offset: 0,
      limit: 10,
      includeCount: false,
      includeRaw: false,
    });
    // Before, the whole second went to .998, below the .999 listed after it.
    assert.deepEqual(
      page.events.map((e) => e.id),
      listed.map((e) => e.id),
    );
    assert.equal(page.events[1]!.created, second + 999);
  });

  test('an NDJSON line holding a saved page may exceed the record limit; each of its records may not', async () => {
    const big = { ...events[3], raw: { blob: 'x'.repeat(5000) } };
    const page = JSON.stringify({
      links: [],
      results: [...events.slice(0, 3), big],
      totalCount: 4,
    });
    assert.ok(page.length > 4096);
    const report = await importEvents(
      store,
      write('page.ndjson', `${page}\n${JSON.stringify(events[4])}\n`),
      { orgId: ORG, maxRecordBytes: 4096 },
    );
    assert.equal(report.inserted, 4);
    assert.deepEqual(
      report.issues.map((i) => [i.location, /4,096-byte limit/.test(i.message)]),
      [['line 1, results[3]', true]],
    );
  });

  test('a first line longer than format detection reads (16 MB): one record is NDJSON, its line reported and the rest imported; a one-line envelope streams', async () => {
    const huge = JSON.stringify({ ...events[0], raw: { blob: 'x'.repeat(17 << 20) } });
    const rest = events.slice(1, 4).map((e) => JSON.stringify(e));
    const ndjson = await importEvents(
      store,
      write('huge-first.ndjson', [huge, ...rest].join('\n')),
      {
        orgId: ORG,
      },
    );
    assert.equal(ndjson.format, 'ndjson');
    assert.equal(ndjson.inserted, 3);
    assert.deepEqual(
      ndjson.issues.map((i) => [i.line, /larger than the 1,048,576-byte limit/.test(i.message)]),
      [[1, true]],
    );

    await freshStore();
    // 17 MB of small records on one line, in the API's own envelope.
    const many = Array.from({ length: 17 << 10 }, (_, i) => ({
      ...events[i % events.length]!,
      id: `5f0000000000${(0x100000 + i).toString(16).padStart(12, '0')}`,
      raw: { pad: 'y'.repeat(900) },
    }));
    const envelope = JSON.stringify({ links: [], results: many, totalCount: many.length });
    assert.ok(envelope.length > 16 << 20);
    const streamed = await importEvents(store, write('one-line.json', envelope), { orgId: ORG });
    assert.equal(streamed.format, 'envelope');
    assert.deepEqual([streamed.inserted, streamed.issues.length], [many.length, 0]);
  });

  test('a record naming one key twice is reported, not silently merged', async () => {
    const record = JSON.stringify(events[0]).replace(/^\{/, '{"username":"first@example.com",');
    const report = await importEvents(store, write('twice.ndjson', record), { orgId: ORG });
    assert.equal(report.inserted, 0);
    assert.match(report.issues[0]!.message, /"username" appears more than once/);
  });

  test('a page holding both a results list and a content.results one is refused, as a line (reported) and as a document (the import stops), in either order', async () => {
    // Values JSON.parse and JSON.stringify would change: the bug stored them so.
    const record = JSON.stringify(events[5]).replace(
      /^\{/,
      '{"raw":{"big":9007199254740993,"f":1.0,"e":"\\u00e9"},',
    );
    const refusal =
      'the object holds both a "results" list and a "content.results" list: which list of records is meant is unclear';
    const pages = [
      `{"content":{"results":[]},"results":[${record}]}`,
      `{"results":[${record}],"content":{"results":[]}}`,
    ];
    const lines = [JSON.stringify(events[0]), ...pages, JSON.stringify(events[1])];
    const report = await importEvents(store, write('both.ndjson', lines.join('\n')), {
      orgId: ORG,
    });
    assert.deepEqual(
      report.issues.map((i) => [i.location, i.message]),
      [
        ['line 2', refusal],
        ['line 3', refusal],
      ],
    );
    assert.deepEqual([report.read, report.invalid, report.inserted], [4, 2, 2]);
    assert.equal(await store.getEvent(ORG, events[5]!.id, false), null);
    for (const [i, page] of pages.entries()) {
      await freshStore();
      const document = page.replace('"results":[', '\n"results":[');
      await assert.rejects(
        importEvents(store, write(`both-${i}.json`, document), { orgId: ORG }),
        (error: unknown) => {
          assert.ok(error instanceof ImportFatalError);
          assert.equal(
            error.message,
            // The line the second list opens on.
            `The file cannot be read as a list of events: ${refusal} (line 2)`,
          );
          return true;
        },
      );
      assert.equal(await store.countEvents({ orgId: ORG }), 0);
    }
  });

  test('an event with a field of its own named results is imported as the event, not read as a page', async () => {
    // It was read as an empty page (or as a page of its field's elements) and
    // the event dropped without a word.
    const [empty, full] = [events[7]!, events[8]!];
    const lines = [
      JSON.stringify({ ...empty, results: [] }),
      JSON.stringify({ ...full, results: [{ x: 1 }], content: { results: [] } }),
    ].join('\n');
    const report = await importEvents(store, write('results-field.ndjson', lines), { orgId: ORG });
    assert.deepEqual(report.issues, []);
    assert.equal(report.read, 2);
    assert.equal(report.inserted, 2);
    const stored = await store.getEvent(ORG, full.id, false);
    assert.deepEqual((JSON.parse(stored!.doc) as { results: unknown }).results, [{ x: 1 }]);
    assert.ok(await store.getEvent(ORG, empty.id, false));
  });

  test('a store that fails midway ends the run as failed and leaves the file closed', async () => {
    const file = write('midway.ndjson', events.map((e) => JSON.stringify(e)).join('\n'));
    /** Descriptors of this process open on `file`. */
    const openOnFile = () =>
      fs.readdirSync('/proc/self/fd').filter((fd) => {
        try {
          return fs.readlinkSync(`/proc/self/fd/${fd}`) === file;
        } catch {
          return false;
        }
      }).length;
    // The real store, failing its second batch as a full disk would.
    let batches = 0;
    const failing = new Proxy(store, {
      get(target, key, receiver) {
        if (key !== 'insertEvents') return Reflect.get(target, key, receiver) as unknown;
        return (...args: Parameters<EventStore['insertEvents']>) =>
          ++batches === 2 ? Promise.reject(new Error('disk full')) : target.insertEvents(...args);
      },
    });
    await assert.rejects(importEvents(failing, file, { orgId: ORG, batchSize: 100 }), /disk full/);
    // The file closes once its read in flight returns: within moments, not at exit.
    for (let waited = 0; openOnFile() > 0 && waited < 2000; waited += 20) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    assert.equal(openOnFile(), 0);
    const [run] = await store.listIngestRuns(ORG);
    assert.deepEqual([run?.status, run?.inserted, run?.detail], ['failed', 100, 'disk full']);
  });

  test('stores the source text of each record: raw and every value verbatim, keys sorted at the top level only', async () => {
    const id = events[0]!.id;
    const line = `{"raw":{"z":9007199254740993,"a":1.0,"10":[]},"id":"${id}","eventTypeName":"JOINED_ORG","created":"2026-02-01T00:00:00Z","extra":{"b":1.50,"a":null},"username":"u@example.com"}`;
    await importEvents(store, write('verbatim.ndjson', line), { orgId: ORG });
    const stored = await store.getEvent(ORG, id, true);
    assert.equal(stored?.raw, '{"z":9007199254740993,"a":1.0,"10":[]}');
    assert.equal(
      stored?.doc,
      `{"created":"2026-02-01T00:00:00Z","eventTypeName":"JOINED_ORG","extra":{"b":1.50,"a":null},"id":"${id}","orgId":"${ORG}","username":"u@example.com"}`,
    );
  });
  test('one event pretty-printed (curl … /events/ID | jq .) imports as one event, stored as its compact form is; invalid, it is one invalid record with its line', async () => {
    const id = events[0]!.id;
    const compact = `{"raw":{"z":9007199254740993,"a":1.0,"10":[]},"id":"${id}","eventTypeName":"JOINED_ORG","created":"2026-02-01T00:00:00Z","extra":{"b":1.50,"a":null},"username":"u@example.com"}`;
    const pretty = `{\n  "raw": {\n    "z": 9007199254740993,\n    "a": 1.0,\n    "10": []\n  },\n  "id": "${id}",\n  "eventTypeName": "JOINED_ORG",\n  "created": "2026-02-01T00:00:00Z",\n  "extra": {\n    "b": 1.50,\n    "a": null\n  },\n  "username": "u@example.com"\n}\n`;
    await importEvents(store, write('compact-event.ndjson', compact), { orgId: ORG });
    const fromCompact = await store.getEvent(ORG, id, true);
    await freshStore();
    const report = await importEvents(store, write('pretty-event.json', pretty), { orgId: ORG });
    assert.deepEqual(
      [report.format, report.read, report.inserted, report.invalid, report.issues],
      ['event', 1, 1, 0, []],
    );
    const fromPretty = await store.getEvent(ORG, id, true);
    assert.equal(fromPretty?.raw, '{"z":9007199254740993,"a":1.0,"10":[]}');
    assert.deepEqual(fromPretty, fromCompact);
    // Invalid, it is reported as a record, on the line it starts on.
    await freshStore();
    const bad = await importEvents(
      store,
      write('pretty-bad.json', `\n${pretty.replace('2026-02-01T00:00:00Z', 'yesterday')}`),
      { orgId: ORG },
    );
    assert.deepEqual(
      [bad.read, bad.inserted, bad.invalid, bad.issues.map((i) => i.location)],
      [1, 0, 1, ['line 2']],
    );
    assert.match(bad.issues[0]!.message, /^created: /);
  });

  test('a currentValue.number beyond a double (1e400) is reported as such, not "Invalid input"; as a numeric string, in raw or in a field of its own it is stored as written', async () => {
    const [a, b, c, d] = events.slice(0, 4).map((e) => e.id);
    const record = (id: string, members: string) =>
      `{"id":"${id}","created":"2026-02-01T00:00:00Z","eventTypeName":"OUTSIDE_METRIC_THRESHOLD",${members}}`;
    const lines = [
      record(a!, '"currentValue":{"number":1e400,"units":"RAW"}'),
      record(b!, '"currentValue":{"number":-1e400,"units":"RAW"}'),
      record(c!, '"currentValue":{"number":true,"units":"RAW"}'),
      record(d!, '"currentValue":{"number":"1e400","units":"RAW"},"huge":1e400,"raw":{"n":-1e400}'),
    ];
    const report = await importEvents(store, write('huge-numbers.ndjson', lines.join('\n')), {
      orgId: ORG,
    });
    const range =
      'currentValue.number: a number beyond the range of a 64-bit float (such as 1e400): write it as a numeric string ("1e400"), which is kept as written';
    assert.deepEqual(
      report.issues.map((issue) => [issue.location, issue.message]),
      [
        ['line 1', range],
        ['line 2', range],
        ['line 3', 'currentValue.number: must be a number or a numeric string'],
      ],
    );
    const stored = await store.getEvent(ORG, d!, true);
    assert.equal(stored?.raw, '{"n":-1e400}');
    assert.match(
      stored?.doc ?? '',
      /"currentValue":\{"number":"1e400","units":"RAW"\},"eventTypeName"/,
    );
    assert.match(stored?.doc ?? '', /"huge":1e400,/);
  });

  test('a record holding half a surrogate pair is reported as not Unicode text, in NDJSON, arrays and pages; a whole pair imports as written', async () => {
    const message = /^Not Unicode text: a string holds half a UTF-16 surrogate pair/;
    const [lone, pair, key, other] = events.slice(0, 4).map((e) => JSON.stringify(e));
    const withField = (record: string, member: string) => record.replace(/\}$/, `,${member}}`);
    const records = [
      withField(lone!, '"zz":"\\ud800lone"'),
      withField(pair!, '"zz":"\\ud83d\\ude00"'),
      // A key, in a shape encodeRecordText does not read (unsorted).
      key!.replace(/^\{/, '{"z\\udc00":1,'),
      other!,
    ];
    // The lone half's record has the shape read unparsed (encodeRecordText):
    // the same record with a whole pair is taken by it.
    assert.ok(encodeRecordText(ORG, withField(lone!, '"zz":"\\ud83d\\ude00"'), false));
    const cases: [string, string, string[]][] = [
      ['lone.ndjson', records.join('\n'), ['line 1', 'line 3']],
      ['lone.json', `[\n${records.join(',\n')}\n]`, ['[0] (line 2)', '[2] (line 4)']],
      // A page as a line of NDJSON (an empty page after it), and alone (a list envelope).
      [
        'lone-page.ndjson',
        `{"results":[${records.join(',')}]}\n{"results":[]}\n`,
        ['line 1, results[0]', 'line 1, results[2]'],
      ],
      [
        'lone-page.json',
        `{"results":[${records.join(',')}]}`,
        ['results[0] (line 1)', 'results[2] (line 1)'],
      ],
    ];
    for (const [file, text, locations] of cases) {
      await freshStore();
      const report = await importEvents(store, write(file, text), { orgId: ORG });
      assert.deepEqual(
        report.issues.map((i) => i.location),
        locations,
        file,
      );
      for (const issue of report.issues) assert.match(issue.message, message, file);
      assert.deepEqual([report.read, report.invalid, report.inserted], [4, 2, 2], file);
      const stored = await store.getEvent(ORG, events[1]!.id, false);
      assert.match(stored!.doc, /"zz":"\\ud83d\\ude00"/, file);
    }
  });
  test("toNewEvent, the mirror's check too, refuses half a surrogate pair with the record's text or without it", () => {
    const text = JSON.stringify(events[0]).replace(/\}$/, ',"zz":"a\\udfffb"}');
    const value = JSON.parse(text) as unknown;
    for (const own of [text, undefined]) {
      assert.match(
        toNewEvent(value, ORG, true, own) as string,
        /^Not Unicode text: a string holds half a UTF-16 surrogate pair/,
      );
    }
  });
});

describe('encodeRecordText (records read from their text, unparsed)', () => {
  /** What an import makes of a record by parsing it: an event, or why not. */
  function general(text: string, rehome: boolean) {
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch {
      return 'not JSON';
    }
    // A line holding a saved page is read as its records.
    if (innerRecords(value)) return 'a page';
    return toNewEvent(value, ORG, rehome, text);
  }

  test('gives exactly what parsing gives, or declines; on valid records of every type, thousands of broken ones and keys one letter off known ones', () => {
    let seed = 5;
    const random = () => (seed = (seed * 48271) % 2147483647) / 2147483647;
    const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
    const records = [
      ...generateEvents({ orgId: ORG, count: 1500, seed: 'text-read' }),
      ...generateEvents({ orgId: ORG, count: 500, seed: 'text-read', variant: 'self-hosted' }),
    ].map((event) => JSON.parse(JSON.stringify(event)) as Record<string, unknown>);
    // Values of the wrong kind, or of the right kind written unusually.
    const odd: unknown[] = [
      null,
      0,
      1.5,
      -1,
      65536,
      '',
      'x',
      '8080',
      true,
      [],
      {},
      { a: 1 },
      ['x'],
    ];
    const fields = [
      'id',
      'created',
      'eventTypeName',
      'username',
      'userId',
      'apiKeyId',
      'publicKey',
      'orgId',
      'port',
      'currentValue',
      'raw',
      'links',
      'isGlobalAdmin',
      'delegatePrincipal',
      'results',
      'content',
      'remoteAddress',
      'clusterName',
    ];
    let taken = 0;
    let declinedValid = 0;
    let refused = 0;
    for (const [i, original] of records.entries()) {
      const record: Record<string, unknown> = { ...original };
      const variant = i % 10;
      if (variant === 1) record[pick(fields)] = pick(odd);
      if (variant === 2) record.orgId = OTHER_ORG;
      if (variant === 3) delete record[pick(['id', 'created', 'eventTypeName', 'orgId'])];
      if (variant === 4) Object.assign(record, { userId: 'u1', apiKeyId: 'k1' });
      if (variant === 5)
        record.currentValue = {
          number: pick([1, '2.5', 'x', null]),
          units: pick(['RAW', 'new unit', 3]),
        };
      if (variant === 6)
        record.username = pick([
          'a\\"b',
          'tab\there',
          'é',
          '\u0000',
          // At and over the longest value indexed.
          'y'.repeat(MAX_INDEXED_VALUE_LENGTH),
          'z'.repeat(MAX_INDEXED_VALUE_LENGTH + 1),
        ]);
      if (variant === 9) {
        // A key one letter off a known one (same length and first letter): an unknown key.
        const key = pick(Object.keys(record));
        const near = key.slice(0, -1) + String.fromCharCode(key.charCodeAt(key.length - 1) + 1);
        record[near] = record[key];
        delete record[key];
      }
      const sorted = Object.fromEntries(
        Object.keys(record)
          .sort()
          .map((key) => [key, record[key]]),
      );
      let text = JSON.stringify(sorted);
      if (variant === 7) {
        // One character dropped, put in or changed: mostly not JSON, sometimes still an event.
        const at = Math.floor(random() * text.length);
        const c = pick([...'{}[]":,\\0-.eEtfn ', '\u0001', 'x']);
        text = text.slice(0, at) + c + text.slice(at + (random() < 0.5 ? 1 : 0));
      }
      if (variant === 8)
        text = text.replace(/"(id|eventTypeName)":"6?/, (m) =>
          m.replace(/"$/, '"\\u0036').replace(/6$/, ''),
        );
      for (const rehome of [false, true]) {
        const expected = general(text, rehome);
        const fast = encodeRecordText(ORG, text, rehome);
        if (fast === undefined) {
          if (typeof expected === 'string') refused++;
          else declinedValid++;
          continue;
        }
        taken++;
        assert.notEqual(
          typeof expected,
          'string',
          `record ${i} (rehome ${rehome}) taken where parsing refuses it (${JSON.stringify(expected)}): ${text}`,
        );
        assert.deepEqual(fast, expected, `record ${i} (rehome ${rehome}): ${text}`);
      }
    }
    // Valid records in the common shape are read from their text; broken ones are refused by the general path.
    assert.ok(taken > 1500, `${taken} read from text`);
    assert.ok(refused > 1000, `${refused} refused`);
    // Declined though valid: shapes left to the general path on purpose (an escaped id, no orgId, ...).
    assert.ok(declinedValid < taken / 5, `${declinedValid} valid records declined`);
  });
});

describe('import: the statistics refresh after the last batch (PostgreSQL)', () => {
  test('failing, it fails neither the import nor its run: the report says why', async () => {
    const database = await databaseWithVacuumLock();
    const store = await openStore(database.url);
    const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-import-stats-'));
    try {
      await store.createOrg({ id: ORG, name: 'Import Org', created: 0 });
      await database.holdVacuumLock();
      const file = path.join(dir, 'events.ndjson');
      fs.writeFileSync(
        file,
        events
          .slice(0, 300)
          .map((e) => JSON.stringify(e))
          .join('\n'),
      );
      const report = await importEvents(store, file, { orgId: ORG });
      assert.equal(report.inserted, 300);
      assert.match(report.statisticsNotRefreshed ?? '', /lock timeout/);
      const [run] = await store.listIngestRuns(ORG);
      assert.deepEqual(
        { status: run?.status, inserted: run?.inserted },
        { status: 'finished', inserted: 300 },
      );
    } finally {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
      await database.drop();
    }
  });
});
