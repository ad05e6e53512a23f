/**
 * Throttles failed sign-in attempts so a private key cannot be guessed
 * online. Counters are kept per key (`key:<publicKey>`) and per client
 * address (`ip:<address>`): too many failures within the window block that
 * key or address, for a period that doubles with each repeat offence.
 *
 * While blocked, requests are refused before their credentials are checked,
 * so a blocked guesser learns nothing, not even from a correct guess. The
 * price: whoever knows a public key can lock it out for a while; the block
 * is bounded (15 minutes at most) and the per-address counter stops a single
 * client from doing that to many keys cheaply.
 *
 * Used by the API's Digest authentication and the dashboard's sign-in.
 */

export type ThrottleDecision = { blocked: boolean; retryAfterSeconds: number };

const NOT_BLOCKED: ThrottleDecision = { blocked: false, retryAfterSeconds: 0 };

/** The decision for the latest `blockedUntil` (ms) of a request's keys: blocked while it is ahead. */
export function blockedUntilDecision(until: number, now: number): ThrottleDecision {
  return until > now
    ? { blocked: true, retryAfterSeconds: Math.max(1, Math.ceil((until - now) / 1000)) }
    : NOT_BLOCKED;
}

export interface AuthThrottle {
  check(keys: string[], now?: number): ThrottleDecision;
  /**
   * Counts a failed attempt against every key, unless one of them is already
   * blocked: then nothing is counted and the decision says blocked, so the
   * caller answers as throttled. Attempts checked at once all pass `check`
   * before any of their failures is recorded; this is where those beyond the
   * limit are stopped from learning their outcome.
   */
  recordFailure(keys: string[], now?: number): ThrottleDecision;
  /**
   * Forgets the failure count (not an active block or the backoff level) of
   * keys the caller just proved, e.g. after a successful sign-in. Pass only
   * identities the caller proved: clearing `ip:` on one success would let a
   * client holding one valid key refill its guessing budget at will.
   */
  recordSuccess(keys: string[]): void;
}

export type ThrottlePolicy = {
  /** Failures allowed per window before a block, by key prefix ("key", "ip"). */
  limits: Record<string, number>;
  /** Limit for keys whose prefix is not listed. */
  defaultLimit: number;
  windowMs: number;
  firstBlockMs: number;
  maxBlockMs: number;
  /** Most counters kept; the least recently touched unblocked one goes first. */
  maxEntries: number;
};

export const DEFAULT_THROTTLE_POLICY: ThrottlePolicy = {
  limits: { key: 10, ip: 30 },
  defaultLimit: 10,
  windowMs: 5 * 60_000,
  firstBlockMs: 60_000,
  maxBlockMs: 15 * 60_000,
  maxEntries: 20_000,
};

type Entry = {
  failures: number;
  windowStart: number;
  blockedUntil: number;
  /** Blocks so far; each doubles the next one. Forgotten after a quiet period. */
  strikes: number;
  lastFailure: number;
};

export class FailureThrottle implements AuthThrottle {
  private readonly entries = new Map<string, Entry>();

  constructor(private readonly policy: ThrottlePolicy = DEFAULT_THROTTLE_POLICY) {}

  get size(): number {
    return this.entries.size;
  }

  check(keys: string[], now: number = Date.now()): ThrottleDecision {
    let until = 0;
    for (const key of keys) {
      const entry = this.entries.get(key);
      if (entry && entry.blockedUntil > now) until = Math.max(until, entry.blockedUntil);
    }
    return blockedUntilDecision(until, now);
  }

  recordFailure(keys: string[], now: number = Date.now()): ThrottleDecision {
    const already = this.check(keys, now);
    if (already.blocked) return already;
    const { windowMs, firstBlockMs, maxBlockMs } = this.policy;
    for (const key of keys) {
      let entry = this.entries.get(key);
      if (entry) {
        this.entries.delete(key); // re-inserted below: Map order = least recently touched first
      } else {
        entry = { failures: 0, windowStart: now, blockedUntil: 0, strikes: 0, lastFailure: now };
      }
      if (now - entry.lastFailure > maxBlockMs + windowMs) entry.strikes = 0;
      if (now - entry.windowStart > windowMs) {
        entry.windowStart = now;
        entry.failures = 0;
      }
      entry.failures += 1;
      entry.lastFailure = now;
      if (entry.failures >= this.limitFor(key)) {
        const duration = Math.min(maxBlockMs, firstBlockMs * 2 ** entry.strikes);
        entry.blockedUntil = Math.max(entry.blockedUntil, now + duration);
        entry.strikes += 1;
        entry.failures = 0;
        entry.windowStart = now;
      }
      this.entries.set(key, entry);
    }
    this.evict(now);
    return NOT_BLOCKED;
  }

