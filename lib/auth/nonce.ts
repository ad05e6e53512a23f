import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';

/**
 * Stateless Digest nonces: base64url(issued-at milliseconds (6 bytes) ||
 * random (6 bytes) || HMAC-SHA256 of those 12 bytes truncated to 12 bytes),
 * 32 characters like the real service's. Any instance holding the same key
 * can check a nonce without shared storage; the timestamp bounds its
 * lifetime, and to the millisecond, so shared state that lost its memory at
 * an instant can tell the nonces issued before it from those issued after.
 */

const TIME_BYTES = 6;
const RANDOM_BYTES = 6;
const MAC_BYTES = 12;
const NONCE_BYTES = TIME_BYTES + RANDOM_BYTES + MAC_BYTES;
/** Instances' clocks may differ a little; a nonce from further ahead is forged. */
const MAX_CLOCK_SKEW_SECONDS = 60;

function mac(key: Buffer, body: Buffer): Buffer {
  return createHmac('sha256', key).update(body).digest().subarray(0, MAC_BYTES);
}

export function issueNonce(key: Buffer, now: number = Date.now()): string {
  const body = Buffer.alloc(TIME_BYTES + RANDOM_BYTES);
  body.writeUIntBE(Math.max(0, Math.floor(now)), 0, TIME_BYTES);
  randomBytes(RANDOM_BYTES).copy(body, TIME_BYTES);
  return Buffer.concat([body, mac(key, body)]).toString('base64url');
}

export type NonceCheck =
  | { status: 'valid'; issuedAt: number }
  | { status: 'stale'; issuedAt: number }
  | { status: 'invalid' };

/**
 * Whether we issued this nonce (MAC, constant-time) and whether it is still
 * fresh. A stale nonce with an otherwise-correct response earns a new
 * challenge with stale=true, so clients retry without asking for a password.
 */
export function checkNonce(
  key: Buffer,
  nonce: string,
  ttlSeconds: number,
  now: number = Date.now(),
): NonceCheck {
  if (nonce.length !== Math.ceil((NONCE_BYTES * 4) / 3) || !/^[A-Za-z0-9_-]+$/.test(nonce)) {
    return { status: 'invalid' };
  }
  const bytes = Buffer.from(nonce, 'base64url');
  if (bytes.length !== NONCE_BYTES) return { status: 'invalid' };
  const body = bytes.subarray(0, TIME_BYTES + RANDOM_BYTES);
  if (!timingSafeEqual(mac(key, body), bytes.subarray(TIME_BYTES + RANDOM_BYTES))) {
    return { status: 'invalid' };
  }
  const issuedAt = body.readUIntBE(0, TIME_BYTES);
  const age = (now - issuedAt) / 1000;
  if (age < -MAX_CLOCK_SKEW_SECONDS) return { status: 'invalid' };
  return age > ttlSeconds ? { status: 'stale', issuedAt } : { status: 'valid', issuedAt };
}

/**
 * Highest nonce count seen per nonce, so a captured request cannot be
 * replayed: a (nonce, nc) pair is accepted once, and a nonce's nc must grow.
 * Clients differ on where nc starts (urllib keeps one counter per process),
 * so the first nc seen for a nonce may be any value.
 *
 * Memory is bounded. Entries leave when their nonce expires; when the table
 * is full the oldest entry is evicted and the eviction watermark rises to its
 * nonce's issue time. A nonce issued at or before the watermark that is not
 * in the table may have been evicted, so it is answered as stale (the client
 * transparently fetches a new nonce) instead of trusting its nc.
 */
export class NonceCounterTable {
  private readonly entries = new Map<string, { nc: number; issuedAt: number }>();
  private evictedIssuedBefore = -Infinity;

  /**
   * `knownSince`: a nonce issued before this instant is answered 'unknown'
   * (stale). The process's table knows nothing from before the process
   * started: a nonce issued by this instance before a restart has a history
   * it never saw, and a request captured then was accepted once more after it.
   */
  constructor(
    private readonly maxEntries = 100_000,
    private readonly knownSince = -Infinity,
  ) {}

  get size(): number {
    return this.entries.size;
  }

  /** 'ok' records nc; 'replay' when nc did not grow; 'unknown' when it may have been evicted. */
  accept(
    nonce: string,
    issuedAt: number,
    nc: number,
    ttlSeconds: number,
    now: number = Date.now(),
  ): 'ok' | 'replay' | 'unknown' {
    if (issuedAt < this.knownSince) return 'unknown';
    const entry = this.entries.get(nonce);
    if (entry) {
      if (nc <= entry.nc) return 'replay';
      entry.nc = nc;
      return 'ok';
    }
    if (issuedAt <= this.evictedIssuedBefore) return 'unknown';
    this.sweep(ttlSeconds, now);
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.entries().next().value;
      if (oldest) {
        this.entries.delete(oldest[0]);
        this.evictedIssuedBefore = Math.max(this.evictedIssuedBefore, oldest[1].issuedAt);
        if (issuedAt <= this.evictedIssuedBefore) return 'unknown';
      }
    }
    this.entries.set(nonce, { nc, issuedAt });
    return 'ok';
  }

  /**
   * Drops entries whose nonce has expired (expired nonces are refused before
   * their count matters). Entries are in first-use order, which roughly
   * follows issue order, so the sweep stops at the first live one.
   */
  private sweep(ttlSeconds: number, now: number): void {
    const cutoff = now - ttlSeconds * 1000;
    for (const [nonce, entry] of this.entries) {
      if (entry.issuedAt >= cutoff) break;
      this.entries.delete(nonce);
    }
  }
}

// One table per process, on globalThis: the custom server and Next's bundled
// route handlers load separate copies of this module but must share replays.
const TABLE_KEY = Symbol.for('org-events.digest-nonce-counters');
type TableHolder = { [TABLE_KEY]?: NonceCounterTable };

export function getNonceCounterTable(): NonceCounterTable {
  const holder = globalThis as TableHolder;
  // Every nonce this process issued is from after its start (whichever thread made the table).
  holder[TABLE_KEY] ??= new NonceCounterTable(
    undefined,
    Math.floor(Date.now() - process.uptime() * 1000),
  );
  return holder[TABLE_KEY];
}
