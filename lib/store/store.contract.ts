import assert from 'node:assert/strict';
import { after, before, describe, test } from 'node:test';
import { DAY_MS, HOUR_MS, parseApiDateTime } from '@/lib/domain/dates';
import { encodeEvent, encodeRecordText } from '@/lib/domain/encode';
import type { HistogramInterval } from '@/lib/domain/filters';
import { objectIdAt } from '@/lib/domain/object-id';
import type { ConcurrentWriter } from './testing/sqlite-writer';
import {
  FACET_FIELDS,
  FILTER_FIELDS,
  HISTOGRAM_INTERVALS,
  MAX_INDEXED_VALUE_LENGTH,
  words,
} from '@/lib/domain/filters';
import { generateEventBatches } from '@/lib/ingest/seed';
import { BatchPacker, unpackBatch } from '@/lib/ingest/bulk-batch';
import {
  matches,
  type OracleEvent,
  oracleFacets,
  oracleHistogram,
  toOracle,
} from './testing/oracle';
import type {
  EventCursor,
  EventFilter,
  EventStore,
  IngestRunStatus,
  NewEvent,
  StoredEvent,
} from './types';
import { deletionContract } from './deletion.contract';
import { setStoreLogger } from './log';
import { batchTerms } from './terms';

/** What a contract run needs from an engine. */
export type ContractTarget = {
  store: EventStore;
  /**
   * Another connection to the same database whose inserts really run while
   * `store` serves a request (another pool, or another thread for SQLite).
   */
  openConcurrentWriter: () => Promise<ConcurrentWriter>;
  cleanup: () => Promise<void>;
};

/**
 * The store contract, run unchanged against every engine: whatever passes
 * here can sit behind the API.
 */
