import http from 'node:http';
import { authorizationHeader, type Challenge, parseChallenge } from '@/tests/helpers/digest-client';

/**
 * A small closed-loop HTTP load generator that speaks Digest the way real
 * clients do: each virtual user answers the first challenge, then reuses the
 * nonce with a growing nc (one Authorization header per request, never
 * replayed), and re-authenticates when the server says stale=true.
 */

export type Credentials = { username: string; password: string };

export type LoadResult = {
  requests: number;
  /** Answers other than 200. */
  errors: number;
  /** Every recorded answer's status, counted (e.g. { 200: 9950, 503: 50 }). */
  statuses: Record<number, number>;
  challenges: number;
  durationMs: number;
  rps: number;
  p50: number;
  p99: number;
  max: number;
};

class DigestSession {
  private challenge: Challenge | undefined;
  private nc = 0;
  challenges = 0;

  constructor(private readonly credentials: Credentials) {}

  authorization(method: string, uri: string): string | undefined {
    const c = this.challenge;
    if (!c) return undefined;
    this.nc += 1;
    return authorizationHeader({
      username: this.credentials.username,
      password: this.credentials.password,
      realm: c.realm,
      nonce: c.nonce,
      method,
      uri,
      nc: this.nc,
    });
  }

  accept(header: string): void {
    this.challenge = parseChallenge(header);
    this.nc = 0;
    this.challenges += 1;
  }
}

function send(
  agent: http.Agent,
  base: URL,
  path: string,
  authorization: string | undefined,
): Promise<{ status: number; wwwAuthenticate?: string; bytes: number }> {
  return new Promise((resolve, reject) => {
    const req = http.request(
      {
        agent,
        host: base.hostname,
        port: base.port,
        path,
        method: 'GET',
        headers: {
          Accept: 'application/json',
          ...(authorization ? { Authorization: authorization } : {}),
        },
      },
      (res) => {
        let bytes = 0;
        res.on('data', (chunk: Buffer) => (bytes += chunk.length));
        res.on('end', () =>
          resolve({
            status: res.statusCode ?? 0,
            wwwAuthenticate: res.headers['www-authenticate'],
            bytes,
          }),
        );
        res.on('error', reject);
      },
    );
    req.on('error', reject);
    req.end();
  });
}

/** One authenticated GET, answering a challenge when needed. */
async function authedGet(
  session: DigestSession,
  agent: http.Agent,
  base: URL,
  path: string,
): Promise<number> {
  for (let attempt = 0; attempt < 3; attempt++) {
    const res = await send(agent, base, path, session.authorization('GET', path));
    if (res.status === 401 && res.wwwAuthenticate) {
      session.accept(res.wwwAuthenticate);
      continue;
    }
    return res.status;
  }
  return 401;
}

function percentile(sorted: number[], p: number): number {
  if (sorted.length === 0) return 0;
  return sorted[Math.min(sorted.length - 1, Math.floor((p / 100) * sorted.length))]!;
}

/**
 * Runs `concurrency` virtual users against `paths` (round robin) for
 * `durationMs` (bounded also by `maxRequests`), after a short warm-up.
 */
export async function runLoad(options: {
  baseUrl: string;
  paths: readonly string[];
  credentials: Credentials;
  concurrency: number;
  durationMs: number;
  warmupMs?: number;
  maxRequests?: number;
}): Promise<LoadResult> {
  const base = new URL(options.baseUrl);
  const agent = new http.Agent({ keepAlive: true, maxSockets: options.concurrency });
  const latencies: number[] = [];
  let errors = 0;
  const statuses: Record<number, number> = {};
  let next = 0;
  const sessions = Array.from(
    { length: options.concurrency },
    () => new DigestSession(options.credentials),
  );

  const loop = async (session: DigestSession, until: number, record: boolean) => {
    while (performance.now() < until) {
      if (record && options.maxRequests !== undefined && latencies.length >= options.maxRequests)
        return;
      const path = options.paths[next++ % options.paths.length]!;
      const start = performance.now();
      const status = await authedGet(session, agent, base, path);
      const elapsed = performance.now() - start;
      if (!record) continue;
      if (status !== 200) errors += 1;
      statuses[status] = (statuses[status] ?? 0) + 1;
      latencies.push(elapsed);
    }
  };

  try {
    const warmupEnd = performance.now() + (options.warmupMs ?? 500);
    await Promise.all(sessions.map((s) => loop(s, warmupEnd, false)));
    const started = performance.now();
    const end = started + options.durationMs;
    await Promise.all(sessions.map((s) => loop(s, end, true)));
    const durationMs = performance.now() - started;
    latencies.sort((a, b) => a - b);
    return {
      requests: latencies.length,
      errors,
      statuses,
      challenges: sessions.reduce((sum, s) => sum + s.challenges, 0),
      durationMs,
      rps: (latencies.length / durationMs) * 1000,
      p50: percentile(latencies, 50),
      p99: percentile(latencies, 99),
      max: latencies[latencies.length - 1] ?? 0,
    };
  } finally {
    agent.destroy();
  }
}
