import { getLogger } from '@/lib/ops/log';
import { Redis } from 'ioredis';
import { serviceUnavailable } from '@/lib/domain/errors';
import type {
  AuthState,
  NonceCountVerdict,
  SessionActivity,
  SessionIdentity,
  SessionRevocations,
  NonceCounts,
  SharedThrottle,
} from './shared-state';
import {
  blockedUntilDecision,
  DEFAULT_THROTTLE_POLICY,
  type ThrottleDecision,
  type ThrottlePolicy,
} from './throttle';

/**
 * Authentication state in Redis, shared by every instance pointed at it.
 * Each decision is one atomic server-side step (a Lua script), so two
 * instances racing on the same nonce or key cannot both win. Times come from
 * the calling instance (like the in-memory versions), and every key expires
 * when it no longer matters: nonce counts with their nonce, throttle
 * counters after their quiet period, revocations with their sessions, a
 * session's last activity with its idle timeout.
 *
 * Redis must not evict these keys under memory pressure (maxmemory-policy
 * noeviction, the default): an evicted nonce count would let a replay in,
 * an evicted revocation a signed-out session. A Redis that may evict is
 * refused like one that is down (see checkEviction). Losing everything (a
 * restart without persistence) is safe: see SINCE.
 *
 * Any failure to get an answer (unreachable, timed out, refused) rejects
 * with ApiError SERVICE_UNAVAILABLE: the request is refused with a 503,
 * never accepted on a guess.
 */

/** Seconds a client is told to wait before retrying after a 503. */
export const RETRY_AFTER_SECONDS = 5;
/**
 * How long one command may take before the request is refused: long enough
 * for a busy machine (a 1 s bound refused requests on a loaded CI host),
 * short enough that a Redis outage answers 503 quickly.
 */
const COMMAND_TIMEOUT_MS = 2_500;
/** Nonce counts outlive their nonce by the clock skew instances may have (nonce.ts). */
const CLOCK_SKEW_MS = 60_000;
/** How often Redis's eviction settings are read again (also on every reconnection). */
const EVICTION_CHECK_MS = 30_000;

// Redis's memory of this state began at the instant stored under the
// "since" key, which never expires: it is set (NX, Redis's own clock) on
// first use and again only after Redis lost its data (a restart without
// persistence, a flush). Anything issued before it (nonces, sessions) may
// have been counted or revoked in the memory that was lost, so it is not
// trusted: a nonce is 'unknown' (a stale challenge: clients retry with a
// fresh one) and a session is void (its owner signs in again). Nonces and
// sessions carry their issue time to the millisecond.
const SINCE = `
local function since(key)
  local value = redis.call('GET', key)
  if value then return tonumber(value) end
  local t = redis.call('TIME')
  redis.call('SET', key, string.format('%d', t[1] * 1000 + math.floor(t[2] / 1000)), 'NX')
  return tonumber(redis.call('GET', key))
end
`;

// The largest blockedUntil (ms, 0 when none) of the throttle hashes KEYS[from..]:
// what the check, the failure and the nonce count all decide a block by.
const LATEST_BLOCK = `
local function latestBlock(from)
  local latest = 0
  for i = from, #KEYS do
    local blocked = tonumber(redis.call('HGET', KEYS[i], 'blockedUntil') or '0') or 0
    if blocked > latest then latest = blocked end
  end
  return latest
end
`;

// GET then SET of one key inside a script: atomic, so one of two racing
// instances sees the other's nc. KEYS: nc, since, then throttle keys.
// ARGV: nc, keep ms, issuedAt, now. Returns 1 when accepted, 0 for a replay,
// -1 for a nonce older than Redis's memory, -2 while a throttle key is blocked.
const ACCEPT_NC = `${SINCE}${LATEST_BLOCK}
if latestBlock(3) > tonumber(ARGV[4]) then return -2 end
if tonumber(ARGV[3]) < since(KEYS[2]) then return -1 end
local current = redis.call('GET', KEYS[1])
if current and tonumber(current) >= tonumber(ARGV[1]) then return 0 end
redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
return 1
`;

