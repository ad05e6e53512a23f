import assert from 'node:assert/strict';
import { test } from 'node:test';
import { client, eventsPath, expectedIds, linkOf, type ListBody, type ServerRef } from './support';

/** A page walk sees every event exactly once and agrees with totalCount. */
export function walkSuites(server: ServerRef) {
  async function walk(firstPath: string) {
    const s = server();
    const seen: string[] = [];
    const totals = new Set<number>();
    let pages = 0;
    let next: string | undefined = firstPath;
    while (next) {
      const body: ListBody = await client(s).getJson<ListBody>(next);
      pages += 1;
      totals.add(body.totalCount);
      seen.push(...body.results.map((e) => e.id as string));
      const href = linkOf(body, 'next');
      next = href ? new URL(href).pathname + new URL(href).search : undefined;
      assert.ok(pages < 1000, 'runaway walk');
    }
    return { seen, totals, pages };
  }

  test('itemsPerPage=37 over every event: each exactly once, in order, matching totalCount', async () => {
    const s = server();
    assert.ok(s.events.org.length >= 1000);
    const { seen, totals, pages } = await walk(eventsPath(s, 'itemsPerPage=37'));
    assert.deepEqual([...totals], [s.events.org.length]);
    assert.equal(pages, Math.ceil(s.events.org.length / 37));
    assert.equal(new Set(seen).size, seen.length, 'no event twice');
    assert.equal(seen.length, s.events.org.length, 'no event skipped');
    assert.deepEqual(seen, expectedIds(s));
  });

  test('the same walk with a type filter and includeCount=false follows next to the end', async () => {
    const s = server();
    const types = ['DATA_EXPLORER', 'DATA_EXPLORER_CRUD', 'API_KEY_CREATED'];
    const { seen, totals } = await walk(
      eventsPath(s, `eventType=${types.join(',')}&includeCount=false&itemsPerPage=37`),
    );
    assert.deepEqual([...totals], [0]);
    assert.deepEqual(seen, expectedIds(s, { types }));
  });
}