  recordSuccess(keys: string[]): void {
    for (const key of keys) {
      const entry = this.entries.get(key);
      if (!entry) continue;
      entry.failures = 0;
      if (entry.blockedUntil === 0 && entry.strikes === 0) this.entries.delete(key);
    }
  }

  private limitFor(key: string): number {
    const prefix = key.slice(0, key.indexOf(':'));
    return this.policy.limits[prefix] ?? this.policy.defaultLimit;
  }

  /** Keeps memory bounded: drops idle counters first, then the oldest unblocked ones. */
  private evict(now: number): void {
    if (this.entries.size <= this.policy.maxEntries) return;
    const idleAfter = this.policy.windowMs + this.policy.maxBlockMs;
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.policy.maxEntries) return;
      if (entry.blockedUntil <= now && now - entry.lastFailure > idleAfter) {
        this.entries.delete(key);
      }
    }
    for (const [key, entry] of this.entries) {
      if (this.entries.size <= this.policy.maxEntries) return;
      if (entry.blockedUntil <= now) this.entries.delete(key);
    }
    // Everything left is blocked: keep the newest blocks, drop the oldest.
    for (const key of this.entries.keys()) {
      if (this.entries.size <= this.policy.maxEntries) return;
      this.entries.delete(key);
    }
  }
}

// One throttle per process, on globalThis: the custom server and Next's
// bundled route handlers load separate copies of this module.
const THROTTLE_KEY = Symbol.for('org-events.auth-throttle');
type ThrottleHolder = { [THROTTLE_KEY]?: AuthThrottle };

export function getAuthThrottle(): AuthThrottle {
  const holder = globalThis as ThrottleHolder;
  holder[THROTTLE_KEY] ??= new FailureThrottle();
  return holder[THROTTLE_KEY];
}

/** Longer than any public key: no key can have it (limits.ts: 8 letters; sign-in refuses past this). */
export const MAX_THROTTLED_PUBLIC_KEY = 128;

/**
 * The throttle keys of an attempt: its key's and its address's. A name no
 * key could have (past MAX_THROTTLED_PUBLIC_KEY) gets no counter of its own:
 * its failures count for the address alone. Failed Digest requests with
 * 60 KB usernames, each a counter named by it, held 100 MB after 1,200 of
 * them (up to ~1.3 GB at the table's 20,000 entries; the same in Redis).
 */
export function attemptThrottleKeys(publicKey: string, address: string | undefined): string[] {
  const addressKey = addressThrottleKey(address);
  return publicKey.length > MAX_THROTTLED_PUBLIC_KEY
    ? [addressKey]
    : [keyThrottleKey(publicKey), addressKey];
}

/** The throttle key of an API key, by its public key. */
export function keyThrottleKey(publicKey: string): string {
  return `key:${publicKey}`;
}

/**
 * The throttle key of a client address. IPv4-mapped IPv6 is unwrapped, and
 * IPv6 is grouped by /64, the block one subscriber usually holds (otherwise
 * every address of it would get its own budget).
 */
export function addressThrottleKey(address: string | undefined): string {
  if (!address) return 'ip:unknown';
  let value = address.trim().toLowerCase();
  if (value.startsWith('[') && value.endsWith(']')) value = value.slice(1, -1);
  const zone = value.indexOf('%');
  if (zone !== -1) value = value.slice(0, zone);
  const mapped = /^::ffff:(\d{1,3}(?:\.\d{1,3}){3})$/.exec(value);
  if (mapped) return `ip:${mapped[1]}`;
  if (!value.includes(':')) return `ip:${value}`;
  const groups = expandIpv6(value);
  return groups ? `ip:${groups.slice(0, 4).join(':')}::/64` : `ip:${value}`;
}

function expandIpv6(value: string): string[] | null {
  const halves = value.split('::');
  if (halves.length > 2) return null;
  const head = halves[0] ? halves[0].split(':') : [];
  const tail = halves.length === 2 && halves[1] ? halves[1].split(':') : [];
  const missing = 8 - head.length - tail.length;
  if (halves.length === 1 ? missing !== 0 : missing < 0) return null;
  const groups = [...head, ...Array<string>(Math.max(0, missing)).fill('0'), ...tail];
  if (!groups.every((g) => /^[0-9a-f]{1,4}$/.test(g))) return null;
  return groups.map((g) => g.replace(/^0+(?=.)/, ''));
}
