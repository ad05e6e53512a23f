import { getConfig } from '@/lib/config';
import { getNonceCounterTable } from './nonce';
import { createRedisAuthState } from './redis-state';
import { recordsActivity } from './session-activity';
import { getAuthThrottle, type ThrottleDecision } from './throttle';

/**
 * The state authentication keeps between requests, behind one interface so
 * that one instance keeps it in memory (as before) and many instances share
 * it in Redis (REDIS_URL): a request replayed against another instance, a
 * guess spread over instances, or a revoked session is refused everywhere.
 *
 * Every method may reject with ApiError SERVICE_UNAVAILABLE (503) when the
 * shared store cannot be reached: callers let it propagate, so nothing is
 * ever accepted on a guess (fail closed).
 */

/**
 * 'ok' recorded nc; 'replay' when nc did not grow; 'unknown' when its history
 * may be lost; 'blocked' when one of the throttle keys given is blocked
 * (nothing recorded).
 */
export type NonceCountVerdict = 'ok' | 'replay' | 'unknown' | 'blocked';

export interface NonceCounts {
  /**
   * Accepts a (nonce, nc) at most once and only with a growing nc, atomically
   * across every instance sharing this state. With `throttleKeys`, refuses
   * ('blocked') while one of them is blocked, in the same step: a correct
   * answer that passed the throttle's first check alongside guesses whose
   * failures then blocked the key is not accepted (throttle.ts).
   */
  accept(
    nonce: string,
    issuedAt: number,
    nc: number,
    ttlSeconds: number,
    now?: number,
    throttleKeys?: string[],
  ): Promise<NonceCountVerdict>;
}

/** throttle.ts's AuthThrottle, asynchronous (see there for the policy). */
export interface SharedThrottle {
  check(keys: string[], now?: number): Promise<ThrottleDecision>;
  recordFailure(keys: string[], now?: number): Promise<ThrottleDecision>;
  recordSuccess(keys: string[], now?: number): Promise<void>;
}

/** What a sealed session says about itself (session.ts). */
export type SessionIdentity = {
  sessionId: string;
  apiKeyId: string;
  /** Milliseconds since the epoch. */
  issuedAt: number;
};

export interface SessionRevocations {
  /** Refuses this session from now on; remembered until `expiresAt` (ms), its own expiry. */
  revoke(sessionId: string, expiresAt: number, now?: number): Promise<void>;
  /**
   * Refuses every session of the key issued at or before `before` (ms): sign
   * out everywhere. Remembered until `keepUntil`, when the last of them expires.
   */
  revokeIssuedBefore(
    apiKeyId: string,
    before: number,
    keepUntil: number,
    now?: number,
  ): Promise<void>;
  isRevoked(session: SessionIdentity, now?: number): Promise<boolean>;
}

/** What a request asks of the idle timeout (session-activity.ts): how long, how often to record, whether to. */
export type ActivityCheck = {
  /** The idle timeout, ms (more than 0: the caller asks only when it is on). */
  idleMs: number;
  /** Recorded activity younger than this is not recorded again. */
  refreshMs: number;
  /** Whether the request is activity (a page load, an API call the user made). */
  record: boolean;
};

export interface SessionActivity {
  /**
   * When the session was last active (ms): the latest activity recorded for
   * it, else when it was issued, or when this memory began if that is later
   * (a process that keeps it forgets it on restart, as it forgets
   * revocations). In the same step, records `now` as its activity when
   * session-activity.ts recordsActivity says so. A record is kept for idleMs:
   * by then the session is idle for good, and its issue time, earlier than
   * any record, says so too.
   */
  lastActive(session: SessionIdentity, use: ActivityCheck, now?: number): Promise<number>;
}

export interface AuthState {
  readonly kind: 'memory' | 'redis';
  readonly nonceCounts: NonceCounts;
  readonly throttle: SharedThrottle;
  readonly revocations: SessionRevocations;
  readonly activity: SessionActivity;
  /**
   * Connects before the first request (Redis: and marks where its memory
   * begins, so the first nonces issued are already trusted). An unreachable
   * store only means 503s until it answers; a Redis refusing REDIS_URL's
   * user (RedisAccessRefusedError) rejects, ending the start.
   */
  warm(): Promise<void>;
  close(): Promise<void>;
}

/**
 * Revocations kept in this process. Entries leave when the sessions they
 * refuse have expired anyway; a sweep runs whenever the table has doubled
 * since the last one, so memory follows the number of live revocations.
 */
export class MemorySessionRevocations implements SessionRevocations {
  private readonly revoked = new Map<string, number>();
  private readonly voidBefore = new Map<string, { before: number; keepUntil: number }>();
  private sweepAt = 1024;

  get size(): number {
    return this.revoked.size + this.voidBefore.size;
  }

  revoke(sessionId: string, expiresAt: number, now: number = Date.now()): Promise<void> {
    if (expiresAt > now) {
      this.revoked.set(sessionId, Math.max(expiresAt, this.revoked.get(sessionId) ?? 0));
      this.maybeSweep(now);
    }
    return Promise.resolve();
  }

  revokeIssuedBefore(
    apiKeyId: string,
    before: number,
    keepUntil: number,
    now: number = Date.now(),
  ): Promise<void> {
    const current = this.voidBefore.get(apiKeyId);
    if (keepUntil > now && (!current || current.before < before)) {
      this.voidBefore.set(apiKeyId, {
        before,
        keepUntil: Math.max(keepUntil, current?.keepUntil ?? 0),
      });
      this.maybeSweep(now);
    }
    return Promise.resolve();
  }

