import { getConfig } from '@/lib/config';
import { clientAddress } from '@/lib/http/client-address';
import { isSecureRequest } from '@/lib/http/request';
import type { EventStore } from '@/lib/store/types';
import {
  buildChallenge,
  parseAuthorization,
  uriNamingRequest,
  verifyDigestResponse,
  type DigestCredentials,
} from './digest';
import { recordHa1 } from './ha1-at-rest';
import { checkNonce, issueNonce } from './nonce';
import { serverKeys } from './keys';
import type { Principal } from './principal';
import { checkSession, sessionCookieValue, sessionPrincipal, sessionUseOf } from './session';
import { type AuthState, getAuthState } from './shared-state';
import { attemptThrottleKeys, type ThrottleDecision } from './throttle';

/** What authentication needs to know about a request; the API's request shape satisfies it. */
export type AuthRequest = {
  method: string;
  /** The request-target: path and query, exactly as received. */
  url: string;
  headers: { get(name: string): string | null };
  /** The TCP peer's address. */
  remoteAddress?: string;
  /** The connection is TLS (server.ts with TLS_CERT_FILE): the session cookie is the `__Host-` one. */
  encrypted?: boolean;
};

export type AuthResult =
  | { principal: Principal }
  /** Answer 401 with this WWW-Authenticate value. `reason` is for logs and tests only. */
  | { challenge: { wwwAuthenticate: string; stale: boolean; reason: string } }
  | { throttled: { retryAfterSeconds: number } };

/** Answer 429 with Retry-After from the block's decision (at least a second). */
function throttled(decision: ThrottleDecision): AuthResult {
  return { throttled: { retryAfterSeconds: Math.max(1, decision.retryAfterSeconds) } };
}

/**
 * Who is calling: the dashboard session cookie first, then HTTP Digest.
 * Rejects with ApiError SERVICE_UNAVAILABLE when the shared state (Redis)
 * cannot be reached; the API answers that 503 with Retry-After.
 *
 * Only wrong credentials count as failures for the throttle: a request
 * without credentials is the first leg of every Digest handshake, and a stale
 * or replayed nonce with a correct response proves the key.
 */
export async function authenticate(
  request: AuthRequest,
  store: EventStore,
  now: number = Date.now(),
  // Read when the request arrives, before any await: the state its checks use.
  state: AuthState = getAuthState(),
): Promise<AuthResult> {
  const config = getConfig();
  const keys = await serverKeys(store);
  const challenge = (reason: string, stale = false): AuthResult => ({
    challenge: {
      wwwAuthenticate: buildChallenge(config.DIGEST_REALM, issueNonce(keys.nonce, now), stale),
      stale,
      reason,
    },
  });

  // The dashboard's own calls: what it asks by itself is not activity.
  const session = await checkSession(
    store,
    sessionCookieValue(request.headers.get('cookie'), isSecureRequest(request)),
    sessionUseOf(request.headers),
    now,
  );
  if ('session' in session) return { principal: sessionPrincipal(session.session) };

  const parsed = parseAuthorization(request.headers.get('authorization'));
  // Said in the log and metrics: a session ended by the idle timeout or
  // refused (signed out, expired, its key gone) is not "no credentials".
  if (parsed.scheme === 'none') {
    return challenge(
      session.ended === 'idle'
        ? 'session idle'
        : session.ended === 'refused'
          ? 'session refused'
          : 'no credentials',
    );
  }
  if (parsed.scheme === 'basic') return challenge('basic authentication is not accepted');
  if (parsed.scheme === 'other') return challenge('unsupported scheme');
  if (!parsed.credentials) return challenge(`invalid digest: ${parsed.problem}`);
  if (parsed.credentials.realm !== config.DIGEST_REALM) return challenge('wrong realm');
  const uri = uriNamingRequest(parsed.credentials, request.url);
  if (uri === null) return challenge('uri mismatch');
  const credentials: DigestCredentials = { ...parsed.credentials, uri };
  const nonce = checkNonce(keys.nonce, credentials.nonce, config.NONCE_TTL_SECONDS, now);
  if (nonce.status === 'invalid') return challenge('nonce not issued by us');

  // In memory, or in Redis shared by every instance (REDIS_URL). When Redis
  // cannot answer, these reject with SERVICE_UNAVAILABLE (503): nothing is
  // accepted that might be a replay or a throttled guess.
  const throttle = state.throttle;
  const throttleKeys = attemptThrottleKeys(credentials.username, clientAddress(request));
  const decision = await throttle.check(throttleKeys, now);
  if (decision.blocked) return throttled(decision);

  const record = await store.getApiKeyByPublicKey(credentials.username);
  const field = credentials.algorithm.startsWith('MD5') ? 'md5' : 'sha256';
  // Null when the key is unknown, disabled, of another realm, or its stored
  // HA1 does not open with this store's secret (ORG_EVENTS_SECRET or its file).
  const storedHa1 =
    record !== null && !record.disabled && record.realm === config.DIGEST_REALM
      ? recordHa1(store, record, field)
      : null;
  const usable = storedHa1 !== null;
  const ha1 = storedHa1 ?? '0'.repeat(field === 'md5' ? 32 : 64); // same work, no oracle
  const correct = verifyDigestResponse(credentials, request.method, ha1) && usable;
  // Requests that arrive together all pass the check above before any of
  // their failures is counted. Each outcome is therefore decided against the
  // throttle again, atomically: a failure past the limit, and a correct
  // answer once those failures have blocked the key, are answered as
  // throttled, so concurrent guesses learn no more than sequential ones.
  if (!correct || record === null) {
    const late = await throttle.recordFailure(throttleKeys, now);
    if (late.blocked) return throttled(late);
    return challenge(usable ? 'wrong response' : 'unknown or disabled key');
  }

  if (nonce.status === 'stale') {
    // stale=true would tell a guesser its answer was right.
    const late = await throttle.check(throttleKeys, now);
    if (late.blocked) return throttled(late);
    return challenge('stale nonce', true);
  }
  const counted = await state.nonceCounts.accept(
    credentials.nonce,
    nonce.issuedAt,
    credentials.ncValue,
    config.NONCE_TTL_SECONDS,
    now,
    throttleKeys,
  );
  if (counted === 'blocked') {
    // The block seen by the nonce step may have ended since: still a 429, retry in a second.
    return throttled(await throttle.check(throttleKeys, now));
  }
  // A replayed (nonce, nc) is refused. stale=true lets a client whose
  // concurrent requests arrived out of order retry with a fresh nonce instead
  // of prompting; a replayer gains nothing, it cannot answer a new nonce.
  if (counted === 'replay') return challenge('nonce count did not increase', true);
  if (counted === 'unknown') return challenge('nonce count history evicted', true);

  return { principal: { apiKeyId: record.id, publicKey: record.publicKey, via: 'digest' } };
}
