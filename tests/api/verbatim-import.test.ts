import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { createApiHandler, type ApiHandler } from '@/lib/api/handler';
import { issueApiKey } from '@/lib/auth/api-keys';
import { getConfig, setConfigForTesting } from '@/lib/config';
import { compactJson } from '@/lib/domain/json-text';
import { importEvents } from '@/lib/ingest/import';
import { openStore } from '@/lib/store';
import { PostgresStore } from '@/lib/store/postgres';
import type { EventStore } from '@/lib/store/types';
import { answerChallenge } from '@/tests/helpers/digest-client';
import { createTestDatabase } from '@/tests/helpers/postgres';

/**
 * Issue 11, "must show" 2: events imported from files come back from the API
 * byte for byte — list and get, with and without raw, compact and pretty —
 * on both engines. The records are the recorded live responses of
 * ../shared/reference/atlas-events-api.md (SNAP-ORG; the second one's
 * elided values filled from the first) and edge cases the real service may
 * send. Only the `self` href differs from the source: it is ours.
 */

const ORG = 'a0123456789abcdef012345a';
const BASE = 'http://localhost:8080';
const P = '/api/public/v1.0';
const ourLinks = (id: string) => `[{"href":"${BASE}${P}/orgs/${ORG}/events/${id}","rel":"self"}]`;

type Case = {
  name: string;
  id: string;
  /** The record as the file holds it. */
  source: string;
  /** The `raw` member exactly as written in `source`, if any: absent from answers without includeRaw. */
  raw?: string;
};

const RECORDED: Case[] = [
  {
    name: 'recorded live API_KEY_CREATED (SNAP-ORG)',
    id: '6a793fbd2c88faeba59bd3b5',
    source:
      '{"apiKeyId":"6835e821c794bf2ac0a9ec73","created":"2026-08-10T03:04:29Z","eventTypeName":"API_KEY_CREATED","id":"6a793fbd2c88faeba59bd3b5","isGlobalAdmin":false,"links":[{"href":"http://localhost:8080/api/atlas/v2/groups/null/events/6a793fbd2c88faeba59bd3b5","rel":"self"}],"orgId":"a0123456789abcdef012345a","publicKey":"nmtxqlkl","remoteAddress":"52.190.182.226","targetPublicKey":"flezioeg"}',
  },
  {
    name: 'recorded live GROUP_TAGS_MODIFIED (SNAP-ORG)',
    id: '6a794002a9bc1e7320357d68',
    source:
      '{"apiKeyId":"6835e821c794bf2ac0a9ec73","created":"2026-08-10T03:05:38Z","eventTypeName":"GROUP_TAGS_MODIFIED","groupId":"6a793feb2c88faeba59bd8f6","id":"6a794002a9bc1e7320357d68","isGlobalAdmin":false,"links":[{"href":"http://localhost:8080/api/atlas/v2/groups/6a793feb2c88faeba59bd8f6/events/6a794002a9bc1e7320357d68","rel":"self"}],"orgId":"a0123456789abcdef012345a","publicKey":"nmtxqlkl","remoteAddress":"52.190.182.226","resourceId":"6a793feb2c88faeba59bd8f6","resourceType":"project"}',
  },
];

const RAW_BIG =
  '{"_t":"ALERT_AUDIT","cid":9007199254740993,"z":1,"a":{"10":"ten","2":"two","b":[1.0,-0.0,1E+2,12345678901234567890]},"et":null,"description":"caf\\u00e9 \\"quoted\\""}';
const RAW_PLAIN = '{"_t":"NDS_AUDIT","cre":1.50,"orgName":"Acme"}';

const EDGES: Case[] = [
  {
    name: 'big integers, 1.0, integer-like keys and escapes in raw',
    id: '6a793f0000000000000000a1',
    source: `{"alertConfigId":"6a793f0000000000000000c1","created":"2026-08-10T03:00:00Z","eventTypeName":"ALERT_CONFIG_CHANGED_AUDIT","id":"6a793f0000000000000000a1","isGlobalAdmin":false,"links":${ourLinks('6a793f0000000000000000a1')},"orgId":"${ORG}","raw":${RAW_BIG},"remoteAddress":"10.0.0.1","username":"a@example.com"}`,
    raw: RAW_BIG,
  },
  {
    name: 'unknown units, 1.0 and a number as a string',
    id: '6a793f0000000000000000a2',
    source: `{"clusterName":"Cluster0","created":"2026-08-10T02:59:00Z","currentValue":{"number":1.0,"units":"billion pixels per fortnight"},"eventTypeName":"OUTSIDE_METRIC_THRESHOLD","hostname":"h1.example.com","id":"6a793f0000000000000000a2","isGlobalAdmin":false,"links":${ourLinks('6a793f0000000000000000a2')},"metricName":"SEARCH_MAX_FIELDS_INDEXED","orgId":"${ORG}","port":"27017","raw":${RAW_PLAIN}}`,
    raw: RAW_PLAIN,
  },
  {
    name: 'null fields and an unknown field with a big integer',
    id: '6a793f0000000000000000a3',
    source: `{"apiKeyId":null,"clusterName":null,"created":"2026-08-10T02:58:00Z","currentValue":null,"eventTypeName":"JOINED_ORG","futureField":{"count":18446744073709551615,"ratio":0.10},"id":"6a793f0000000000000000a3","isGlobalAdmin":null,"links":${ourLinks('6a793f0000000000000000a3')},"orgId":"${ORG}","userId":"6a793f0000000000000000d1","username":"\\u00e9l\\u00e8ve@example.com"}`,
  },
  {
    name: 'a raw of null is no raw',
    id: '6a793f0000000000000000a4',
    source: `{"created":"2026-08-10T02:57:00Z","eventTypeName":"ORG_CREATED","id":"6a793f0000000000000000a4","isGlobalAdmin":false,"links":${ourLinks('6a793f0000000000000000a4')},"orgId":"${ORG}"}`,
  },
];

