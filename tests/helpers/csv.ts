/**
 * A strict RFC 4180 reader for tests: records end with CRLF (the last one
 * too), fields are bare (no quote, comma, CR or LF inside) or quoted (quotes
 * doubled inside); anything else throws with its offset, so a writer that
 * bends the rule fails the test instead of being read generously.
 */
export function parseCsv(text: string): string[][] {
  const records: string[][] = [];
  let record: string[] = [];
  let i = 0;
  const fail = (why: string): never => {
    throw new Error(`CSV: ${why} at offset ${i}: ${JSON.stringify(text.slice(i, i + 40))}`);
  };
  if (text === '') return records;
  for (;;) {
    let field = '';
    if (text[i] === '"') {
      i++;
      for (;;) {
        if (i >= text.length) fail('unterminated quoted field');
        const c = text[i]!;
        if (c === '"') {
          if (text[i + 1] === '"') {
            field += '"';
            i += 2;
            continue;
          }
          i++;
          break;
        }
        field += c;
        i++;
      }
    } else {
      const start = i;
      while (i < text.length && !',"\r\n'.includes(text[i]!)) i++;
      if (text[i] === '"') fail('quote inside a bare field');
      field = text.slice(start, i);
    }
    record.push(field);
    if (text[i] === ',') {
      i++;
      continue;
    }
    if (text[i] === '\r' && text[i + 1] === '\n') {
      i += 2;
      records.push(record);
      record = [];
      if (i === text.length) return records;
      continue;
    }
    fail(i >= text.length ? 'missing CRLF after the last record' : 'expected a comma or CRLF');
  }
}
