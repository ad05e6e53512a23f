/**
 * Records for the byte-exact round trips of issue 11 ("must show" 2), shared
 * by the import test (tests/api/verbatim-import.test.ts) and the mirror test
 * (tests/mirror/mirror-verbatim.test.ts): the recorded live responses of
 * ../shared/reference/atlas-events-api.md (SNAP-ORG; the second one's elided
 * values filled from the first) and edge cases the real service may send.
 */

export const ORG = 'a0123456789abcdef012345a';
/** The base URL the records' own links were written with. */
export const BASE = 'http://localhost:8080';
export const P = '/api/public/v1.0';
/** The `links` a server at `base` serves for event `id` of ORG. */
export const ourLinks = (id: string, base = BASE) =>
  `[{"href":"${base}${P}/orgs/${ORG}/events/${id}","rel":"self"}]`;

export type Case = {
  name: string;
  id: string;
  /** The record as the file holds it. */
  source: string;
  /** The `raw` member exactly as written in `source`, if any: absent from answers without includeRaw. */
  raw?: string;
};

export const RECORDED: Case[] = [
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

export const EDGES: Case[] = [
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
export const SHUFFLED = `{
  "orgId": "${ORG}",
  "raw": null,
  "id": "6a793f0000000000000000a5",
  "eventTypeName": "ORG_RENAMED",
  "created": "2026-08-10T02:56:00Z",
  "currentValue": { "units": "RAW", "number": 2.50 }
}`;
/** SHUFFLED as a server at `base` serves it. */
export const shuffledServed = (base = BASE) =>
  `{"created":"2026-08-10T02:56:00Z","currentValue":{"units":"RAW","number":2.50},"eventTypeName":"ORG_RENAMED","id":"6a793f0000000000000000a5","links":${ourLinks('6a793f0000000000000000a5', base)},"orgId":"${ORG}"}`;

export const CASES = [...RECORDED, ...EDGES];

/** What a server at `base` must answer for a case: the source with its link, raw only when asked. */
export function served(c: Case, includeRaw: boolean, base = BASE): string {
  let text = c.source.replace(
    /"links":\[\{"href":"[^"]*","rel":"self"\}\]/,
    `"links":${ourLinks(c.id, base)}`,
  );
  if (!includeRaw && c.raw !== undefined) text = text.replace(`,"raw":${c.raw}`, '');
  return text;
}
