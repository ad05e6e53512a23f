import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { issueApiKey } from '@/lib/auth/api-keys';
import type { Variant } from '@/lib/config';
import { DASHBOARD_CLIENT_HEADER, DASHBOARD_CLIENT_VALUE } from '@/lib/domain/limits';
import { objectIdAt } from '@/lib/domain/object-id';
import { openStore } from '@/lib/store';
import type { NewEvent, OrgRole } from '@/lib/store/types';
import { send } from './digest-client';
import { generateEvents } from './test-events';
import { freePort } from './free-port';

/**
 * Starts the built app behind one of its two front doors on a fresh database
 * with two organizations, API keys and ~1,200 realistic events, and waits
 * until it answers. Needs `npm run build` first. Used by the API integration
 * tests and the Playwright suites.
 *
 * - 'npm start': `node --import tsx server.ts`, the custom server whose API
 *   requests skip Next (the fast path).
 * - 'next start': Next's own server, the API through the route handlers
 *   under app/api/public.
 */

export const ROOT = path.resolve(__dirname, '..', '..');
export const DEFAULT_REALM = 'MMS Public API';

export type TestKey = { publicKey: string; privateKey: string; apiKeyId: string };

export type FrontDoor = 'npm start' | 'next start';

export type TestServer = {
  door: FrontDoor;
  /** e.g. http://127.0.0.1:41234 */
  baseUrl: string;
  /** baseUrl + /api/public/v1.0 */
  apiUrl: string;
  databaseUrl: string;
  variant: Variant;
  realm: string;
  /** "Acme Corp": the org with the bulk of the events. */
  orgId: string;
  /** "Globex": a second org with a few events of its own. */
  otherOrgId: string;
  keys: {
    /** ORG_MEMBER in orgId; ORG_READ_ONLY (not a reader) in otherOrgId. */
    member: TestKey;
    /** ORG_READ_ONLY in orgId: authenticates, may not read events. */
    readOnly: TestKey;
    /** ORG_MEMBER in otherOrgId only. */
    otherOrg: TestKey;
    /** ORG_OWNER in both orgs. */
    owner: TestKey;
    /** ORG_MEMBER in orgId, disabled. */
    disabled: TestKey;
    /** ORG_MEMBER keys in orgId for tests that burn a key (throttling). */
    spare: TestKey[];
  };
  /** What was inserted, newest first (the API's order): the expectations of the tests. */
  events: { org: NewEvent[]; otherOrg: NewEvent[] };
  /** Everything the server printed so far. */
  output(): string;
  /** The server's JSON log lines so far (what it printed that parses as a JSON object). */
  logLines(): Record<string, unknown>[];
  /** The server process (node itself, for both doors). */
  pid: number;
  stop(): Promise<void>;
};

export type StartOptions = {
  /** Default 'npm start'. */
  door?: FrontDoor;
  variant?: Variant;
  /** An existing, empty database (e.g. from createTestDatabase()); default: a temp SQLite file. */
  databaseUrl?: string;
  /** Extra environment for the server (NONCE_TTL_SECONDS, TRUST_PROXY, PUBLIC_BASE_URL…). */
  env?: Record<string, string>;
  /** Events in orgId (default 1,200). */
  eventCount?: number;
  /**
   * Serve the database, keys and events of this running server instead of
   * seeding a new one (its variant and realm too): two front doors over the
   * same data give byte-identical answers. It must outlive this server.
   */
  shareDataWith?: TestServer;
  /**
   * Runs once the server process is spawned, beside the wait for its "ready
   * on" line, with what it has printed so far: a test acts while the server
   * starts (starts the database it is waiting for).
   */
  whileStarting?: (output: () => string) => Promise<void>;
  /** The port to listen on (default: any free one). */
  port?: number;
};

export const ORG_ID = objectIdAt(Date.UTC(2024, 2, 1), '00000000000000a1');
export const OTHER_ORG_ID = objectIdAt(Date.UTC(2024, 2, 1), '00000000000000b2');