/** The same record with raw:null and its keys out of order, pretty-printed: it is served compact and sorted. */
const SHUFFLED = `{
  "orgId": "${ORG}",
  "raw": null,
  "id": "6a793f0000000000000000a5",
  "eventTypeName": "ORG_RENAMED",
  "created": "2026-08-10T02:56:00Z",
  "currentValue": { "units": "RAW", "number": 2.50 }
}`;
const SHUFFLED_SERVED = `{"created":"2026-08-10T02:56:00Z","currentValue":{"units":"RAW","number":2.50},"eventTypeName":"ORG_RENAMED","id":"6a793f0000000000000000a5","links":${ourLinks('6a793f0000000000000000a5')},"orgId":"${ORG}"}`;

const CASES = [...RECORDED, ...EDGES];

/** What the API must answer for a case: the source with our link, raw only when asked. */
function served(c: Case, includeRaw: boolean): string {
  let text = c.source.replace(
    /"links":\[\{"href":"[^"]*","rel":"self"\}\]/,
    `"links":${ourLinks(c.id)}`,
  );
  if (!includeRaw && c.raw !== undefined) text = text.replace(`,"raw":${c.raw}`, '');
  return text;
}

function roundTrip(
  engine: string,
  open: () => Promise<{ store: EventStore; cleanup: () => Promise<void> }>,
) {
  describe(`verbatim import round trip (${engine})`, () => {
    let dir: string;
    let store: EventStore;
    let cleanup: () => Promise<void>;
    let handle: ApiHandler;
    let key: { publicKey: string; privateKey: string };
    let address = 0;

    async function get(url: string): Promise<{ status: number; body: string }> {
      const call = (headers: Record<string, string>) => {
        address += 1;
        return handle({
          method: 'GET',
          url,
          headers: { get: (name) => headers[name.toLowerCase()] ?? null },
          remoteAddress: `10.2.0.${address % 250}`,
        });
      };
      const unauthorized = await call({});
      const authorization = answerChallenge(
        unauthorized.headers.find(([n]) => n.toLowerCase() === 'www-authenticate')?.[1] ?? null,
        key,
        url,
      );
      const response = await call({ authorization });
      return { status: response.status, body: response.body };
    }

    before(async () => {
      setConfigForTesting({ EVENTS_VARIANT: 'hosted', PUBLIC_BASE_URL: BASE });
      dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-verbatim-'));
      ({ store, cleanup } = await open());
      await store.createOrg({ id: ORG, name: 'Recorded', created: 0 });
      const file = path.join(dir, 'events.ndjson');
      fs.writeFileSync(
        file,
        `${[...CASES.map((c) => c.source), compactJson(SHUFFLED)].join('\n')}\n`,
      );
      const report = await importEvents(store, file, { orgId: ORG });
      assert.deepEqual(report.issues, []);
      assert.equal(report.inserted, CASES.length + 1);
      const issued = await issueApiKey(store, {
        orgId: ORG,
        role: 'ORG_MEMBER',
        description: 'round trip',
        realm: getConfig().DIGEST_REALM,
      });
      key = { publicKey: issued.record.publicKey, privateKey: issued.privateKey };
      handle = createApiHandler({ store: () => Promise.resolve(store) });
    });

    after(async () => {
      await cleanup();
      fs.rmSync(dir, { recursive: true, force: true });
    });

    for (const includeRaw of [false, true]) {
      test(`get serves every event byte for byte (includeRaw=${includeRaw})`, async () => {
        for (const c of CASES) {
          const { status, body } = await get(
            `${P}/orgs/${ORG}/events/${c.id}?includeRaw=${includeRaw}`,
          );
          assert.equal(status, 200, c.name);
          assert.equal(body, served(c, includeRaw), c.name);
        }
      });

      test(`the list serves every event byte for byte, newest first (includeRaw=${includeRaw})`, async () => {
        const { status, body } = await get(
          `${P}/orgs/${ORG}/events?itemsPerPage=500&includeRaw=${includeRaw}`,
        );
        assert.equal(status, 200);
        const newestFirst = [RECORDED[1]!, RECORDED[0]!, ...EDGES];
        const results = [...newestFirst.map((c) => served(c, includeRaw)), SHUFFLED_SERVED].join(
          ',',
        );
        assert.ok(
          body.includes(`"results":[${results}],"totalCount":${CASES.length + 1}}`),
          `list body:\n${body}`,
        );
      });
    }

    test('pretty=true re-indents without touching a byte of any value', async () => {
      const { body } = await get(
        `${P}/orgs/${ORG}/events/${EDGES[0]!.id}?includeRaw=true&pretty=true`,
      );
      assert.match(body, /\n {2}"alertConfigId": /);
      assert.match(body, /"cid": 9007199254740993,/);
      assert.equal(compactJson(body), served(EDGES[0]!, true));
    });

    test('a record with its keys out of order is served with sorted keys and its values as written', async () => {
      const { body } = await get(
        `${P}/orgs/${ORG}/events/6a793f0000000000000000a5?includeRaw=true`,
      );
      assert.equal(body, SHUFFLED_SERVED);
    });
  });
}

roundTrip('SQLite', async () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-verbatim-db-'));
  const store = await openStore(path.join(dir, 'store.db'));
  return {
    store,
    cleanup: async () => {
      await store.close();
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
});

roundTrip('PostgreSQL', async () => {
  const database = await createTestDatabase();
  const store = await PostgresStore.open(database.url);
  return {
    store,
    cleanup: async () => {
      await store.close();
      await database.drop();
    },
  };
});