// The largest blockedUntil of the keys, as a decimal string ('0' when none).
const THROTTLE_CHECK = `${LATEST_BLOCK}
return string.format('%d', latestBlock(1))
`;

// FailureThrottle.recordFailure, step for step, on one hash per key.
// ARGV: now, windowMs, firstBlockMs, maxBlockMs, then one limit per key.
// Returns the latest blockedUntil (as THROTTLE_CHECK) when a key was already
// blocked, counting nothing; else '0'.
const THROTTLE_FAILURE = `${LATEST_BLOCK}
local function int(x) return string.format('%d', x) end
local now = tonumber(ARGV[1])
local latest = latestBlock(1)
if latest > now then return int(latest) end
local windowMs = tonumber(ARGV[2])
local firstBlockMs = tonumber(ARGV[3])
local maxBlockMs = tonumber(ARGV[4])
for i, key in ipairs(KEYS) do
  local limit = tonumber(ARGV[4 + i])
  local v = redis.call('HMGET', key, 'failures', 'windowStart', 'blockedUntil', 'strikes', 'lastFailure')
  local failures = tonumber(v[1]) or 0
  local windowStart = tonumber(v[2]) or now
  local blockedUntil = tonumber(v[3]) or 0
  local strikes = tonumber(v[4]) or 0
  local lastFailure = tonumber(v[5]) or now
  if now - lastFailure > maxBlockMs + windowMs then strikes = 0 end
  if now - windowStart > windowMs then
    windowStart = now
    failures = 0
  end
  failures = failures + 1
  lastFailure = now
  if failures >= limit then
    local duration = math.min(maxBlockMs, firstBlockMs * (2 ^ strikes))
    blockedUntil = math.max(blockedUntil, now + duration)
    strikes = strikes + 1
    failures = 0
    windowStart = now
  end
  redis.call('HSET', key, 'failures', int(failures), 'windowStart', int(windowStart),
    'blockedUntil', int(blockedUntil), 'strikes', int(strikes), 'lastFailure', int(lastFailure))
  -- Kept while blocked, then for the quiet period after which strikes are forgotten.
  redis.call('PEXPIRE', key, int(math.max(blockedUntil - now, 0) + maxBlockMs + windowMs))
end
return '0'
`;

/** A key written by the readiness probe and each success, to prove Redis takes writes. */
const WRITABLE = 'writable';

// FailureThrottle.recordSuccess: forget the count, keep a block and its strikes.
// KEYS: the throttle keys, then the writable mark (WRITABLE). ARGV: now.
// It ends with a write that fails when Redis takes none (full under
// noeviction, a read-only replica after a failover): a right key must fail
// as a wrong one does then, whose failure could not be counted. Before, a
// dashboard sign-in with the right key succeeded and with a wrong one got
// 503, unthrottled: an oracle.
const THROTTLE_SUCCESS = `
for i = 1, #KEYS - 1 do
  local key = KEYS[i]
  if redis.call('EXISTS', key) == 1 then
    redis.call('HSET', key, 'failures', '0')
    local v = redis.call('HMGET', key, 'blockedUntil', 'strikes')
    if (tonumber(v[1]) or 0) == 0 and (tonumber(v[2]) or 0) == 0 then redis.call('DEL', key) end
  end
end
redis.call('SET', KEYS[#KEYS], ARGV[1], 'PX', 60000)
return 1
`;

// KEYS: revoked:<session>, revoked-before:<key>, since. ARGV: issuedAt.
const IS_REVOKED = `${SINCE}
local issued = tonumber(ARGV[1])
if issued < since(KEYS[3]) then return 1 end
if redis.call('EXISTS', KEYS[1]) == 1 then return 1 end
local before = tonumber(redis.call('GET', KEYS[2]) or '0') or 0
if issued <= before then return 1 end
return 0
`;

