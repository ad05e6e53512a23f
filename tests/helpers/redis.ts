import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { Redis } from 'ioredis';
import { createRedisAuthState, type RedisAuthState } from '@/lib/auth/redis-state';
import { freePort } from './free-port';

/**
 * The real Redis the tests share: 127.0.0.1:6379, started here
 * (`redis-server --daemonize yes`) when it is not running, never skipped.
 * Every test run uses its own key prefix and deletes its keys afterwards.
 */

export const REDIS_URL = 'redis://127.0.0.1:6379';
/** Nothing listens here: what an instance sees while Redis is down. */
export const CLOSED_REDIS_URL = 'redis://127.0.0.1:6390';

function ping(port: number, timeoutMs = 1_000): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect({ host: '127.0.0.1', port });
    let reply = '';
    const done = (ok: boolean) => {
      clearTimeout(timer);
      socket.destroy();
      resolve(ok);
    };
    const timer = setTimeout(() => done(false), timeoutMs);
    socket.on('connect', () => socket.write('PING\r\n'));
    socket.on('data', (chunk) => {
      reply += chunk.toString('utf8');
      // A Redis with a password answers, refusing the unauthenticated PING.
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG') || reply.startsWith('-NOAUTH'));
    });
    socket.on('error', () => done(false));
  });
}

/** Makes sure Redis answers on 127.0.0.1:6379, starting it if needed; returns its URL. */
export async function ensureRedis(): Promise<string> {
  if (await ping(6379)) return REDIS_URL;
  execFileSync('redis-server', ['--port', '6379', '--bind', '127.0.0.1', '--daemonize', 'yes']);
  for (let i = 0; i < 50; i++) {
    if (await ping(6379)) return REDIS_URL;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  throw new Error('redis-server was started but does not answer on 127.0.0.1:6379');
}

/** A key prefix no other test run shares. */
export function uniqueKeyPrefix(label: string): string {
  return `org-events-test:${label}:${randomBytes(6).toString('hex')}:`;
}

/**
 * Two instances' authentication states in the shared Redis under one fresh
 * key prefix, as two servers of one deployment hold them; `close` deletes
 * the prefix's keys and disconnects both.
 */
export async function twoInstances(label: string): Promise<{
  a: RedisAuthState;
  b: RedisAuthState;
  prefix: string;
  close: () => Promise<void>;
}> {
  const url = await ensureRedis();
  const prefix = uniqueKeyPrefix(label);
  const a = createRedisAuthState({ url, keyPrefix: prefix });
  const b = createRedisAuthState({ url, keyPrefix: prefix });
  // Redis's memory of this prefix begins now; what the tests issue comes after.
  await a.memorySince();
  return {
    a,
    b,
    prefix,
    close: async () => {
      await deleteKeys(a.client, prefix);
      await Promise.all([a.close(), b.close()]);
    },
  };
}

/** Deletes every key under `prefix` (SCAN, never KEYS). */
export async function deleteKeys(client: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length > 0) await client.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}

/**
 * A redis-server of the test's own, on a free port, that the test may stop
 * and start again (the shared one on 6379 must never go down: other tests
 * use it). No persistence: like a crashed Redis without RDB or AOF, it comes
 * back empty.
 */
export type PrivateRedis = {
  port: number;
  url: string;
  /** Kills the server (SIGKILL, an outage as abrupt as a crash) and waits for it to exit. */
  stop(): Promise<void>;
  /** Starts it again on the same port and waits until it answers PING. */
  start(): Promise<void>;
  /** Stops it for good. */
  close(): Promise<void>;
};

/** `args`: more redis-server options, such as `['--requirepass', PASSWORD]`. */
export async function startPrivateRedis(args: string[] = []): Promise<PrivateRedis> {
  const port = await freePort();
  let child: ChildProcess | undefined;
  let output = '';

  const killOnExit = () => child?.kill('SIGKILL');
  process.once('exit', killOnExit);

  const start = async () => {
    const started = spawn(
      'redis-server',
      ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no', ...args],
      { stdio: ['ignore', 'pipe', 'pipe'] },
    );
    child = started;
    started.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    started.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const failed = new Promise<never>((_, reject) => {
      started.once('error', (error: NodeJS.ErrnoException) =>
        reject(
          error.code === 'ENOENT'
            ? new Error('redis-server is not installed (not on PATH): this test needs it')
            : error,
        ),
      );
      started.once('exit', (code) =>
        reject(new Error(`redis-server on port ${port} exited (${code}):\n${output}`)),
      );
    });
    const answering = (async () => {
      for (let i = 0; i < 100; i++) {
        if (await ping(port, 200)) return;
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
      throw new Error(`redis-server on port ${port} does not answer PING:\n${output}`);
    })();
    failed.catch(() => {}); // once it answers, its exit (stop()) is expected
    await Promise.race([answering, failed]);
  };

  const stop = async () => {
    const running = child;
    child = undefined;
    if (!running || running.exitCode !== null || running.signalCode !== null) return;
    const exited = new Promise((resolve) => running.once('exit', resolve));
    running.kill('SIGKILL');
    await exited;
  };

  await start();
  return {
    port,
    url: `redis://127.0.0.1:${port}`,
    stop,
    start,
    close: async () => {
      await stop();
      process.off('exit', killOnExit);
    },
  };
}
