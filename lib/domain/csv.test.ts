import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseCsv } from '@/tests/helpers/csv';
import { csvCell, csvLine, EVENT_CSV_FIELDS, spreadsheetSafe } from './csv';

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

test('cells: text as is, numbers and booleans and objects as JSON, absent empty', () => {
  assert.equal(csvCell('x'), 'x');
  assert.equal(csvCell(27017), '27017');
  assert.equal(csvCell(false), 'false');
  assert.equal(csvCell({ number: 1.5, units: 'RAW' }), '{"number":1.5,"units":"RAW"}');
  assert.equal(csvCell(undefined), '');
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
