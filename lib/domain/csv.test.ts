import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCsv } from '@/tests/helpers/csv';
import { csvColumns, csvDocumentRecord, csvLine, EVENT_CSV_FIELDS, spreadsheetSafe } from './csv';

test('cells a spreadsheet would run as a formula get a leading apostrophe, others are untouched', () => {
  for (const formula of ['=1+1', '+1', '-2', '@SUM(A1)', '\tx', '\rx', '=HYPERLINK("http://x")']) {
    assert.equal(spreadsheetSafe(formula), `'${formula}`);
  }
  for (const plain of ['', 'a=b', 'user@example.com', '1-2', "'quoted", ' =x', '10.0.0.1']) {
    assert.equal(spreadsheetSafe(plain), plain);
  }
});

test('records are RFC 4180: quoted only when needed, quotes doubled, CRLF, and read back as written', () => {
  const cells = ['plain', 'a,b', 'say "hi"', 'two\nlines', 'cr\rhere', '', '=cmd|x', 'é ✓'];
  const line = csvLine(cells);
  assert.equal(line, 'plain,"a,b","say ""hi""","two\nlines","cr\rhere",,\'=cmd|x,é ✓\r\n');
  assert.deepEqual(parseCsv(line + csvLine(['x'])), [cells.map((c) => spreadsheetSafe(c)), ['x']]);
});

test('a record cut from a stored document: strings decoded, other values as stored, absent or null empty', () => {
  const columns = csvColumns([
    'id',
    'username',
    'port',
    'isGlobalAdmin',
    'currentValue',
    'note',
    'gone',
    'raw',
  ]);
  // Compact, keys sorted, as every stored document is; values exactly as a sender may write them.
  const doc =
    '{"currentValue":{"number":1.0,"units":"RAW"},"gone":null,"id":"a1","isGlobalAdmin":false,' +
    '"note":"say \\"hi\\",\\n\\u00e9 \\\\ =x","other":"not a column","port":9007199254740993,' +
    '"username":"=HYPERLINK(\\"http://x\\")"}';
  const line = csvDocumentRecord(doc, '{"raw":true}', columns);
  assert.deepEqual(parseCsv(line), [
    [
      'a1',
      spreadsheetSafe('=HYPERLINK("http://x")'),
      '9007199254740993',
      'false',
      '{"number":1.0,"units":"RAW"}',
      'say "hi",\né \\ =x',
      '',
      '{"raw":true}',
    ],
  ]);
  assert.equal(csvDocumentRecord('{"id":"b"}', null, columns), 'b,,,,,,,\r\n');
  assert.equal(csvDocumentRecord('{}', undefined, csvColumns(['id'])), '\r\n');
});

test('a record from the document equals csvLine of the parsed values for plain JSON', () => {
  const columns = csvColumns([...EVENT_CSV_FIELDS]);
  const event = {
    created: '2026-01-02T03:04:05Z',
    eventTypeName: 'JOINED_ORG',
    id: 'x',
    remoteAddress: '-1.2.3.4',
    targetUsername: 'a,b',
    username: 'u@example.com',
  };
  const cells = EVENT_CSV_FIELDS.map((field) => (event as Record<string, string>)[field] ?? '');
  assert.equal(csvDocumentRecord(JSON.stringify(event), null, columns), csvLine(cells));
});

test('the columns are the event fields, id, created and type first, without links and raw', () => {
  assert.deepEqual(EVENT_CSV_FIELDS.slice(0, 3), ['id', 'created', 'eventTypeName']);
  assert.ok(!EVENT_CSV_FIELDS.includes('links') && !EVENT_CSV_FIELDS.includes('raw'));
  assert.ok(
    EVENT_CSV_FIELDS.includes('remoteAddress') && EVENT_CSV_FIELDS.includes('currentValue'),
  );
});

test('the strict reader refuses what RFC 4180 does not allow', () => {
  assert.throws(() => parseCsv('a,b'), /missing CRLF/);
  assert.throws(() => parseCsv('a\nb\r\n'), /comma or CRLF/);
  assert.throws(() => parseCsv('a"b\r\n'), /quote inside/);
  assert.throws(() => parseCsv('"ab\r\n'), /unterminated/);
});