// A session's last activity (shared-state.ts SessionActivity): the latest of
// its record, its issue time and "since", recording now in the same step
// when session-activity.ts recordsActivity would (the same rule, here in Lua).
// KEYS: active:<session>, since. ARGV: issuedAt, now, idleMs, refreshMs, record (1 or 0).
const LAST_ACTIVE = `${SINCE}
local last = math.max(tonumber(ARGV[1]), since(KEYS[2]), tonumber(redis.call('GET', KEYS[1]) or '0') or 0)
local now = tonumber(ARGV[2])
if ARGV[5] == '1' and now - last < tonumber(ARGV[3]) and now - last >= tonumber(ARGV[4]) then
  redis.call('SET', KEYS[1], ARGV[2], 'PX', ARGV[3])
end
return last
`;

// Raises a key's "issued at or before" mark, never lowers it. ARGV: before, ttl ms.
const RAISE_MARK = `
local current = tonumber(redis.call('GET', KEYS[1]) or '0') or 0
if current < tonumber(ARGV[1]) then
  redis.call('SET', KEYS[1], ARGV[1], 'PX', ARGV[2])
elseif redis.call('PTTL', KEYS[1]) < tonumber(ARGV[2]) then
  redis.call('PEXPIRE', KEYS[1], ARGV[2])
end
return 1
`;

/**
 * Redis's answers that mean it will not serve REDIS_URL's user: a wrong
 * password or an unknown user (WRONGPASS; "ERR invalid password" before
 * Redis 6), no password where one is asked for (NOAUTH), or an ACL user not
 * allowed the commands or keys this state uses (NOPERM). Unlike an outage,
 * waiting cannot fix them.
 */
const ACCESS_REFUSED = /^(?:WRONGPASS|NOAUTH|NOPERM)\b|^ERR invalid password/;

export function isRedisAccessRefused(error: unknown): error is Error {
  return (
    error instanceof Error && error.name === 'ReplyError' && ACCESS_REFUSED.test(error.message)
  );
}

/** Redis refused REDIS_URL's user at start: the server does not start (server.ts). */
export class RedisAccessRefusedError extends Error {
  override readonly name = 'RedisAccessRefusedError';
}

/**
 * Redis's refusal in words naming REDIS_URL, its user and where it points,
 * never its password (Redis's own reply quotes none of it; the command it
 * answered, which does, is left out).
 */
function accessRefusedMessage(url: string, error: Error): string {
  let target = 'REDIS_URL';
  try {
    const parsed = new URL(url);
    const user = decodeURIComponent(parsed.username) || 'default';
    target = `REDIS_URL (user ${JSON.stringify(user)} at ${parsed.host})`;
  } catch {
    // config.ts refused a URL ioredis cannot read: not reached in a server.
  }
  return `Redis refuses ${target}: ${error.message.split('\n')[0]!.replace(/\.$/, '')}. Check the user name and password in REDIS_URL, and that the user may run EVAL, GET and SET on its keys (ACL)`;
}

export type RedisAuthStateOptions = {
  url: string;
  /** Prefix of every key (tests use a unique one per run). */
  keyPrefix?: string;
  policy?: ThrottlePolicy;
  commandTimeoutMs?: number;
  /** How often the eviction settings are read again (tests shorten it). */
  evictionCheckMs?: number;
  /**
   * Whether an outage goes to the log (default true): a server's operator
   * needs it. A CLI command says itself what an outage meant for it, and the
   * log line (with its stack) would only repeat that in another shape.
   */
  logOutages?: boolean;
};

export type RedisAuthState = AuthState & {
  readonly client: Redis;
  readonly keyPrefix: string;
  /** Where Redis's memory begins; nonces and sessions issued earlier are not trusted. */
  memorySince(): Promise<number>;
  /** Resolves when Redis would serve an authenticated request now (/readyz). */
  probe(): Promise<void>;
};

