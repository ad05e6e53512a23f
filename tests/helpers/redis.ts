import { execFileSync } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import net from 'node:net';
import type { Redis } from 'ioredis';

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
      if (reply.includes('\r\n')) done(reply.startsWith('+PONG'));
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

/** Deletes every key under `prefix` (SCAN, never KEYS). */
export async function deleteKeys(client: Redis, prefix: string): Promise<void> {
  let cursor = '0';
  do {
    const [next, keys] = await client.scan(cursor, 'MATCH', `${prefix}*`, 'COUNT', 500);
    if (keys.length > 0) await client.del(...keys);
    cursor = next;
  } while (cursor !== '0');
}