async function seed(databaseUrl: string, realm: string, variant: Variant, eventCount: number) {
  const store = await openStore(databaseUrl);
  try {
    const created = Date.UTC(2024, 2, 1);
    await store.createOrg({ id: ORG_ID, name: 'Acme Corp', created });
    await store.createOrg({ id: OTHER_ORG_ID, name: 'Globex', created });

    const issue = async (description: string, grants: [string, OrgRole][]): Promise<TestKey> => {
      const [first, ...rest] = grants;
      const { record, privateKey } = await issueApiKey(store, {
        orgId: first![0],
        role: first![1],
        description,
        realm,
      });
      for (const [orgId, role] of rest) {
        await store.grantRole({ orgId, apiKeyId: record.id, role, created: record.created });
      }
      return { publicKey: record.publicKey, privateKey, apiKeyId: record.id };
    };
    const keys: TestServer['keys'] = {
      member: await issue('member', [
        [ORG_ID, 'ORG_MEMBER'],
        [OTHER_ORG_ID, 'ORG_READ_ONLY'],
      ]),
      readOnly: await issue('read only', [[ORG_ID, 'ORG_READ_ONLY']]),
      otherOrg: await issue('other org', [[OTHER_ORG_ID, 'ORG_MEMBER']]),
      owner: await issue('owner', [
        [ORG_ID, 'ORG_OWNER'],
        [OTHER_ORG_ID, 'ORG_OWNER'],
      ]),
      disabled: await issue('disabled', [[ORG_ID, 'ORG_MEMBER']]),
      spare: [],
    };
    await store.setApiKeyDisabled(keys.disabled.publicKey, true);
    for (let i = 0; i < 3; i++)
      keys.spare.push(await issue(`spare ${i}`, [[ORG_ID, 'ORG_MEMBER']]));

    const events = {
      org: generateEvents(ORG_ID, eventCount, { variant, seed: 7 }),
      otherOrg: generateEvents(OTHER_ORG_ID, 40, { variant, seed: 99, days: 10 }),
    };
    for (let i = 0; i < events.org.length; i += 500) {
      await store.insertEvents(ORG_ID, events.org.slice(i, i + 500));
    }
    await store.insertEvents(OTHER_ORG_ID, events.otherOrg);
    return { keys, events };
  } finally {
    await store.close();
  }
}

/** Lines of `output` that are JSON objects: the server's log (lib/ops/log.ts). */
export function parseLogLines(output: string): Record<string, unknown>[] {
  const lines: Record<string, unknown>[] = [];
  for (const line of output.split('\n')) {
    if (!line.startsWith('{')) continue;
    try {
      lines.push(JSON.parse(line) as Record<string, unknown>);
    } catch {
      // a line cut in two by a chunk boundary, or not ours
    }
  }
  return lines;
}

/** The base URL once the server says it is ready, per front door. */
const READY: Record<FrontDoor, (output: string) => string | undefined> = {
  'npm start': (output) => /ready on (https?:\/\/\S+)/.exec(output)?.[1],
  'next start': (output) =>
    /Ready in/.test(output) ? /Local:\s+(http:\/\/\S+)/.exec(output)?.[1] : undefined,
};

async function waitForReady(
  child: ChildProcess,
  output: () => string,
  ready: (output: string) => string | undefined,
): Promise<string> {
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      cleanup();
      reject(new Error(`server did not start within 90 s:\n${output()}`));
    }, 90_000);
    const onData = () => {
      const baseUrl = ready(output());
      if (baseUrl) {
        cleanup();
        resolve(baseUrl);
      }
    };
    const onExit = (code: number | null) => {
      cleanup();
      reject(new Error(`server exited (${code}) before it was ready:\n${output()}`));
    };
    const cleanup = () => {
      clearTimeout(timer);
      child.stdout?.off('data', onData);
      child.off('exit', onExit);
    };
    child.stdout?.on('data', onData);
    child.once('exit', onExit);
  });
}