export function createRedisAuthState(options: RedisAuthStateOptions): RedisAuthState {
  const prefix = options.keyPrefix ?? 'org-events:auth:';
  const policy = options.policy ?? DEFAULT_THROTTLE_POLICY;
  const client = new Redis(options.url, {
    // Commands issued while disconnected wait in the offline queue, but no
    // longer than the command timeout: a request never hangs on Redis.
    commandTimeout: options.commandTimeoutMs ?? COMMAND_TIMEOUT_MS,
    maxRetriesPerRequest: 1,
    connectTimeout: 2_000,
    // Keep reconnecting for as long as the process lives; service resumes by itself.
    retryStrategy: (attempt) => Math.min(attempt * 200, 2_000),
  });
  let reportedOutage = false;
  let warming = false;
  client.on('error', (error: Error) => {
    // Once per outage, not once per reconnection attempt.
    if (reportedOutage) return;
    reportedOutage = true;
    if (options.logOutages === false) return;
    // A password rotated on Redis alone shows at the next reconnection: said
    // as what it is, not as an outage the network would explain.
    // While warm() runs, the start fails with it instead (checkAccess).
    if (isRedisAccessRefused(error)) {
      if (warming) return;
      getLogger().error(
        `${accessRefusedMessage(options.url, error)}. Authenticated requests get 503 until it lets the user in`,
      );
      return;
    }
    getLogger().error(
      { err: error },
      'Redis unreachable: authenticated requests get 503 until it returns',
    );
  });
  const sinceKey = `${prefix}since`;
  client.on('ready', () => {
    if (reportedOutage && options.logOutages !== false) getLogger().warn('Redis reachable again');
    reportedOutage = false;
    // Mark where Redis's memory begins as soon as it answers (a no-op when
    // it kept its data), so that nonces issued from now on are trusted.
    memorySince().catch(() => undefined);
    void checkEviction();
  });
  const evictionTimer = setInterval(
    () => void checkEviction(),
    options.evictionCheckMs ?? EVICTION_CHECK_MS,
  );
  evictionTimer.unref();

  /**
   * Why Redis may not hold this state, or null. With a memory limit
   * (maxmemory) and any policy but noeviction, Redis drops keys when full,
   * and every key here expires, so the volatile-* policies (the default of
   * some hosted Redis services) may drop them too. Until the policy is
   * noeviction (or the limit 0) every operation is refused with 503, as in an
   * outage: a full noeviction Redis refuses writes, which fails closed too.
   */
  let evictionRisk: string | null = null;
  let firstEvictionCheck: Promise<void> | undefined;
  let reportedUnreadablePolicy = false;
  async function checkEviction(): Promise<void> {
    let info: string;
    try {
      info = await client.info('memory');
    } catch (error) {
      // Not allowed to read it (an ACL without INFO): say what to check, once.
      // (A refused password is not that: the client's error handler says it.)
      if (
        error instanceof Error &&
        error.name === 'ReplyError' &&
        /^NOPERM\b/.test(error.message) &&
        !reportedUnreadablePolicy
      ) {
        reportedUnreadablePolicy = true;
        getLogger().warn(
          { err: error },
          'Cannot read Redis maxmemory-policy: it must be noeviction, or evicted nonce counts and revocations would let replays and signed-out sessions in',
        );
      }
      return; // down: run() refuses every operation anyway
    }
    const field = (name: string) => new RegExp(`^${name}:(.*)$`, 'm').exec(info)?.[1]?.trim();
    const maxmemory = Number(field('maxmemory') ?? 0);
    const policy = field('maxmemory_policy') ?? 'noeviction';
    const risk =
      maxmemory > 0 && policy !== 'noeviction'
        ? `maxmemory ${maxmemory} bytes with maxmemory-policy ${policy}`
        : null;
    if (risk && risk !== evictionRisk) {
      getLogger().error(
        `Redis may evict authentication state (${risk}): authenticated requests get 503 until maxmemory-policy is noeviction or maxmemory is 0`,
      );
    } else if (!risk && evictionRisk) {
      getLogger().warn('Redis no longer evicts: authentication state in use again');
    }
    evictionRisk = risk;
  }

  /**
   * A password in the URL that this Redis does not ask for: a Redis 6+
   * default user without one (nopass) takes any password, so the start said
   * nothing while the operator believed the state behind it. AUTH with the
   * password alone tells: Redis answers that no password is configured (an
   * ACL user's name in the URL is another check, left to Redis). Said once,
   * at start; down, or any other answer, says nothing here.
   */
  async function checkPasswordAskedFor(): Promise<void> {
    let password: string;
    try {
      const url = new URL(options.url);
      if (url.username !== '' && url.username !== 'default') return;
      password = decodeURIComponent(url.password);
    } catch {
      return;
    }
    if (!password) return;
    try {
      await client.call('AUTH', password);
    } catch (error) {
      const message = error instanceof Error ? error.message : '';
      if (/without any password configured|no password is set/i.test(message)) {
        getLogger().warn(
          'REDIS_URL carries a password, but this Redis asks for none: whoever reaches it can read and change the nonce counts, the throttle and the session revocations. Set requirepass (or an ACL user) on Redis, or take the password out of REDIS_URL',
        );
      }
    }
  }

  /**
   * At start, what every authenticated request does first (the "since" mark
   * by EVAL, a write): a Redis that refuses REDIS_URL's user rejects with
   * RedisAccessRefusedError, as PostgreSQL refusing its role ends the start;
   * one that does not answer (down, full, a replica) resolves, and requests
   * get 503 until it does, as before.
   */
  async function checkAccess(): Promise<void> {
    try {
      await memorySince();
      await client.set(`${prefix}${WRITABLE}`, String(Date.now()), 'PX', 60_000);
    } catch (error) {
      if (isRedisAccessRefused(error)) {
        throw new RedisAccessRefusedError(accessRefusedMessage(options.url, error));
      }
    }
  }

  /** The instant (ms, Redis's clock) Redis's memory of this state began; set on first use. */
  function memorySince(): Promise<number> {
    return client.eval(`${SINCE} return since(KEYS[1])`, 1, sinceKey) as Promise<number>;
  }

  async function run<T>(what: string, command: () => Promise<T>): Promise<T> {
    // The first eviction check runs beside the first command (no added wait,
    // and none beyond the command's own when Redis is down); its verdict
    // decides before the command's answer is used.
    const checked = (firstEvictionCheck ??= checkEviction());
    refuseIfEvicting(what);
    let result: T;
    try {
      result = await command();
    } catch (error) {
      // Redis answered with an error: its user refused (a password rotated,
      // an ACL changed), or else a bug here, not an outage; say so in the log.
      // (ioredis reports those as ReplyError; its type is not exported usably.)
      if (isRedisAccessRefused(error)) {
        getLogger().error({ command: what }, accessRefusedMessage(options.url, error));
      } else if (error instanceof Error && error.name === 'ReplyError') {
        getLogger().error({ err: error, command: what }, 'Redis refused a command');
      }
      throw serviceUnavailable(
        `shared authentication state unreachable: ${what}`,
        RETRY_AFTER_SECONDS,
      );
    }
    await checked;
    refuseIfEvicting(what);
    return result;
  }

  function refuseIfEvicting(what: string): void {
    if (evictionRisk) {
      throw serviceUnavailable(
        `shared authentication state unusable: its Redis may evict keys (${what})`,
        RETRY_AFTER_SECONDS,
      );
    }
  }

  const limitFor = (key: string) =>
    policy.limits[key.slice(0, key.indexOf(':'))] ?? policy.defaultLimit;

  const nonceCounts: NonceCounts = {
    async accept(
      nonce,
      issuedAt,
      nc,
      ttlSeconds,
      now = Date.now(),
      throttleKeys = [],
    ): Promise<NonceCountVerdict> {
      const keepMs = Math.max(1, issuedAt + ttlSeconds * 1000 + CLOCK_SKEW_MS - now);
      const verdict = await run('nonce count', () =>
        client.eval(
          ACCEPT_NC,
          2 + throttleKeys.length,
          `${prefix}nc:${nonce}`,
          sinceKey,
          ...throttleKeys.map((k) => `${prefix}throttle:${k}`),
          String(nc),
          String(keepMs),
          String(issuedAt),
          String(now),
        ),
      );
      return verdict === 1
        ? 'ok'
        : verdict === -1
          ? 'unknown'
          : verdict === -2
            ? 'blocked'
            : 'replay';
    },
  };

  const throttle: SharedThrottle = {
    async check(keys, now = Date.now()): Promise<ThrottleDecision> {
      if (keys.length === 0) return { blocked: false, retryAfterSeconds: 0 };
      const reply = await run('throttle', () =>
        client.eval(THROTTLE_CHECK, keys.length, ...keys.map((k) => `${prefix}throttle:${k}`)),
      );
      return blockedUntilDecision(Number(reply), now);
    },
    async recordFailure(keys, now = Date.now()): Promise<ThrottleDecision> {
      if (keys.length === 0) return blockedUntilDecision(0, now);
      const reply = await run('throttle', () =>
        client.eval(
          THROTTLE_FAILURE,
          keys.length,
          ...keys.map((k) => `${prefix}throttle:${k}`),
          String(now),
          String(policy.windowMs),
          String(policy.firstBlockMs),
          String(policy.maxBlockMs),
          ...keys.map((k) => String(limitFor(k))),
        ),
      );
      return blockedUntilDecision(Number(reply), now);
    },
    async recordSuccess(keys, now = Date.now()): Promise<void> {
      await run('throttle', () =>
        client.eval(
          THROTTLE_SUCCESS,
          keys.length + 1,
          ...keys.map((k) => `${prefix}throttle:${k}`),
          `${prefix}${WRITABLE}`,
          String(now),
        ),
      );
    },
  };

  const revocations: SessionRevocations = {
    async revoke(sessionId, expiresAt, now = Date.now()): Promise<void> {
      if (expiresAt <= now) return;
      await run('session revocation', () =>
        client.set(`${prefix}revoked:${sessionId}`, '1', 'PX', expiresAt - now),
      );
    },
    async revokeIssuedBefore(apiKeyId, before, keepUntil, now = Date.now()): Promise<void> {
      if (keepUntil <= now) return;
      await run('session revocation', () =>
        client.eval(
          RAISE_MARK,
          1,
          `${prefix}revoked-before:${apiKeyId}`,
          String(before),
          String(keepUntil - now),
        ),
      );
    },
    async isRevoked(session: SessionIdentity): Promise<boolean> {
      const revoked = await run('session revocation', () =>
        client.eval(
          IS_REVOKED,
          3,
          `${prefix}revoked:${session.sessionId}`,
          `${prefix}revoked-before:${session.apiKeyId}`,
          sinceKey,
          String(session.issuedAt),
        ),
      );
      return revoked === 1;
    },
  };

  const activity: SessionActivity = {
    async lastActive(session, use, now = Date.now()): Promise<number> {
      const last = await run('session activity', () =>
        client.eval(
          LAST_ACTIVE,
          2,
          `${prefix}active:${session.sessionId}`,
          sinceKey,
          String(session.issuedAt),
          String(now),
          String(use.idleMs),
          String(use.refreshMs),
          use.record ? '1' : '0',
        ),
      );
      return Number(last);
    },
  };

  return {
    kind: 'redis',
    client,
    keyPrefix: prefix,
    memorySince,
    // What every authenticated request needs of Redis (run: the eviction
    // check too), for /readyz: rejects with 503 when a request would.
    // A write too: a Redis that takes none (full under noeviction, a
    // read-only replica) fails every Digest request's nonce count.
    probe: () =>
      run('readiness', async () => {
        await memorySince();
        await client.set(`${prefix}${WRITABLE}`, String(Date.now()), 'PX', 60_000);
      }),
    async warm() {
      // Waits out the connection (bounded by the command timeout); a Redis
      // that is down now is reported by the client's error handler, one that
      // refuses REDIS_URL's user rejects (checkAccess). All at once: a Redis
      // that is down costs one command timeout, not three.
      warming = true;
      try {
        await Promise.all([
          checkAccess(),
          (firstEvictionCheck ??= checkEviction()),
          checkPasswordAskedFor(),
        ]);
      } finally {
        warming = false;
      }
    },
    nonceCounts,
    throttle,
    revocations,
    activity,
    async close() {
      clearInterval(evictionTimer);
      await client.quit().catch(() => client.disconnect());
    },
  };
}
