import assert from 'node:assert/strict';
import { test } from 'node:test';
import { EVENT_CSV_FIELDS, spreadsheetSafe } from '@/lib/domain/csv';
import { parseCsv } from '@/tests/helpers/csv';
import type { TestServer } from '@/tests/helpers/server';
import { assertError, client, list, type ListBody, type ServerRef } from './support';

export const exportPath = (server: TestServer, query = '', orgId = server.orgId) =>
  `/api/public/v1.0/orgs/${orgId}/events/export${query ? `?${query}` : ''}`;

/** Every page's results for a query, walked at 500 a page. */
async function allPages(server: TestServer, query: string): Promise<Record<string, unknown>[]> {
  const results: Record<string, unknown>[] = [];
  for (let pageNum = 1; ; pageNum++) {
    const body: ListBody = await list(
      server,
      [query, `itemsPerPage=500&pageNum=${pageNum}`].filter(Boolean).join('&'),
    );
    results.push(...body.results);
    if (!body.links.some((l) => l.rel === 'next')) return results;
  }
}

/** A random query built from values the fixture holds (and sometimes ones it does not). */
function randomQueries(server: TestServer, count: number, seed: number): string[] {
  let state = seed;
  const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
  const docs = server.events.org.map((e) => JSON.parse(e.doc) as Record<string, unknown>);
  const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
  const queries: string[] = [];
  for (let i = 0; i < count; i++) {
    const anchor = pick(docs);
    const params = new URLSearchParams();
    const text = (field: string) => (typeof anchor[field] === 'string' ? anchor[field] : undefined);
    if (random() < 0.4) {
      params.append('eventType', anchor.eventTypeName as string);
      if (random() < 0.5) params.append('eventType', pick(docs).eventTypeName as string);
    }
    if (random() < 0.5) {
      const a = Date.parse(pick(docs).created as string);
      const b = Date.parse(pick(docs).created as string);
      params.set('minDate', new Date(Math.min(a, b)).toISOString());
      params.set('maxDate', new Date(Math.max(a, b)).toISOString());
    }
    for (const field of ['username', 'groupId', 'clusterName', 'hostname']) {
      if (random() < 0.2 && text(field)) params.append(field, text(field)!);
    }
    if (random() < 0.2 && text('username')) params.set('actor', text('username')!);
    if (random() < 0.15) params.set('q', (anchor.eventTypeName as string).split('_')[0]!);
    if (random() < 0.15) params.append('excludeEventType', pick(docs).eventTypeName as string);
    if (random() < 0.5) params.set('includeRaw', 'true');
    queries.push(params.toString());
  }
  return queries;
}

function ndjsonLines(text: string): Record<string, unknown>[] {
  assert.ok(text === '' || text.endsWith('\n'), 'every line ends with a newline');
  return text
    .split('\n')
    .slice(0, -1)
    .map((line) => JSON.parse(line) as Record<string, unknown>);
}

/** GET /events/export: the whole filtered set, exactly as the list pages give it. */
export function exportSuites(server: ServerRef) {
  test('NDJSON: for random filters, exactly the concatenation of every list page, counted', async () => {
    const s = server();
    let nonEmpty = 0;
    for (const query of ['', ...randomQueries(s, 14, 4242)]) {
      const res = await client(s).request(exportPath(s, `${query}&format=ndjson`));
      assert.equal(res.status, 200, `${query}: ${res.text}`);
      assert.equal(res.headers.get('content-type'), 'application/x-ndjson; charset=utf-8');
      const lines = ndjsonLines(res.text);
      const pages = await allPages(s, query);
      assert.deepEqual(lines, pages, query);
      assert.equal(res.headers.get('x-total-count'), String(pages.length), query);
      if (pages.length > 0) nonEmpty++;
    }
    assert.ok(nonEmpty >= 5, `${nonEmpty} of the queries matched something`);
  });

  test('CSV: a strict RFC 4180 reader reads the same events, one column per field, raw as JSON', async () => {
    const s = server();
    for (const query of ['', 'includeRaw=true', ...randomQueries(s, 4, 99)]) {
      const res = await client(s).request(exportPath(s, `${query}&format=csv`));
      assert.equal(res.status, 200, res.text);
      assert.equal(res.headers.get('content-type'), 'text/csv; charset=utf-8; header=present');
      const [header, ...rows] = parseCsv(res.text);
      const raw = new URLSearchParams(query).get('includeRaw') === 'true';
      assert.deepEqual(header, raw ? [...EVENT_CSV_FIELDS, 'raw'] : [...EVENT_CSV_FIELDS]);
      const events = await allPages(s, query);
      assert.equal(rows.length, events.length, query);
      assert.equal(res.headers.get('x-total-count'), String(events.length));
      rows.forEach((row, i) => {
        const event = events[i]!;
        assert.equal(row[0], event.id);
        assert.equal(row[1], event.created);
        assert.equal(row[2], event.eventTypeName);
        header.forEach((column, c) => {
          const cell = row[c]!;
          if (column === 'raw') {
            // An event stored without a raw document has none in the list either.
            if (cell === '') assert.equal(event.raw, undefined);
            else assert.deepEqual(JSON.parse(cell), event.raw);
          } else if (typeof event[column] === 'object' && event[column] !== null) {
            assert.deepEqual(JSON.parse(cell), event[column], column);
          } else {
            // Text as is, a number or boolean as JSON writes it, absent or null empty.
            const value = event[column] ?? '';
            assert.equal(cell, spreadsheetSafe(String(value as string)), column);
          }
        });
      });
    }
  });

  test('names the org and the range in the file name; same errors and roles as the list', async () => {
    const s = server();
    const ranged = await client(s).request(
      exportPath(s, 'minDate=2026-01-02&maxDate=2026-01-03T12:00:00Z&format=csv'),
    );
    assert.match(
      ranged.headers.get('content-disposition') ?? '',
      new RegExp(
        `^attachment; filename="events-acme-corp-${s.orgId}-20260102T000000Z--20260103T120000Z\\.csv"$`,
      ),
    );
    const open = await client(s).request(exportPath(s));
    assert.match(
      open.headers.get('content-disposition') ?? '',
      new RegExp(`filename="events-acme-corp-${s.orgId}-beginning--\\d{8}T\\d{6}Z\\.ndjson"`),
    );
    assertError(
      await client(s).request(exportPath(s, 'format=xml')),
      400,
      'INVALID_QUERY_PARAMETER',
    );
    assertError(
      await client(s).request(exportPath(s, 'minDate=yesterday')),
      400,
      'INVALID_QUERY_PARAMETER',
    );
    assertError(
      await client(s).request(exportPath(s, 'eventType=NO_SUCH_TYPE')),
      400,
      'INVALID_ENUM_VALUE',
    );
    assertError(await client(s, s.keys.readOnly).request(exportPath(s)), 401, 'USER_UNAUTHORIZED');
    const other = await client(s).request(exportPath(s, '', s.otherOrgId));
    assertError(other, 401, 'USER_UNAUTHORIZED');
    const challenge = await fetch(`${s.baseUrl}${exportPath(s)}`);
    assert.equal(challenge.status, 401);
    assert.match(challenge.headers.get('www-authenticate') ?? '', /^Digest /);
  });

  test('HEAD: the headers and count, no body', async () => {
    const s = server();
    const res = await client(s).request(exportPath(s, 'format=csv'), { method: 'HEAD' });
    assert.equal(res.status, 200);
    assert.equal(res.text, '');
    assert.equal(res.headers.get('x-total-count'), String(s.events.org.length));
  });
}