export function storeContract(name: string, open: () => Promise<ContractTarget>) {
  describe(`EventStore contract: ${name}`, () => {
    let store: EventStore;
    let openConcurrentWriter: () => Promise<ConcurrentWriter>;
    let cleanup: () => Promise<void>;
    const orgA = objectIdAt(Date.UTC(2024, 0, 1), 'aaaaaaaaaaaaaaaa');
    const orgB = objectIdAt(Date.UTC(2024, 0, 1), 'bbbbbbbbbbbbbbbb');
    const base = Date.UTC(2026, 0, 1, 0, 0, 0);
    const TYPES = ['JOINED_ORG', 'API_KEY_CREATED', 'ORG_RENAMED'];

    function makeEvent(orgId: string, i: number, created: number, type: string): NewEvent {
      return encodeEvent(orgId, {
        id: objectIdAt(created, i.toString(16).padStart(16, '0')),
        created: new Date(created).toISOString(),
        eventTypeName: type,
        username: `user${i % 7}@example.com`,
        userId: objectIdAt(base, 'f'.repeat(15) + (i % 7).toString(16)),
        isGlobalAdmin: false,
        raw: { _t: 'ORG_AUDIT', seq: i },
      });
    }

    // 1,000 events in org A spread over ~83 hours, several per second at times
    // (ties on `created` must still page stably), plus 50 in org B.
    const eventsA: NewEvent[] = [];
    for (let i = 0; i < 1000; i++) {
      const created = base + Math.floor(i / 3) * 1000 * 1000; // 3 events share each second
      eventsA.push(makeEvent(orgA, i, created, TYPES[i % TYPES.length]!));
    }
    const eventsB = Array.from({ length: 50 }, (_, i) =>
      makeEvent(orgB, 5000 + i, base + i * 60_000, 'JOINED_ORG'),
    );
    const newestFirst = [...eventsA].sort(
      (a, b) => b.created - a.created || (a.id < b.id ? 1 : -1),
    );

    before(async () => {
      ({ store, openConcurrentWriter, cleanup } = await open());
      await store.createOrg({ id: orgA, name: 'Org A', created: base });
      await store.createOrg({ id: orgB, name: 'Org B', created: base });
      const result = await store.insertEvents(orgA, eventsA.slice(0, 600));
      assert.deepEqual(result, { inserted: 600, skipped: 0 });
      await store.insertEvents(orgA, eventsA.slice(400)); // overlaps 200: idempotent
      await store.insertEvents(orgB, eventsB);
    });
    after(async () => {
      await cleanup();
    });

    test('insert is idempotent by id and counts what it skipped', async () => {
      const again = await store.insertEvents(orgA, eventsA.slice(0, 10));
      assert.deepEqual(again, { inserted: 0, skipped: 10 });
      assert.equal(await store.countEvents({ orgId: orgA }), 1000);
    });

    test('lists newest first with id as tie-break, with the total count', async () => {
      const page = await store.listEvents({
        orgId: orgA,
        offset: 0,
        limit: 100,
        includeCount: true,
        includeRaw: false,
      });
      assert.equal(page.totalCount, 1000);
      assert.equal(page.hasMore, true);
      assert.deepEqual(
        page.events.map((e) => e.id),
        newestFirst.slice(0, 100).map((e) => e.id),
      );
      assert.equal(page.events[0]!.raw, null);
    });

    test('a page walk with an odd page size sees every event exactly once', async () => {
      const seen: string[] = [];
      for (let offset = 0; ; offset += 37) {
        const page = await store.listEvents({
          orgId: orgA,
          offset,
          limit: 37,
          includeCount: false,
          includeRaw: false,
        });
        assert.equal(page.totalCount, null);
        seen.push(...page.events.map((e) => e.id));
        if (!page.hasMore) break;
      }
      assert.equal(seen.length, 1000);
      assert.deepEqual(
        seen,
        newestFirst.map((e) => e.id),
      );
    });

    test('deep pages match the plain order exactly', async () => {
      for (const offset of [0, 1, 299, 500, 899, 990, 999]) {
        const page = await store.listEvents({
          orgId: orgA,
          offset,
          limit: 25,
          includeCount: true,
          includeRaw: false,
        });
        assert.deepEqual(
          page.events.map((e) => e.id),
          newestFirst.slice(offset, offset + 25).map((e) => e.id),
          `offset ${offset}`,
        );
      }
      const beyond = await store.listEvents({
        orgId: orgA,
        offset: 1000,
        limit: 25,
        includeCount: true,
        includeRaw: false,
      });
      assert.deepEqual(beyond.events, []);
      assert.equal(beyond.hasMore, false);
      assert.equal(beyond.totalCount, 1000);
    });

    test('filters by one or several event types', async () => {
      const one = await store.listEvents({
        orgId: orgA,
        eventTypes: ['ORG_RENAMED'],
        offset: 0,
        limit: 500,
        includeCount: true,
        includeRaw: false,
      });
      const expected = newestFirst.filter((e) => e.eventTypeName === 'ORG_RENAMED');
      assert.equal(one.totalCount, expected.length);
      assert.deepEqual(
        one.events.map((e) => e.id),
        expected.map((e) => e.id),
      );

      const two = ['JOINED_ORG', 'ORG_RENAMED'];
      const expectedTwo = newestFirst.filter((e) => two.includes(e.eventTypeName));
      const ids: string[] = [];
      for (let offset = 0; offset < expectedTwo.length; offset += 50) {
        const page = await store.listEvents({
          orgId: orgA,
          eventTypes: two,
          offset,
          limit: 50,
          includeCount: true,
          includeRaw: false,
        });
        assert.equal(page.totalCount, expectedTwo.length);
        ids.push(...page.events.map((e) => e.id));
      }
      assert.deepEqual(
        ids,
        expectedTwo.map((e) => e.id),
      );

      const none = await store.listEvents({
        orgId: orgA,
        eventTypes: ['GROUP_CREATED'],
        offset: 0,
        limit: 10,
        includeCount: true,
        includeRaw: false,
      });
      assert.equal(none.totalCount, 0);
      assert.deepEqual(none.events, []);
    });

    test('inclusive date bounds, cutting through hours, agree with a plain filter', async () => {
      const ranges: [number, number][] = [
        [base + 10 * HOUR_MS + 123_000, base + 20 * HOUR_MS + 5_000],
        [base + 5 * HOUR_MS, base + 6 * HOUR_MS - 1],
        [newestFirst[10]!.created, newestFirst[10]!.created],
        [base - HOUR_MS, base + 1_000_000],
      ];
      for (const [min, max] of ranges) {
        for (const types of [undefined, ['API_KEY_CREATED', 'JOINED_ORG']]) {
          const expected = newestFirst.filter(
            (e) =>
              e.created >= min && e.created <= max && (!types || types.includes(e.eventTypeName)),
          );
          const count = await store.countEvents({
            orgId: orgA,
            eventTypes: types,
            minCreated: min,
            maxCreated: max,
          });
          assert.equal(
            count,
            expected.length,
            `count ${min}..${max} ${types?.join(',') ?? 'all types'}`,
          );
          const offset = Math.floor(expected.length / 2);
          const page = await store.listEvents({
            orgId: orgA,
            eventTypes: types,
            minCreated: min,
            maxCreated: max,
            offset,
            limit: 20,
            includeCount: true,
            includeRaw: false,
          });
          assert.equal(page.totalCount, expected.length);
          assert.deepEqual(
            page.events.map((e) => e.id),
            expected.slice(offset, offset + 20).map((e) => e.id),
          );
        }
      }
      const inverted = await store.listEvents({
        orgId: orgA,
        minCreated: base + 10,
        maxCreated: base,
        offset: 0,
        limit: 10,
        includeCount: true,
        includeRaw: false,
      });
      assert.equal(inverted.totalCount, 0);
    });

    test('random windows, types and offsets agree with a plain in-memory filter', async () => {
      // A small deterministic PRNG keeps failures reproducible.
      let state = 42;
      const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const span = newestFirst[0]!.created - newestFirst[newestFirst.length - 1]!.created;
      for (let i = 0; i < 60; i++) {
        const a = base + Math.floor(random() * span * 1.1) - HOUR_MS;
        const b = a + Math.floor(random() * span * 0.6);
        const bounded = random() < 0.8;
        const types = random() < 0.5 ? undefined : TYPES.filter(() => random() < 0.6);
        const expected = newestFirst.filter(
          (e) =>
            (!bounded || (e.created >= a && e.created <= b)) &&
            (!types?.length || types.includes(e.eventTypeName)),
        );
        const offset = Math.floor(random() * (expected.length + 5));
        const limit = 1 + Math.floor(random() * 60);
        const page = await store.listEvents({
          orgId: orgA,
          eventTypes: types,
          minCreated: bounded ? a : undefined,
          maxCreated: bounded ? b : undefined,
          offset,
          limit,
          includeCount: true,
          includeRaw: false,
        });
        const context = `case ${i}: ${bounded ? `${a}..${b}` : 'unbounded'} ${types?.join(',')} offset ${offset} limit ${limit}`;
        assert.equal(page.totalCount, expected.length, context);
        assert.deepEqual(
          page.events.map((e) => e.id),
          expected.slice(offset, offset + limit).map((e) => e.id),
          context,
        );
        assert.equal(page.hasMore, offset + limit < expected.length, context);
      }
    });

    test('gets one event by id, raw only when asked, never across orgs', async () => {
      const target = eventsA[123]!;
      const plain = await store.getEvent(orgA, target.id, false);
      assert.equal(plain?.id, target.id);
      assert.equal(plain?.raw, null);
      assert.equal(plain?.doc, target.doc);
      const withRaw = await store.getEvent(orgA, target.id, true);
      assert.deepEqual(JSON.parse(withRaw!.raw!), { _t: 'ORG_AUDIT', seq: 123 });
      assert.equal(await store.getEvent(orgB, target.id, true), null);
      assert.equal(await store.getEvent(orgA, '000000000000000000000000', false), null);
    });

    test('organizations are isolated in lists and counts', async () => {
      const page = await store.listEvents({
        orgId: orgB,
        offset: 0,
        limit: 500,
        includeCount: true,
        includeRaw: true,
      });
      assert.equal(page.totalCount, 50);
      assert.ok(page.events.every((e) => e.orgId === orgB));
      const unknown = await store.listEvents({
        orgId: '0123456789abcdef01234567',
        offset: 0,
        limit: 5,
        includeCount: true,
        includeRaw: false,
      });
      assert.equal(unknown.totalCount, 0);
    });

    test('event type counts per org', async () => {
      const counts = await store.eventTypeCounts(orgA);
      assert.equal(
        counts.reduce((s, c) => s + c.count, 0),
        1000,
      );
      assert.deepEqual(new Set(counts.map((c) => c.eventTypeName)), new Set(TYPES));
    });

    test('orgs, keys, roles and settings', async () => {
      assert.equal((await store.getOrg(orgA))?.name, 'Org A');
      assert.equal(await store.getOrg('ffffffffffffffffffffffff'), null);
      assert.deepEqual(
        (await store.listOrgs()).map((o) => o.id),
        [orgA, orgB],
      );
      await store.createApiKey({
        id: objectIdAt(base, '1'),
        publicKey: 'abcdefgh',
        description: 'test',
        created: base,
        disabled: false,
        realm: 'R',
        ha1Md5: '0'.repeat(32),
        ha1Sha256: '0'.repeat(64),
      });
      const key = await store.getApiKeyByPublicKey('abcdefgh');
      assert.equal(key?.disabled, false);
      await store.grantRole({ orgId: orgA, apiKeyId: key.id, role: 'ORG_MEMBER', created: base });
      await store.grantRole({ orgId: orgA, apiKeyId: key.id, role: 'ORG_MEMBER', created: base });
      assert.deepEqual(await store.getRoles(orgA, key.id), ['ORG_MEMBER']);
      assert.deepEqual(await store.getRoles(orgB, key.id), []);
      assert.equal((await store.listApiKeys(orgA)).length, 1);
      assert.equal((await store.listApiKeys(orgB)).length, 0);
      assert.equal(await store.setApiKeyDisabled('abcdefgh', true), true);
      assert.equal((await store.getApiKeyByPublicKey('abcdefgh'))?.disabled, true);
      assert.equal(await store.setApiKeyDisabled('zzzzzzzz', true), false);
      const rehashed = { ha1Md5: 'enc1:md5-sealed', ha1Sha256: 'enc1:sha256-sealed' };
      assert.equal(await store.setApiKeyHa1(key.id, rehashed), true);
      const after = await store.getApiKeyByPublicKey('abcdefgh');
      assert.deepEqual([after?.ha1Md5, after?.ha1Sha256], [rehashed.ha1Md5, rehashed.ha1Sha256]);
      assert.equal(await store.setApiKeyHa1('0'.repeat(24), rehashed), false);
      // Replaced only where a key still holds what was read: one rotated meanwhile keeps its own.
      const resealed = { ha1Md5: 'enc1:md5-again', ha1Sha256: 'enc1:sha256-again' };
      assert.deepEqual(
        await store.replaceApiKeysHa1([
          { apiKeyId: key.id, from: rehashed, to: resealed },
          { apiKeyId: '0'.repeat(24), from: rehashed, to: resealed },
        ]),
        [key.id],
      );
      assert.deepEqual(
        await store.replaceApiKeysHa1([{ apiKeyId: key.id, from: rehashed, to: rehashed }]),
        [],
      );
      assert.equal((await store.getApiKeyByPublicKey('abcdefgh'))?.ha1Md5, resealed.ha1Md5);
      const first = await store.getOrCreateSetting('s', () => 'one');
      const second = await store.getOrCreateSetting('s', () => 'two');
      assert.equal(first, 'one');
      assert.equal(second, 'one');
      assert.equal(await store.deleteSetting('s'), true);
      assert.equal(await store.deleteSetting('s'), false);
      assert.equal(await store.getOrCreateSetting('s', () => 'three'), 'three');
    });

    test('a list reads its total and its rows from one snapshot while another connection inserts', async () => {
      const orgC = objectIdAt(base, 'cccccccccccccccc');
      await store.createOrg({ id: orgC, name: 'Org C', created: base });
      // 3,000 events spread at random over 12 hours, so every batch lands
      // inside the windows the lists below read.
      let state = 7;
      const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const incoming = Array.from({ length: 3000 }, (_, i) =>
        makeEvent(
          orgC,
          20_000 + i,
          base + Math.floor(random() * 12 * HOUR_MS),
          TYPES[i % TYPES.length]!,
        ),
      );
      const queries = [
        {},
        { eventTypes: ['JOINED_ORG'] },
        { minCreated: base + 2 * HOUR_MS + 1234, maxCreated: base + 9 * HOUR_MS + 4321 },
      ];
      const writer = await openConcurrentWriter();
      const disagreements: string[] = [];
      let lists = 0;
      try {
        let writing = true;
        const written = (async () => {
          try {
            for (let i = 0; i < incoming.length; i += 25) {
              await writer.insertEvents(orgC, incoming.slice(i, i + 25));
            }
          } finally {
            writing = false;
          }
        })();
        while (writing) {
          // SQLite's driver answers in microtasks only: yield so the writer's
          // replies (macrotasks) can arrive and end the loop.
          await new Promise((resolve) => setImmediate(resolve));
          const filter = queries[lists % queries.length]!;
          lists++;
          try {
            const page = await store.listEvents({
              orgId: orgC,
              ...filter,
              offset: 0,
              limit: 5000,
              includeCount: true,
              includeRaw: false,
            });
            if (page.events.length !== page.totalCount || page.hasMore) {
              disagreements.push(
                `${JSON.stringify(filter)}: ${page.events.length} rows, totalCount ${page.totalCount}, hasMore ${page.hasMore}`,
              );
            }
          } catch (error) {
            disagreements.push(`${JSON.stringify(filter)}: ${String(error)}`);
          }
        }
        await written;
      } finally {
        await writer.close();
      }
      assert.ok(lists >= 30, `the lists overlapped the inserts (${lists} lists)`);
      assert.deepEqual(disagreements.slice(0, 5), [], `${disagreements.length} of ${lists} lists`);
      assert.equal(await store.countEvents({ orgId: orgC }), incoming.length);
    });

    test('saved views: own and shared ones listed, only the owner changes them, per org', async () => {
      const owner = objectIdAt(base, 'e1');
      const other = objectIdAt(base, 'e2');
      const view = (id: string, name: string, shared: boolean, orgId = orgA) => ({
        id: objectIdAt(base, id),
        orgId,
        ownerKeyId: owner,
        name,
        shared,
        state: JSON.stringify({ q: `types=${name}` }),
        created: base,
        updated: base,
      });
      const mine = await store.createSavedView(view('d1', 'Mine', false));
      const team = await store.createSavedView(view('d2', 'Team', true));
      await store.createSavedView(view('d3', 'Elsewhere', true, orgB));

      assert.deepEqual(
        (await store.listSavedViews(orgA, owner)).map((v) => v.name),
        ['Mine', 'Team'],
      );
      assert.deepEqual(await store.listSavedViews(orgA, owner), [mine, team]);
      // Another key of the org sees the shared view only; another org sees its own.
      assert.deepEqual(
        (await store.listSavedViews(orgA, other)).map((v) => v.name),
        ['Team'],
      );
      assert.deepEqual(
        (await store.listSavedViews(orgB, other)).map((v) => v.name),
        ['Elsewhere'],
      );

      // Only the owner renames or deletes, and only within the org.
      assert.equal(
        await store.updateSavedView(orgA, team.id, other, { name: 'X' }, base + 1),
        null,
      );
      assert.equal(
        await store.updateSavedView(orgB, team.id, owner, { name: 'X' }, base + 1),
        null,
      );
      const renamed = await store.updateSavedView(
        orgA,
        team.id,
        owner,
        { name: 'Team renamed', shared: false },
        base + 5,
      );
      assert.deepEqual(renamed, {
        ...team,
        name: 'Team renamed',
        shared: false,
        updated: base + 5,
      });
      assert.deepEqual(await store.listSavedViews(orgA, other), []);
      assert.equal(await store.deleteSavedView(orgA, mine.id, other), false);
      assert.equal(await store.deleteSavedView(orgB, mine.id, owner), false);
      assert.equal(await store.deleteSavedView(orgA, mine.id, owner), true);
      assert.equal(await store.deleteSavedView(orgA, mine.id, owner), false);
      assert.deepEqual(
        (await store.listSavedViews(orgA, owner)).map((v) => v.name),
        ['Team renamed'],
      );
    });

    describe('field filters, facets and histograms agree with an in-memory filter', () => {
      const orgD = objectIdAt(base, 'dddddddddddddddd');
      const from = Date.UTC(2026, 1, 1);
      const to = from + 12 * DAY_MS;
      // Realistic data: the seed's recurring world of actors, projects,
      // clusters, hosts and addresses (IPv4 and IPv6), in several batches.
      const seeded: NewEvent[] = [];
      for (const batch of generateEventBatches(
        { orgId: orgD, count: 4000, seed: 'contract', from, to },
        700,
      )) {
        seeded.push(...batch);
      }
      const all: OracleEvent[] = toOracle(seeded);

      before(async () => {
        await store.createOrg({ id: orgD, name: 'Org D', created: base });
        // Every insert path must index alike: terms derived by the store,
        // handed over precomputed (as bulk loads do), and precomputed for a
        // batch that partly exists already and repeats an id (only the new
        // events' first copies may count).
        for (let i = 0, n = 0; i < seeded.length; i += 700, n++) {
          const batch = seeded.slice(i, i + 700);
          if (n % 3 === 0) {
            await store.insertEvents(orgD, batch);
          } else if (n % 3 === 1) {
            await store.insertEvents(orgD, batch, { terms: batchTerms(batch) });
          } else {
            const overlapping = [...seeded.slice(i - 100, i + 700), batch[0]!];
            const result = await store.insertEvents(orgD, overlapping, {
              terms: batchTerms(overlapping),
            });
            assert.deepEqual(result, { inserted: batch.length, skipped: 101 });
          }
        }
      });

      let state = 2026;
      const random = () => (state = (state * 1103515245 + 12345) % 2 ** 31) / 2 ** 31;
      const pick = <T>(items: readonly T[]): T => items[Math.floor(random() * items.length)]!;
      const valueOf = (e: OracleEvent, field: string) => {
        const v = e.fields[field];
        return typeof v === 'string' ? v : undefined;
      };

      /** A random filter built from values the data holds (and sometimes ones it does not). */
      function randomFilter(): Omit<EventFilter, 'orgId'> {
        const f: Omit<EventFilter, 'orgId'> & { fields: Record<string, string[]> } = { fields: {} };
        const anchor = pick(all);
        const present = FILTER_FIELDS.filter((field) => valueOf(anchor, field) !== undefined);
        const count = Math.floor(random() * 4);
        for (let i = 0; i < count && present.length > 0; i++) {
          const field = pick(present);
          const values = [valueOf(anchor, field)!];
          if (random() < 0.3) values.push(valueOf(pick(all), field) ?? 'nobody');
          if (random() < 0.1) values.push('no-such-value');
          f.fields[field] = values;
        }
        const address = valueOf(anchor, 'remoteAddress');
        if (address && random() < 0.25) {
          f.fields.remoteAddress = [
            address.includes(':')
              ? `${address.split(':').slice(0, 4).join(':')}::/64`
              : `${address.split('.').slice(0, 2).join('.')}.0.0/16`,
          ];
        }
        if (random() < 0.25) {
          const actor = valueOf(anchor, pick(['username', 'userId', 'publicKey', 'apiKeyId']));
          if (actor) f.actor = [actor];
        }
        if (random() < 0.25) {
          const texts = [anchor.eventTypeName, ...present.map((p) => valueOf(anchor, p)!)];
          const word = pick(words(pick(texts)));
          f.q = [word.slice(0, 1 + Math.floor(random() * word.length))];
        }
        if (random() < 0.3) f.eventTypes = [anchor.eventTypeName, pick(all).eventTypeName];
        if (random() < 0.2) f.excludeEventTypes = [pick(all).eventTypeName];
        if (random() < 0.6) {
          const a = from + Math.floor(random() * (to - from));
          f.minCreated = a;
          f.maxCreated = a + Math.floor(random() * (to - a));
        }
        return f;
      }

      test('random combinations: pages and totalCount', async () => {
        for (let i = 0; i < 80; i++) {
          const f = randomFilter();
          const expected = all.filter((e) => matches(e, f));
          const offset = random() < 0.5 ? 0 : Math.floor(random() * (expected.length + 3));
          const limit = 1 + Math.floor(random() * 80);
          const context = `case ${i}: ${JSON.stringify(f)} offset ${offset} limit ${limit}`;
          const page = await store.listEvents({
            orgId: orgD,
            ...f,
            offset,
            limit,
            includeCount: true,
            includeRaw: false,
          });
          assert.equal(page.totalCount, expected.length, context);
          assert.deepEqual(
            page.events.map((e) => e.id),
            expected.slice(offset, offset + limit).map((e) => e.id),
            context,
          );
          assert.equal(page.hasMore, offset + limit < expected.length, context);
          assert.equal(await store.countEvents({ orgId: orgD, ...f }), expected.length, context);
        }
      });

      /** Every batch of a cursor, read to its end. */
      async function readAll(cursor: EventCursor): Promise<StoredEvent[]> {
        const events: StoredEvent[] = [];
        for (let batch = await cursor.read(); batch.length > 0; batch = await cursor.read()) {
          events.push(...batch);
        }
        return events;
      }

      test('random combinations: an event cursor reads exactly the pages, in order, and counts them', async () => {
        for (let i = 0; i < 40; i++) {
          const f = randomFilter();
          const includeRaw = random() < 0.5;
          const context = `case ${i}: ${JSON.stringify(f)}`;
          const cursor = await store.openEventCursor(
            { orgId: orgD, ...f },
            { includeRaw, batchSize: 1 + Math.floor(random() * 300) },
          );
          const streamed = await readAll(cursor);
          assert.equal(cursor.closed, true, context);
          const paged: StoredEvent[] = [];
          for (let offset = 0; ; offset += 97) {
            const page = await store.listEvents({
              orgId: orgD,
              ...f,
              offset,
              limit: 97,
              includeCount: false,
              includeRaw,
            });
            paged.push(...page.events);
            if (!page.hasMore) break;
          }
          assert.equal(cursor.totalCount, paged.length, context);
          assert.deepEqual(streamed, paged, context);
          assert.equal(paged.length, all.filter((e) => matches(e, f)).length, context);
        }
      });

      test('an event cursor reads one snapshot: events committed meanwhile are neither in nor doubled', async () => {
        const orgE = objectIdAt(base, 'eeeeeeeeeeeeeeee');
        await store.createOrg({ id: orgE, name: 'Org E', created: base });
        const first = seeded.slice(0, 2000);
        await store.insertEvents(orgE, first);
        // Newer, older and interleaved with what the cursor is reading.
        const later = seeded.slice(2000, 3000);
        const writer = await openConcurrentWriter();
        try {
          const cursor = await store.openEventCursor(
            { orgId: orgE },
            { includeRaw: false, batchSize: 100 },
          );
          assert.equal(cursor.totalCount, 2000);
          const streamed = [...(await cursor.read())];
          for (let i = 0; i < later.length; i += 250) {
            await writer.insertEvents(orgE, later.slice(i, i + 250));
          }
          // The writer committed on another connection while the cursor was half read.
          assert.equal(await store.countEvents({ orgId: orgE }), 3000);
          streamed.push(...(await readAll(cursor)));
          assert.equal(streamed.length, 2000);
          assert.deepEqual(new Set(streamed.map((e) => e.id)), new Set(first.map((e) => e.id)));
        } finally {
          await writer.close();
        }
      });

      test('closing an event cursor early ends its query and frees the store', async () => {
        const cursor = await store.openEventCursor(
          { orgId: orgD },
          { includeRaw: true, batchSize: 10 },
        );
        assert.equal((await cursor.read()).length, 10);
        assert.equal(cursor.closed, false);
        await cursor.close();
        assert.equal(cursor.closed, true);
        assert.deepEqual(await cursor.read(), []);
        await cursor.close();
        // The store's own connection is free: reads and writes go on.
        const extra = makeEvent(orgD, 90_000, from + 5, 'JOINED_ORG');
        assert.deepEqual(await store.insertEvents(orgD, [extra]), { inserted: 1, skipped: 0 });
        const page = await store.listEvents({
          orgId: orgD,
          offset: 0,
          limit: 1,
          includeCount: true,
          includeRaw: false,
        });
        assert.equal(page.totalCount, seeded.length + 1);
        all.push(...toOracle([extra]));
      });

      test('random combinations: facets under every filter but their own', async () => {
        for (let i = 0; i < 40; i++) {
          const f = randomFilter();
          const limit = 1 + Math.floor(random() * 12);
          const expected = oracleFacets(all, f, FACET_FIELDS, limit);
          const actual = await store.facets({ orgId: orgD, ...f }, FACET_FIELDS, limit);
          assert.deepEqual(actual, expected, `case ${i}: ${JSON.stringify(f)} limit ${limit}`);
          const types = await store.eventTypeCounts(orgD, f);
          assert.deepEqual(
            types.map((t) => [t.eventTypeName, t.count]).sort(),
            oracleFacets(all, f, ['eventTypeName'], 10_000)
              .facets.eventTypeName!.map((t) => [t.value, t.count])
              .sort(),
            `eventTypes case ${i}`,
          );
        }
      });

      test('random single-field filters with types and dates (per-type term counters): pages, facets, histograms', async () => {
        for (let i = 0; i < 30; i++) {
          const anchor = pick(all);
          const present = FILTER_FIELDS.filter((field) => valueOf(anchor, field) !== undefined);
          const f: Omit<EventFilter, 'orgId'> = {};
          if (random() < 0.8) {
            const field = pick(present);
            f.fields = { [field]: [valueOf(anchor, field)!, valueOf(pick(all), field) ?? 'x'] };
          }
          if (random() < 0.7) f.eventTypes = [anchor.eventTypeName, pick(all).eventTypeName];
          else f.excludeEventTypes = [pick(all).eventTypeName];
          if (random() < 0.7) {
            // Cut days at both ends, or whole days only.
            const whole = random() < 0.3;
            const a = from + Math.floor(random() * (to - from));
            const b = a + Math.floor(random() * (to - a));
            f.minCreated = whole ? a - (a % DAY_MS) : a;
            f.maxCreated = whole ? b - (b % DAY_MS) + DAY_MS - 1 : b;
          }
          const context = `case ${i}: ${JSON.stringify(f)}`;
          const expected = all.filter((e) => matches(e, f));
          const offset = Math.floor(random() * (expected.length + 3));
          const page = await store.listEvents({
            orgId: orgD,
            ...f,
            offset,
            limit: 25,
            includeCount: true,
            includeRaw: false,
          });
          assert.equal(page.totalCount, expected.length, context);
          assert.deepEqual(
            page.events.map((e) => e.id),
            expected.slice(offset, offset + 25).map((e) => e.id),
            context,
          );
          assert.deepEqual(
            await store.facets({ orgId: orgD, ...f }, FACET_FIELDS, 8),
            oracleFacets(all, f, FACET_FIELDS, 8),
            context,
          );
          const query = { ...f, buckets: 60, interval: pick(HISTOGRAM_INTERVALS.slice(1)) };
          assert.deepEqual(
            await store.histogram({ orgId: orgD, ...query }),
            oracleHistogram(all, query),
            context,
          );
        }
      });

      test('q words matching both terms and types, up to three at once: counts, shallow and deep pages, cursor, facets, histograms', async () => {
        // One-letter words match thousands of terms and many types: the
        // store builds their sets whole (counts, deep pages) or scans events
        // (a first page); both must give the oracle's answer.
        const cases: Omit<EventFilter, 'orgId'>[] = [
          { q: ['a'] },
          { q: ['a', 's'] },
          { q: ['c', 'e', 'o'] },
          {
            q: ['a'],
            fields: {
              clusterName: [...new Set(all.map((e) => valueOf(e, 'clusterName')))]
                .filter((v): v is string => v !== undefined)
                .slice(0, 3),
            },
          },
          { q: ['p', 'd'], excludeEventTypes: [all[0]!.eventTypeName] },
          { q: ['a', 'u'], minCreated: from + 2 * DAY_MS + 5, maxCreated: to - 3 * DAY_MS - 7 },
        ];
        for (const f of cases) {
          const context = JSON.stringify(f);
          const expected = all.filter((e) => matches(e, f));
          assert.ok(expected.length > 0, `${context} matches some events`);
          for (const offset of [0, Math.floor(expected.length / 2), expected.length - 10]) {
            if (offset < 0) continue;
            const page = await store.listEvents({
              orgId: orgD,
              ...f,
              offset,
              limit: 30,
              includeCount: true,
              includeRaw: false,
            });
            assert.equal(page.totalCount, expected.length, `${context} offset ${offset}`);
            assert.deepEqual(
              page.events.map((e) => e.id),
              expected.slice(offset, offset + 30).map((e) => e.id),
              `${context} offset ${offset}`,
            );
          }
          const streamed = await readAll(
            await store.openEventCursor({ orgId: orgD, ...f }, { includeRaw: false }),
          );
          assert.deepEqual(
            streamed.map((e) => e.id),
            expected.map((e) => e.id),
            context,
          );
          assert.deepEqual(
            await store.facets({ orgId: orgD, ...f }, FACET_FIELDS, 8),
            oracleFacets(all, f, FACET_FIELDS, 8),
            context,
          );
          const query = { ...f, buckets: 40 };
          assert.deepEqual(
            await store.histogram({ orgId: orgD, ...query }),
            oracleHistogram(all, query),
            context,
          );
        }
      });

      test('random combinations: histogram buckets', async () => {
        for (let i = 0; i < 40; i++) {
          const f = randomFilter();
          const timeZone = pick([undefined, 'America/New_York', 'Asia/Kolkata']);
          const query =
            random() < 0.5
              ? { ...f, buckets: 1 + Math.floor(random() * 100), timeZone }
              : { ...f, buckets: 60, interval: pick(HISTOGRAM_INTERVALS.slice(1)), timeZone };
          const expected = oracleHistogram(all, query);
          const actual = await store.histogram({ orgId: orgD, ...query });
          const context = `case ${i}: ${JSON.stringify(query)}`;
          assert.deepEqual(actual, expected, context);
          if (expected.buckets.length > 0) {
            assert.equal(actual.totalCount, all.filter((e) => matches(e, f)).length, context);
          }
        }
      });
    });

    test('month buckets in the first century (years 0-99): every month, zero events, a total of 0', async () => {
      // Date.UTC reads years 0-99 as 19xx: these ranges had no buckets and a null total.
      const at = (text: string) => parseApiDateTime(text)!;
      const century = await store.histogram({
        orgId: orgA,
        minCreated: at('0099-01-01T00:00:00Z'),
        maxCreated: at('0100-01-01T00:00:00Z'),
        buckets: 60,
        interval: 'month',
      });
      assert.equal(century.totalCount, 0);
      assert.equal(century.buckets.length, 13);
      assert.equal(century.buckets[0]!.start, at('0099-01-01T00:00:00Z'));
      assert.equal(century.buckets[12]!.start, at('0100-01-01T00:00:00Z'));
      assert.ok(century.buckets.every((bucket) => bucket.count === 0));
      const chosen = await store.histogram({
        orgId: orgA,
        minCreated: at('0050-01-01T00:00:00Z'),
        maxCreated: at('0050-06-01T00:00:00Z'),
        buckets: 6,
      });
      assert.equal(chosen.interval, 'month');
      assert.deepEqual(
        chosen.buckets.map((bucket) => bucket.start),
        ['0050-01', '0050-02', '0050-03', '0050-04', '0050-05', '0050-06'].map((month) =>
          at(`${month}-01T00:00:00Z`),
        ),
      );
      assert.equal(chosen.totalCount, 0);
    });

    /**
     * A zoned histogram's buckets start at `starts`, and each one's count is
     * the filtered count between its start and the next (the range's ends
     * bounding the first and last): exact, and none empty in these ranges.
     */
    async function assertZonedBuckets(
      filter: Omit<EventFilter, 'orgId' | 'minCreated' | 'maxCreated'>,
      interval: HistogramInterval,
      timeZone: string,
      minCreated: number,
      maxCreated: number,
      starts: number[],
    ) {
      const histogram = await store.histogram({
        orgId: orgA,
        ...filter,
        minCreated,
        maxCreated,
        buckets: 60,
        interval,
        timeZone,
      });
      const context = `${timeZone} ${JSON.stringify(filter)}`;
      assert.deepEqual(
        histogram.buckets.map((bucket) => bucket.start),
        starts,
        context,
      );
      const counts = await Promise.all(
        starts.map((start, i) =>
          store.countEvents({
            orgId: orgA,
            ...filter,
            minCreated: Math.max(start, minCreated),
            maxCreated: Math.min((starts[i + 1] ?? Infinity) - 1, maxCreated),
          }),
        ),
      );
      assert.deepEqual(
        histogram.buckets.map((bucket) => bucket.count),
        counts,
        context,
      );
      assert.ok(
        counts.every((count) => count > 0),
        context,
      );
    }

    test('day buckets in a time zone start at its midnights, on a whole-hour and a half-hour offset, with exact counts', async () => {
      const at = (text: string) => parseApiDateTime(text)!;
      const minCreated = base + 3 * 3_600_000;
      const maxCreated = base + 2 * 86_400_000;
      for (const [timeZone, midnights] of [
        // 19:00 the day before in UTC: New York's day starts 5 hours later.
        [
          'America/New_York',
          ['2025-12-31T05:00:00Z', '2026-01-01T05:00:00Z', '2026-01-02T05:00:00Z'],
        ],
        // Kolkata, UTC+05:30: its midnights are no whole UTC hour.
        ['Asia/Kolkata', ['2025-12-31T18:30:00Z', '2026-01-01T18:30:00Z', '2026-01-02T18:30:00Z']],
      ] as const) {
        for (const filter of [
          {},
          { eventTypes: ['JOINED_ORG'] },
          { username: ['user3@example.com'] },
        ]) {
          await assertZonedBuckets(
            filter,
            'day',
            timeZone,
            minCreated,
            maxCreated,
            midnights.map(at),
          );
        }
      }
    });

    test("hour buckets in a zone whose offset is no whole hour start at its clock's hours (Kolkata's at UTC's :30, Kathmandu's at :15), with exact counts", async () => {
      const at = (text: string) => parseApiDateTime(text)!;
      const minCreated = base + 2 * 3_600_000 + 40 * 60_000;
      const maxCreated = base + 6 * 3_600_000;
      for (const [timeZone, hours] of [
        [
          'Asia/Kolkata',
          ['02:30', '03:30', '04:30', '05:30'].map((hour) => `2026-01-01T${hour}:00Z`),
        ],
        [
          'Asia/Kathmandu',
          ['02:15', '03:15', '04:15', '05:15'].map((hour) => `2026-01-01T${hour}:00Z`),
        ],
      ] as const) {
        for (const filter of [{}, { eventTypes: ['JOINED_ORG'] }]) {
          await assertZonedBuckets(filter, 'hour', timeZone, minCreated, maxCreated, hours.map(at));
        }
      }
    });

    test('decades of events (an epoch-zero date among them) come in year buckets, not refused', async () => {
      const at = (text: string) => parseApiDateTime(text)!;
      const decades = await store.histogram({
        orgId: orgA,
        minCreated: 0,
        maxCreated: at('2026-06-30T00:00:00Z'),
        buckets: 200,
      });
      assert.equal(decades.interval, 'year');
      assert.equal(decades.buckets.length, 57);
      assert.equal(decades.buckets[0]!.start, 0);
      assert.equal(decades.buckets[56]!.start, at('2026-01-01T00:00:00Z'));
      assert.equal(
        decades.totalCount,
        await store.countEvents({ orgId: orgA, maxCreated: at('2026-06-30T00:00:00Z') }),
      );
      // The whole range the API's dates can write: 100 centuries, never refused.
      const all = await store.histogram({
        orgId: orgA,
        minCreated: at('0000-01-01T00:00:00Z'),
        maxCreated: at('9999-12-31T23:59:59Z'),
        buckets: 60,
      });
      assert.deepEqual([all.interval, all.buckets.length], ['century', 100]);
      assert.equal(all.totalCount, await store.countEvents({ orgId: orgA }));
    });

    test('two writers whose batches share counter rows, listed in opposite orders, both finish with exact counts', async () => {
      // Each batch bumps the same (type, day) and (all types, hour) counters,
      // one writer's in the reverse order of the other's: a store locking
      // counter rows in batch order deadlocks (PostgreSQL: 40P01) here.
      // Last in the contract: its org would show in the org listings above.
      const orgW = objectIdAt(base, '7777777777777777');
      await store.createOrg({ id: orgW, name: 'Org W', created: base });
      const types = Array.from({ length: 40 }, (_, t) => `WRITER_TYPE_${t}`);
      const batch = (round: number, writer: number): NewEvent[] => {
        const events = types.flatMap((type, t) =>
          Array.from({ length: 3 }, (_, k) =>
            makeEvent(
              orgW,
              100_000 + ((round * 2 + writer) * types.length + t) * 3 + k,
              base + ((t * 3 + k) % 48) * HOUR_MS,
              type,
            ),
          ),
        );
        return writer === 0 ? events : events.reverse();
      };
      const writer = await openConcurrentWriter();
      const rounds = 12;
      try {
        for (let round = 0; round < rounds; round++) {
          const results = await Promise.all([
            store.insertEvents(orgW, batch(round, 0)),
            writer.insertEvents(orgW, batch(round, 1)),
          ]);
          assert.deepEqual(
            results.map((r) => r.inserted),
            [types.length * 3, types.length * 3],
          );
        }
      } finally {
        await writer.close();
      }
      const total = rounds * 2 * types.length * 3;
      assert.equal(await store.countEvents({ orgId: orgW }), total);
      assert.equal(await store.countEvents({ orgId: orgW, eventTypes: [types[7]!] }), total / 40);
    });

    test('a batch mixing null and present raw, and a type name holding control characters, read back exactly', async () => {
      // PostgreSQL ships a batch as text split on two control characters,
      // which JSON text never holds raw; a batch whose type name holds them
      // goes another way. Either way every field comes back as it went in.
      const orgX = objectIdAt(base, '7777777777777779');
      await store.createOrg({ id: orgX, name: 'Org X', created: base });
      const withRaw = makeEvent(orgX, 900_001, base, 'JOINED_ORG');
      const withoutRaw = { ...makeEvent(orgX, 900_002, base + 1_000, 'JOINED_ORG'), raw: null };
      const oddType = makeEvent(orgX, 900_003, base + 2_000, 'ODD\x1fTYPE\x1eNAME');
      assert.equal((await store.insertEvents(orgX, [withRaw, withoutRaw])).inserted, 2);
      assert.equal((await store.insertEvents(orgX, [oddType])).inserted, 1);
      const page = await store.listEvents({
        orgId: orgX,
        offset: 0,
        limit: 10,
        includeCount: true,
        includeRaw: true,
      });
      const stored = (e: NewEvent) => [e.id, e.created, e.eventTypeName, e.doc, e.raw];
      assert.deepEqual(page.events.map(stored), [oddType, withoutRaw, withRaw].map(stored));
    });

    test('a field value holding U+0000 is kept in its document, not indexed, and asking for it matches nothing', async () => {
      // PostgreSQL's text cannot hold U+0000: such a term failed the whole
      // batch there (the valid events with it), and a filter or a sign-in
      // key holding one was a 500. Both engines now treat it alike.
      const orgN = objectIdAt(base, '7777777777777770');
      await store.createOrg({ id: orgN, name: 'Org N', created: base });
      const odd = encodeEvent(orgN, {
        id: objectIdAt(base, '0000000000d00001'),
        created: new Date(base).toISOString(),
        eventTypeName: 'JOINED_ORG',
        username: 'nul\u0000name',
        hostname: 'host-with-nul\u0000',
        isGlobalAdmin: false,
      });
      const plain = makeEvent(orgN, 900_101, base + 1_000, 'JOINED_ORG');
      assert.equal((await store.insertEvents(orgN, [odd, plain])).inserted, 2);
      const all = await store.listEvents({
        orgId: orgN,
        offset: 0,
        limit: 10,
        includeCount: true,
        includeRaw: false,
      });
      assert.deepEqual(
        all.events.map((e) => e.doc),
        [plain.doc, odd.doc],
      );
      for (const filter of [
        { fields: { username: ['nul\u0000name'] } },
        { fields: { hostname: ['host-with-nul\u0000', 'other'] } },
        { actor: ['nul\u0000name'] },
      ]) {
        const page = await store.listEvents({
          orgId: orgN,
          offset: 0,
          limit: 10,
          includeCount: true,
          includeRaw: false,
          ...filter,
        });
        assert.equal(page.totalCount, 0, JSON.stringify(filter));
        assert.deepEqual(page.events, []);
      }
      const facets = await store.facets({ orgId: orgN }, ['actor', 'hostname'], 10);
      assert.deepEqual(
        facets.facets.actor?.map((f) => f.value),
        [(JSON.parse(plain.doc) as { username: string }).username],
      );
      assert.deepEqual(facets.facets.hostname ?? [], []);
      assert.equal(await store.getApiKeyByPublicKey('ab\u0000cd'), null);
    });

    test('facets under a field filter or q count no value the index leaves out (U+0000, over the length, half a surrogate pair), and do not fail on them', async () => {
      // Counted from the documents there: PostgreSQL failed the whole query
      // (a 500) on a value with U+0000 anywhere in the org, and both engines
      // listed values whose filter then matched nothing.
      const orgF = objectIdAt(base, '7777777777777773');
      await store.createOrg({ id: orgF, name: 'Org F', created: base });
      const groupId = '5f4e3d2c1b0a998877665500';
      const event = (n: number, fields: Record<string, string>) =>
        encodeEvent(orgF, {
          id: objectIdAt(base + n * 1_000, `0000000000f0000${n}`),
          created: new Date(base + n * 1_000).toISOString(),
          eventTypeName: 'CLUSTER_CREATED',
          groupId,
          isGlobalAdmin: false,
          ...fields,
        });
      const tooLong = 'c'.repeat(MAX_INDEXED_VALUE_LENGTH + 1);
      const events = [
        event(1, { username: 'nul\u0000name', clusterName: 'with-nul\u0000' }),
        event(2, { username: 'x\udc00y', clusterName: tooLong }),
        event(3, { username: tooLong, hostname: 'h\udc00' }),
        event(4, { username: 'ada@example.com', clusterName: 'Cluster0', hostname: 'h1' }),
      ];
      assert.equal((await store.insertEvents(orgF, events)).inserted, 4);
      const filters: Omit<EventFilter, 'orgId'>[] = [
        { fields: { groupId: [groupId] } },
        { q: ['cluster'] },
      ];
      for (const filter of filters) {
        const facets = await store.facets(
          { orgId: orgF, ...filter },
          ['actor', 'clusterName', 'hostname'],
          10,
        );
        assert.equal(facets.totalCount, 4, JSON.stringify(filter));
        assert.deepEqual(
          facets.facets,
          {
            actor: [{ value: 'ada@example.com', count: 1 }],
            clusterName: [{ value: 'Cluster0', count: 1 }],
            hostname: [{ value: 'h1', count: 1 }],
          },
          JSON.stringify(filter),
        );
      }
    });

    test('a field value longer than the indexed length is kept in its document, not indexed, and fails nothing beside it; one at the length is indexed whatever its bytes', async () => {
      // On PostgreSQL a term longer than a B-tree entry (2,704 bytes) failed
      // the whole batch, the valid events with it; SQLite took it.
      const orgL = objectIdAt(base, '7777777777777772');
      await store.createOrg({ id: orgL, name: 'Org L', created: base });
      const tooLong = 'c'.repeat(MAX_INDEXED_VALUE_LENGTH + 1);
      // Three bytes of UTF-8 a code unit: the most bytes a value of this length holds.
      const atLength = '\u20ac'.repeat(MAX_INDEXED_VALUE_LENGTH);
      // Read from its text, as an import reads a compact record with its
      // keys in order (the index's values then come from the text alone).
      const longOne = encodeRecordText(
        orgL,
        JSON.stringify({
          clusterName: tooLong,
          created: new Date(base).toISOString().replace('.000Z', 'Z'),
          eventTypeName: 'CLUSTER_CREATED',
          groupId: '5f4e3d2c1b0a99887766554f',
          hostname: atLength,
          id: objectIdAt(base, '0000000000d00003'),
          orgId: orgL,
        }),
        false,
      );
      assert.ok(longOne, 'read from its text');
      const plain = makeEvent(orgL, 900_102, base + 1_000, 'JOINED_ORG');
      assert.equal((await store.insertEvents(orgL, [longOne, plain])).inserted, 2);
      const count = async (filter: Omit<EventFilter, 'orgId'>) =>
        (
          await store.listEvents({
            orgId: orgL,
            offset: 0,
            limit: 10,
            includeCount: true,
            includeRaw: false,
            ...filter,
          })
        ).totalCount;
      assert.equal(await count({}), 2);
      assert.equal(await count({ fields: { clusterName: [tooLong] } }), 0);
      assert.equal(await count({ fields: { hostname: [atLength] } }), 1);
      assert.equal(await count({ fields: { groupId: ['5f4e3d2c1b0a99887766554f'] } }), 1);
      const facets = await store.facets({ orgId: orgL }, ['clusterName', 'hostname'], 10);
      assert.deepEqual(facets.facets.clusterName ?? [], []);
      assert.deepEqual(facets.facets.hostname, [{ value: atLength, count: 1 }]);
      assert.equal(await store.deleteEvents(orgL, { ids: [longOne.id, plain.id] }), 2);
      assert.equal(await count({ fields: { hostname: [atLength] } }), 0);
    });

    test('a field value holding half a surrogate pair is not indexed: deleting and importing the event again leave exact counts', async () => {
      // SQLite stores a lone surrogate as bytes that read back otherwise,
      // PostgreSQL as U+FFFD: its term was never found again, so a deletion
      // left it counted and the event's second import failed on the postings' key.
      const orgS = objectIdAt(base, '7777777777777771');
      await store.createOrg({ id: orgS, name: 'Org S', created: base });
      const odd = encodeEvent(orgS, {
        id: objectIdAt(base, '0000000000d00002'),
        created: new Date(base).toISOString(),
        eventTypeName: 'JOINED_ORG',
        username: 'x\udc00y',
        isGlobalAdmin: false,
      });
      for (let round = 0; round < 2; round++) {
        assert.equal((await store.insertEvents(orgS, [odd], { runId: 'lone' })).inserted, 1);
        const page = await store.listEvents({
          orgId: orgS,
          offset: 0,
          limit: 10,
          includeCount: true,
          includeRaw: false,
        });
        assert.deepEqual(
          page.events.map((e) => e.doc),
          [odd.doc],
        );
        const asked = await store.listEvents({
          orgId: orgS,
          offset: 0,
          limit: 10,
          includeCount: true,
          includeRaw: false,
          fields: { username: ['x\udc00y'] },
        });
        assert.equal(asked.totalCount, 0);
        assert.deepEqual(
          (await store.facets({ orgId: orgS }, ['actor'], 10)).facets.actor ?? [],
          [],
        );
        assert.equal(await store.deleteEvents(orgS, { runId: 'lone' }), 1);
        assert.deepEqual(
          (await store.facets({ orgId: orgS }, ['actor'], 10)).facets.actor ?? [],
          [],
        );
      }
    });

    test('two writers whose batches repeat ids in opposite orders both finish without a deadlock, each id stored once', async () => {
      // Both batches hold the same ids first and last, the other's way round:
      // written in the batches' orders, each waited on a row the other had
      // inserted (PostgreSQL broke the cycle with 40P01 and one batch was run
      // again). Unique ids in between widen the window in which both run.
      const orgR = objectIdAt(base, '7777777777777778');
      await store.createOrg({ id: orgR, name: 'Org R', created: base });
      const writer = await openConcurrentWriter();
      const warnings: string[] = [];
      setStoreLogger({ warn: (_details, message) => warnings.push(message) });
      const rounds = 4;
      const middle = 1_500;
      try {
        for (let round = 0; round < rounds; round++) {
          const at = (i: number) => base + (round * 10 + (i % 10)) * HOUR_MS;
          const shared = (k: number) =>
            makeEvent(orgR, 300_000 + round * 10_000 + k, at(k), 'JOINED_ORG');
          const own = (writerIndex: number) =>
            Array.from({ length: middle }, (_, i) =>
              makeEvent(
                orgR,
                400_000 + (round * 2 + writerIndex) * middle + i,
                at(i),
                'JOINED_ORG',
              ),
            );
          const results = await Promise.all([
            store.insertEvents(orgR, [shared(0), ...own(0), shared(1)]),
            writer.insertEvents(orgR, [shared(1), ...own(1), shared(0)]),
          ]);
          assert.equal(results[0].inserted + results[1].inserted, 2 * middle + 2);
          assert.equal(results[0].skipped + results[1].skipped, 2);
        }
      } finally {
        setStoreLogger(undefined);
        await writer.close();
      }
      assert.deepEqual(warnings, [], 'no transaction was run again after a deadlock');
      const total = rounds * (2 * middle + 2);
      assert.equal(await store.countEvents({ orgId: orgR }), total);
      const listed = await store.listEvents({
        orgId: orgR,
        offset: 0,
        limit: total + 1,
        includeCount: true,
        includeRaw: false,
      });
      assert.equal(listed.totalCount, total);
      assert.equal(new Set(listed.events.map((e) => e.id)).size, total);
    });

    test('batches handed over at once keep the copy of a repeated id from the batch handed first', async () => {
      const orgF = objectIdAt(Date.UTC(2024, 0, 1), 'fafafafafafafafa');
      await store.createOrg({ id: orgF, name: 'Org F', created: base });
      for (let round = 0; round < 3; round++) {
        // A large batch whose repeated id comes last in write order, and the
        // same id alone (another document) in a small batch that would
        // otherwise finish first.
        const large = Array.from({ length: 3000 }, (_, i) =>
          makeEvent(orgF, 600_000 + round * 10_000 + i, base + (3000 - i) * 1000, 'JOINED_ORG'),
        );
        const first = large[large.length - 1]!;
        const later = {
          ...first,
          doc: first.doc.replace('"isGlobalAdmin":false', '"isGlobalAdmin":true'),
        };
        assert.notEqual(later.doc, first.doc);
        const results = await Promise.all([
          store.insertEvents(orgF, large),
          store.insertEvents(orgF, [later]),
        ]);
        assert.deepEqual(
          results.map((r) => [r.inserted, r.skipped]),
          [
            [3000, 0],
            [0, 1],
          ],
          `round ${round}`,
        );
        assert.equal(
          (await store.getEvent(orgF, first.id, false))?.doc,
          first.doc,
          `round ${round}`,
        );
      }
    });

    test('large batches repeating stored ids and their own store what small batches store', async () => {
      // PostgreSQL copies a batch of 1,000 or more events (COPY), which has no
      // ON CONFLICT: one stored event fails it, and the batch goes again as
      // INSERT ... ON CONFLICT DO NOTHING. Here org L gets a first large
      // batch (copied whole), then one repeating 300 of its events and one
      // of its own ids; org M gets the same events 400 at a time. Every table
      // of the two orgs must hold the same rows: events, counters, postings.
      const orgL = objectIdAt(base, '777777777777777a');
      const orgM = objectIdAt(base, '777777777777777b');
      // Every fifth event's username holds non-ASCII text and a JSON escape,
      // every tenth has no raw: COPY sends texts as bytes, nulls as nulls.
      const events = (orgId: string, from: number, count: number) =>
        Array.from({ length: count }, (_, k) => {
          const i = from + k;
          const event = makeEvent(orgId, 600_000 + i, base + (i % 97) * HOUR_MS + i, TYPES[i % 3]!);
          if (i % 5 !== 0) return event;
          return {
            ...event,
            doc: event.doc.replace('@example.com', '@exämple.cöm \\"✓\\"'),
            raw: i % 10 === 0 ? null : event.raw,
          };
        });
      await store.createOrg({ id: orgL, name: 'Org L', created: base });
      await store.createOrg({ id: orgM, name: 'Org M', created: base });
      const first = events(orgL, 0, 1_200);
      const second = [...events(orgL, 900, 1_500), events(orgL, 2_000, 1)[0]!];
      assert.deepEqual(await store.insertEvents(orgL, first), { inserted: 1_200, skipped: 0 });
      assert.deepEqual(await store.insertEvents(orgL, second), { inserted: 1_200, skipped: 301 });
      const all = events(orgM, 0, 2_400);
      for (let i = 0; i < all.length; i += 400) {
        await store.insertEvents(orgM, all.slice(i, i + 400));
      }
      const dump = async (orgId: string) =>
        JSON.stringify(await store.dumpOrg(orgId))
          .replaceAll(orgId, 'ORG')
          .replace(/"name":"Org [LM]"/, '"name":"Org"');
      assert.equal(await store.countEvents({ orgId: orgL }), 2_400);
      // Event 1000 (non-ASCII, no raw) came with the first batch, copied whole.
      const copied = first[1000]!;
      const stored = await store.getEvent(orgL, copied.id, true);
      assert.deepEqual([stored?.doc, stored?.raw], [copied.doc, null]);
      assert.equal(await dump(orgL), await dump(orgM));
    });

    test("a bulk load's batch (its texts in one buffer of UTF-8) stores what the same events as strings store", async () => {
      // A packed batch's events decode doc and raw as they are read, and
      // offer them as bytes too (docBytes, rawBytes), which SQLite binds as
      // they are; 1,200 events are one COPY on PostgreSQL. Non-ASCII text,
      // JSON escapes and null raws among them.
      const orgP = objectIdAt(base, '888888888888888a');
      const orgQ = objectIdAt(base, '888888888888888b');
      const events = (orgId: string) =>
        Array.from({ length: 1_200 }, (_, i) => {
          const event = makeEvent(orgId, 700_000 + i, base + (i % 89) * HOUR_MS + i, TYPES[i % 3]!);
          if (i % 4 !== 0) return event;
          return {
            ...event,
            doc: event.doc.replace('@example.com', '@exämple.cöm \\"✓\\" 🚀'),
            raw: i % 8 === 0 ? null : '{"é":\n 1.0, "9007199254740993": 9007199254740993}',
          };
        });
      await store.createOrg({ id: orgP, name: 'Org P', created: base });
      await store.createOrg({ id: orgQ, name: 'Org Q', created: base });
      const packer = new BatchPacker(1_200);
      for (const event of events(orgP)) packer.add(event);
      const packed = unpackBatch(packer.finish());
      assert.ok(packed.events.every((event) => event.docBytes instanceof Uint8Array));
      assert.deepEqual(await store.insertEvents(orgP, packed.events, { terms: packed.terms }), {
        inserted: 1_200,
        skipped: 0,
      });
      assert.deepEqual(await store.insertEvents(orgQ, events(orgQ)), {
        inserted: 1_200,
        skipped: 0,
      });
      const dump = async (orgId: string) =>
        JSON.stringify(await store.dumpOrg(orgId))
          .replaceAll(orgId, 'ORG')
          .replace(/"name":"Org [PQ]"/, '"name":"Org"');
      const sample = events(orgP)[4]!;
      const stored = await store.getEvent(orgP, sample.id, true);
      assert.deepEqual([stored?.doc, stored?.raw], [sample.doc, sample.raw]);
      assert.equal(await dump(orgP), await dump(orgQ));
    });

    test('the import ledger lists the runs of the statuses asked for, newest first, the limit counting those only; none asked for is none', async () => {
      const orgR = objectIdAt(Date.UTC(2024, 0, 1), '1e1e1e1e1e1e1e1e');
      await store.createOrg({ id: orgR, name: 'Org R', created: base });
      const statuses = ['finished', 'failed', 'failed', 'undone', 'failed'] as const;
      const runs = statuses.map((status, i) => ({
        id: objectIdAt(base + i * 1000, '2e2e2e2e2e2e2e2e'),
        orgId: orgR,
        kind: 'mirror' as const,
        source: 'https://source.example#org',
        started: base + i * 1000,
        finished: base + i * 1000 + 500,
        inserted: 0,
        skipped: 0,
        rejected: 0,
        status,
        detail: status === 'failed' ? 'The key was refused' : null,
        host: null,
        pid: null,
        heartbeat: null,
        undoFrom: null,
      }));
      for (const run of runs) await store.createIngestRun(run);
      const ids = async (limit?: number, asked?: IngestRunStatus[]) =>
        (await store.listIngestRuns(orgR, limit, asked)).map((run) => run.id);
      const [finished, failed1, failed2, undone, failed3] = runs.map((run) => run.id);
      assert.deepEqual(await ids(), [failed3, undone, failed2, failed1, finished]);
      assert.deepEqual(await ids(undefined, ['failed']), [failed3, failed2, failed1]);
      assert.deepEqual(await ids(2, ['failed']), [failed3, failed2]);
      assert.deepEqual(await ids(undefined, ['finished', 'undone']), [undone, finished]);
      assert.deepEqual(await ids(undefined, []), []);
    });

    deletionContract(() => store);
  });
}
