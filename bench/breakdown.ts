/**
 * `npm run bench:breakdown`: where an API request's time goes, in process, no
 * HTTP: the store query (with and without the count, first and deep pages),
 * the whole handler with session-cookie auth (query + serialization), and the
 * whole handler with Digest (adds nonce and HA1 checks). Subtracting these from
 * the HTTP figures of `npm run bench` leaves transport and framework.
 *
 *   npm run bench:breakdown -- [--database file:bench/data/api-1000000.db]
 */
import { parseArgs } from 'node:util';
import { issueApiKey } from '@/lib/auth/api-keys';
import { loadServerSecret, deriveKey } from '@/lib/auth/secrets';
import { sealSession, SESSION_COOKIE } from '@/lib/auth/session';
import { createApiHandler } from '@/lib/api/handler';
import { getConfig } from '@/lib/config';
import { openStore } from '@/lib/store';
import { authorizationHeader } from '@/tests/helpers/digest-client';

const { values: args } = parseArgs({
  options: {
    database: { type: 'string', default: 'file:bench/data/api-1000000.db' },
    runs: { type: 'string', default: '300' },
  },
});
const RUNS = Number(args.runs);

async function time(name: string, fn: () => Promise<unknown>) {
  for (let i = 0; i < 30; i++) await fn();
  const samples: number[] = [];
  for (let i = 0; i < RUNS; i++) {
    const start = performance.now();
    await fn();
    samples.push(performance.now() - start);
  }
  samples.sort((a, b) => a - b);
  const at = (p: number) => samples[Math.min(samples.length - 1, Math.floor(p * samples.length))]!;
  console.log(
    `| ${name.padEnd(46)} | ${at(0.5).toFixed(3).padStart(7)} | ${at(0.95).toFixed(3).padStart(7)} |`,
  );
}

async function main() {
  const store = await openStore(args.database);
  const [org] = await store.listOrgs();
  if (!org) throw new Error(`No organization in ${args.database}: run npm run bench first`);
  const total = await store.countEvents({ orgId: org.id });
  const deep = Math.floor(total * 0.9);
  const realm = getConfig().DIGEST_REALM;
  const { record, privateKey } = await issueApiKey(store, {
    orgId: org.id,
    role: 'ORG_MEMBER',
    description: 'breakdown',
    realm,
  });
  const cookie = sealSession(
    deriveKey(await loadServerSecret(store), 'session'),
    {
      apiKeyId: record.id,
      publicKey: record.publicKey,
    },
    3600,
  );
  const handler = createApiHandler({ store: () => Promise.resolve(store) });
  const path = `/api/public/v1.0/orgs/${org.id}/events`;
  const request = (url: string, headers: Record<string, string>) => ({
    method: 'GET',
    url,
    headers: { get: (name: string) => headers[name.toLowerCase()] ?? null },
    remoteAddress: '127.0.0.1',
  });

  // A Digest client's state: one challenge, then a growing nc.
  const challenge = await handler(request(path, {}));
  const header = challenge.headers.find(([n]) => n === 'WWW-Authenticate')![1];
  const nonce = /nonce="([^"]+)"/.exec(header)![1]!;
  let nc = 0;
  const digestHeader = (url: string) =>
    authorizationHeader({
      username: record.publicKey,
      password: privateKey,
      realm,
      nonce,
      method: 'GET',
      uri: url,
      nc: ++nc,
    });

  console.log(`${total.toLocaleString()} events in ${args.database}\n`);
  console.log(`| ${'step (in process)'.padEnd(46)} | p50 ms  | p95 ms  |`);
  console.log(`|${'-'.repeat(48)}|---------|---------|`);
  const page = { orgId: org.id, limit: 100, includeRaw: false };
  await time('store: count only', () => store.countEvents({ orgId: org.id }));
  await time('store: first page of 100, no count', () =>
    store.listEvents({ ...page, offset: 0, includeCount: false }),
  );
  await time('store: first page of 100 + count', () =>
    store.listEvents({ ...page, offset: 0, includeCount: true }),
  );
  await time('store: 90% deep page + count', () =>
    store.listEvents({ ...page, offset: deep, includeCount: true }),
  );
  await time('store: get by id', () => store.getEvent(org.id, record.id, false));
  const withCookie = { cookie: `${SESSION_COOKIE}=${cookie}` };
  await time('handler, session auth: first page', () => handler(request(path, withCookie)));
  await time('handler, session auth: first page, no count', () =>
    handler(request(`${path}?includeCount=false`, withCookie)),
  );
  await time('handler, session auth: first page, pretty', () =>
    handler(request(`${path}?pretty=true`, withCookie)),
  );
  await time('handler, Digest auth: first page', () =>
    handler(request(path, { authorization: digestHeader(path) })),
  );
  const deepUrl = `${path}?pageNum=${Math.floor(deep / 100)}`;
  await time('handler, Digest auth: 90% deep page', () =>
    handler(request(deepUrl, { authorization: digestHeader(deepUrl) })),
  );
  await store.setApiKeyDisabled(record.publicKey, true);
  await store.close();
}

main().catch((error: unknown) => {
  console.error(error instanceof Error ? error.message : error);
  process.exit(1);
});
