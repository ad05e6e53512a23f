import { eventInputSchema } from './event';

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

/** One record, CRLF-terminated; every cell made spreadsheet-safe. */
export function csvLine(cells: readonly string[]): string {
  let line = '';
  for (let i = 0; i < cells.length; i++) {
    if (i > 0) line += ',';
    const cell = cells[i]!;
    // Most of an event's cells are empty: the common case costs one comparison.
    if (cell !== '') line += field(spreadsheetSafe(cell));
  }
  return `${line}\r\n`;
}

/** The event's fields, one CSV column each, in the schema's order (`links` and `raw` aside). */
export const EVENT_CSV_FIELDS: readonly string[] = Object.keys(eventInputSchema.shape).filter(
  (name) => name !== 'links' && name !== 'raw',
);

/** A field's cell: text as is, numbers and booleans as JSON writes them, objects as JSON. */
export function csvCell(value: unknown): string {
  if (value === undefined || value === null) return '';
  if (typeof value === 'string') return value;
  return JSON.stringify(value);
}
