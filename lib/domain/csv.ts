import { eventInputSchema } from './event';
import { QUOTE, visitCompactMembers } from './json-text';

/**
 * CSV as RFC 4180 writes it (CRLF line ends, a field quoted when it holds a
 * comma, a quote or a line break, quotes doubled), for spreadsheets: a cell a
 * spreadsheet would run as a formula is neutralised.
 */

/** Cells starting with these are formulas (or become one) in Excel, LibreOffice and Sheets. */
const FORMULA_START = /^[=+\-@\t\r]/;

/**
 * A leading apostrophe makes a spreadsheet show the text as typed instead of
 * evaluating it (OWASP's advice for CSV injection); it is the only change.
 */
export function spreadsheetSafe(text: string): string {
  return FORMULA_START.test(text) ? `'${text}` : text;
}

const NEEDS_QUOTES = /[",\r\n]/;

function field(text: string): string {
  return NEEDS_QUOTES.test(text) ? `"${text.replace(/"/g, '""')}"` : text;
}

/** A cell as the record holds it: spreadsheet-safe, then quoted if it must be. */
function encodedCell(text: string): string {
  return field(spreadsheetSafe(text));
}

/** One record, CRLF-terminated; every cell made spreadsheet-safe. */
export function csvLine(cells: readonly string[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) {
    if (i > 0) line += ',';
    const cell = cells[i]!;
    // Most of an event's cells are empty: the common case costs one comparison.
    if (cell !== '') line += encodedCell(cell);
  }
  return `${line}\r\n`;
}

/** The event's fields, one CSV column each, in the schema's order (`links` and `raw` aside). */
export const EVENT_CSV_FIELDS: readonly string[] = Object.keys(eventInputSchema.shape).filter(
  (name) => name !== 'links' && name !== 'raw',
);

/** The columns of an export's CSV, by name, and where each document field goes. */
export type CsvColumns = {
  names: readonly string[];
  /** A document field's column; fields not in the CSV are absent. */
  index: ReadonlyMap<string, number>;
};

export function csvColumns(names: readonly string[]): CsvColumns {
  return { names, index: new Map(names.map((name, i) => [name, i])) };
}

/** A JSON value's text as its cell: a string decoded, null empty, anything else as written. */
function cellOf(doc: string, start: number, end: number): string {
  if (doc.charCodeAt(start) === QUOTE) {
    const bare = doc.slice(start + 1, end - 1);
    return bare.includes('\\') ? (JSON.parse(doc.slice(start, end)) as string) : bare;
  }
  const text = doc.slice(start, end);
  return text === 'null' ? '' : text;
}

type RecordState = { doc: string; cells: string[]; columns: CsvColumns };

function setCell(state: RecordState, key: string, start: number, end: number): void {
  const column = state.columns.index.get(key);
  if (column === undefined) return;
  const cell = cellOf(state.doc, start, end);
  if (cell !== '') state.cells[column] = encodedCell(cell);
}

/**
 * One event's record, cut from its stored document's text (compact JSON, as
 * every stored document is) rather than parsed: a string field is its
 * decoded text, a number, boolean, object or array its JSON exactly as
 * stored (the sender's digits and key order), null or absent an empty cell.
 * `raw`, when a column, is the stored raw document's text. Skipping
 * JSON.parse of every document is what makes a CSV export about as fast as
 * an NDJSON one.
 */
export function csvDocumentRecord(
  doc: string,
  raw: string | null | undefined,
  columns: CsvColumns,
): string {
  // Cells encoded as they are found (the document's order is not the
  // columns'), then joined natively: most of the columns are empty.
  const cells = new Array<string>(columns.names.length).fill('');
  visitCompactMembers(doc, setCell, { doc, cells, columns });
  const rawColumn = columns.index.get('raw');
  if (rawColumn !== undefined && raw) cells[rawColumn] = encodedCell(raw);
  return `${cells.join(',')}\r\n`;
}