  isRevoked(session: SessionIdentity, now: number = Date.now()): Promise<boolean> {
    const until = this.revoked.get(session.sessionId);
    if (until !== undefined && until > now) return Promise.resolve(true);
    const mark = this.voidBefore.get(session.apiKeyId);
    return Promise.resolve(
      mark !== undefined && mark.keepUntil > now && session.issuedAt <= mark.before,
    );
  }

  private maybeSweep(now: number): void {
    if (this.size < this.sweepAt) return;
    for (const [id, until] of this.revoked) if (until <= now) this.revoked.delete(id);
    for (const [id, mark] of this.voidBefore) if (mark.keepUntil <= now) this.voidBefore.delete(id);
    this.sweepAt = Math.max(1024, this.size * 2);
  }
}

/**
 * Sessions' last activity kept in this process: one entry per session active
 * within the idle timeout, dropped once it is older (the session is then
 * idle whatever is kept); swept as the revocations are.
 */
export class MemorySessionActivity implements SessionActivity {
  private readonly seen = new Map<string, { at: number; keepUntil: number }>();
  private sweepAt = 1024;

  /** `began`: when this memory began (ms); no session counts as idle since before it. */
  constructor(private readonly began: number = Date.now()) {}

  get size(): number {
    return this.seen.size;
  }

  lastActive(
    session: SessionIdentity,
    use: ActivityCheck,
    now: number = Date.now(),
  ): Promise<number> {
    const recorded = this.seen.get(session.sessionId)?.at ?? 0;
    const last = Math.max(session.issuedAt, this.began, recorded);
    if (recordsActivity(last, use, now)) {
      this.seen.set(session.sessionId, { at: now, keepUntil: now + use.idleMs });
      this.maybeSweep(now);
    }
    return Promise.resolve(last);
  }

  private maybeSweep(now: number): void {
    if (this.size < this.sweepAt) return;
    for (const [id, entry] of this.seen) if (entry.keepUntil <= now) this.seen.delete(id);
    this.sweepAt = Math.max(1024, this.size * 2);
  }
}

// Per process, on globalThis like the nonce table and throttle it wraps: the
// custom server and Next's bundled route handlers load separate copies.
const REVOCATIONS_KEY = Symbol.for('org-events.session-revocations');
const ACTIVITY_KEY = Symbol.for('org-events.session-activity');
const STATES_KEY = Symbol.for('org-events.auth-states');
const OVERRIDE_KEY = Symbol.for('org-events.auth-state-override');
type Holder = {
  [OVERRIDE_KEY]?: AuthState;
  [REVOCATIONS_KEY]?: MemorySessionRevocations;
  [ACTIVITY_KEY]?: MemorySessionActivity;
  [STATES_KEY]?: Map<string, AuthState>;
};

/** This process's state: the same tables as getNonceCounterTable() and getAuthThrottle(). */
export function memoryAuthState(): AuthState {
  const holder = globalThis as Holder;
  const revocations = (holder[REVOCATIONS_KEY] ??= new MemorySessionRevocations());
  const activity = (holder[ACTIVITY_KEY] ??= new MemorySessionActivity());
  const table = getNonceCounterTable();
  const throttle = getAuthThrottle();
  return {
    kind: 'memory',
    nonceCounts: {
      accept: (nonce, issuedAt, nc, ttlSeconds, now, throttleKeys = []) =>
        Promise.resolve(
          throttle.check(throttleKeys, now).blocked
            ? 'blocked'
            : table.accept(nonce, issuedAt, nc, ttlSeconds, now),
        ),
    },
    throttle: {
      check: (keys, now) => Promise.resolve(throttle.check(keys, now)),
      recordFailure: (keys, now) => Promise.resolve(throttle.recordFailure(keys, now)),
      recordSuccess: (keys) => Promise.resolve(throttle.recordSuccess(keys)),
    },
    revocations,
    activity,
    warm: () => Promise.resolve(),
    close: () => Promise.resolve(),
  };
}

/**
 * The process's authentication state: in Redis when REDIS_URL is set (one
 * client per process and URL), otherwise in memory, exactly as before.
 */
export function getAuthState(): AuthState {
  const holder = globalThis as Holder;
  const override = holder[OVERRIDE_KEY];
  if (override) return override;
  const url = getConfig().REDIS_URL;
  const states = (holder[STATES_KEY] ??= new Map<string, AuthState>());
  const key = url ?? '';
  let state = states.get(key);
  if (!state) {
    state = url ? createRedisAuthState({ url }) : memoryAuthState();
    states.set(key, state);
  }
  return state;
}

/** At server start: the process's authentication state, connected. */
export async function warmAuthState(): Promise<void> {
  await getAuthState().warm();
}

/**
 * Act as the instance holding `state`: Next's worker thread takes the main
 * thread's (lib/auth/thread-auth-state.ts); tests take one of two Redis
 * states with their own clients and a test key prefix. Undefined goes back
 * to getAuthState()'s own choice.
 */
export function adoptAuthState(state: AuthState | undefined): void {
  (globalThis as Holder)[OVERRIDE_KEY] = state;
}