export async function startTestServer(options: StartOptions = {}): Promise<TestServer> {
  if (!fs.existsSync(path.join(ROOT, '.next', 'BUILD_ID'))) {
    throw new Error(
      'No production build found (.next/BUILD_ID is missing): run `npm run build` before the integration tests.',
    );
  }
  const door = options.door ?? 'npm start';
  const shared = options.shareDataWith;
  const variant = shared?.variant ?? options.variant ?? 'hosted';
  const realm = shared?.realm ?? options.env?.DIGEST_REALM ?? DEFAULT_REALM;
  const tempDir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-server-'));
  const databaseUrl =
    shared?.databaseUrl ?? options.databaseUrl ?? `file:${path.join(tempDir, 'org-events.db')}`;
  const { keys, events } = shared
    ? { keys: shared.keys, events: shared.events }
    : await seed(databaseUrl, realm, variant, options.eventCount ?? 1200);

  // Not the runner's NODE_ENV=test (the server runs as production), nor
  // settings of the developer's shell that would change what the tests see.
  const {
    NODE_ENV: _nodeEnv,
    PUBLIC_BASE_URL: _base,
    TRUST_PROXY: _proxy,
    ...inherited
  } = process.env;
  const env: NodeJS.ProcessEnv = { ...inherited } as NodeJS.ProcessEnv;
  Object.assign(env, {
    EVENTS_VARIANT: variant,
    ...(shared && { DIGEST_REALM: realm }),
    ...options.env,
    DATABASE_URL: databaseUrl,
    PORT: String(options.port ?? 0), // 0: server.ts picks a free port and prints it
    HOSTNAME: '127.0.0.1',
    NEXT_TELEMETRY_DISABLED: '1',
  });
  const args =
    door === 'npm start'
      ? ['--import', 'tsx', 'server.ts']
      : [
          path.join('node_modules', 'next', 'dist', 'bin', 'next'),
          'start',
          ...['-p', String(options.port ?? (await freePort())), '-H', '127.0.0.1'],
        ];
  const child = spawn(process.execPath, args, {
    cwd: ROOT,
    env,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const killOnExit = () => child.kill('SIGKILL');
  process.once('exit', killOnExit);

  const stop = async () => {
    process.off('exit', killOnExit);
    if (child.exitCode === null && child.signalCode === null) {
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 10_000);
      await exited;
      clearTimeout(timer);
    }
    fs.rmSync(tempDir, { recursive: true, force: true });
  };

  try {
    const [ready] = await Promise.all([
      waitForReady(child, () => output, READY[door]),
      options.whileStarting?.(() => output),
    ]);
    const baseUrl = ready.replace(/\/$/, '');
    const apiUrl = `${baseUrl}/api/public/v1.0`;
    // Over HTTPS (TLS_CERT_FILE), the certificate is the test's own: the test checks.
    if (baseUrl.startsWith('http:')) {
      const response = await fetch(`${apiUrl}/openapi.json`);
      if (response.status !== 200) throw new Error(`server answers ${response.status}:\n${output}`);
    }
    return {
      door,
      baseUrl,
      apiUrl,
      databaseUrl,
      variant,
      realm,
      orgId: ORG_ID,
      otherOrgId: OTHER_ORG_ID,
      keys,
      events,
      output: () => output,
      logLines: () => parseLogLines(output),
      pid: child.pid!,
      stop,
    };
  } catch (error) {
    await stop();
    throw error;
  }
}

/**
 * Signs in through the dashboard's own route (POST /api/session, served by
 * Next) and returns the session cookie as `name=value`.
 */
export async function signInForCookie(
  server: Pick<TestServer, 'baseUrl'>,
  key: Pick<TestKey, 'publicKey' | 'privateKey'>,
): Promise<string> {
  const res = await fetch(`${server.baseUrl}/api/session`, {
    method: 'POST',
    headers: { 'Content-Type': 'application/json', Origin: server.baseUrl },
    body: JSON.stringify({ publicKey: key.publicKey, privateKey: key.privateKey }),
  });
  if (res.status !== 200) throw new Error(`sign-in on ${server.baseUrl}: ${res.status}`);
  const cookie = res.headers.getSetCookie().find((c) => c.startsWith('org_events_session='));
  if (!cookie) throw new Error(`sign-in on ${server.baseUrl} set no session cookie`);
  return cookie.split(';')[0]!;
}

/** Two events of the org read with a session cookie, as the dashboard reads them (the API). */
export function readWithSession(server: Pick<TestServer, 'baseUrl' | 'orgId'>, cookie: string) {
  return send(`${server.baseUrl}/api/public/v1.0/orgs/${server.orgId}/events?itemsPerPage=2`, {
    headers: { Cookie: cookie, [DASHBOARD_CLIENT_HEADER]: DASHBOARD_CLIENT_VALUE },
  });
}

/** GETs `path` until it answers `expected` or `ms` pass; the last status seen. */
export async function statusWithin(
  server: Pick<TestServer, 'baseUrl'>,
  path: string,
  expected: number,
  ms: number,
): Promise<number> {
  const deadline = Date.now() + ms;
  let status = 0;
  while (Date.now() < deadline) {
    status = (await fetch(`${server.baseUrl}${path}`, { redirect: 'manual' })).status;
    if (status === expected) return status;
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  return status;
}

/**
 * `npm start`'s server.ts run in the foreground to its exit, for a start
 * that must fail: its status, stdout and stderr. `env` is its whole
 * environment; past `timeout` it is killed (`killSignal`, SIGTERM unless
 * given), so a server that starts regardless fails the test.
 */
export function runServerToExit(
  env: NodeJS.ProcessEnv,
  { timeout = 60_000, killSignal }: { timeout?: number; killSignal?: NodeJS.Signals } = {},
) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'server.ts'], {
    cwd: ROOT,
    env,
    encoding: 'utf8',
    timeout,
    ...(killSignal ? { killSignal } : {}),
  });
}
