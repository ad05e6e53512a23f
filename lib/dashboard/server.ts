import 'server-only';
import { cookies, headers } from 'next/headers';
import { redirect } from 'next/navigation';
import { handleApiRequest } from '@/lib/api/handler';
import type { Principal } from '@/lib/auth/principal';
import { serverKeys } from '@/lib/auth/keys';
import { idleTimeoutInWords } from '@/lib/auth/session-activity';
import {
  checkSession,
  openSession,
  sessionCookieValue,
  sessionPrincipal,
  type SessionCheck,
} from '@/lib/auth/session';
import { getConfig } from '@/lib/config';
import { ApiError } from '@/lib/domain/errors';
import {
  DASHBOARD_ACTIVITY_HEADER,
  DASHBOARD_BACKGROUND_VALUE,
  DASHBOARD_CLIENT_HEADER,
  DASHBOARD_CLIENT_VALUE,
} from '@/lib/domain/limits';
import type { ApiErrorBody } from '@/lib/client/api-client';
import { LOCAL_ZONE_COOKIE, UTC_ZONE, isKnownZone } from '@/lib/domain/dates';
import { getStore } from '@/lib/store';
import { clientAddress, lastForwardedFor } from '@/lib/http/client-address';
import { wireFactsFromHeaders } from '@/lib/http/front-door';
import { isSecureRequest } from '@/lib/http/request';
import { automaticReloadHrefs, pageLoadUse } from './page-load';

/**
 * Server-component glue for dashboard pages: who is signed in, which zone the
 * browser said it is in, and in-process calls to the public API (never an HTTP
 * round trip to our own route handlers) made as the signed-in principal.
 */

/**
 * The signed-in principal, or a redirect to sign-in that comes back to
 * `returnTo`; with `reason=idle` when the session went unused for
 * SESSION_IDLE_SECONDS, `reason=expired` when a session cookie came but no
 * longer opens (expired, signed out elsewhere, key disabled), so the page
 * can say so. The page load is the session's activity.
 */
export async function requireSession(returnTo: string): Promise<Principal> {
  const checked = await checkCurrentSession();
  if ('session' in checked) return sessionPrincipal(checked.session);
  const reason = { none: '', refused: 'reason=expired&', idle: 'reason=idle&' }[checked.ended];
  redirect(`/sign-in?${reason}next=${encodeURIComponent(returnTo)}`);
}

/** The signed-in principal, read exactly as the API reads the same cookie. */
export async function currentSession(): Promise<Principal | null> {
  const checked = await checkCurrentSession();
  return 'session' in checked ? sessionPrincipal(checked.session) : null;
}

/**
 * The request's session checked (lib/auth/session.ts checkSession): a page
 * load is activity, but not one the browser made by itself, a prefetch or
 * the outage page's automatic reload (page-load.ts). The cookie is read
 * from the Cookie header by the API's own reader (sessionCookieValue, over
 * HTTPS as the guard's facts or PUBLIC_BASE_URL say), not by Next's cookies(), which
 * keeps the last of two cookies of one name (a parent domain's beside this
 * host's) where the API and sign-out take the first: the page showed one
 * session while the API served, and sign-out revoked, the other.
 */
export async function checkCurrentSession(): Promise<SessionCheck> {
  const incoming = await headers();
  const sealed = sessionCookieValue(incoming.get('cookie'), isSecureRequest({ headers: incoming }));
  const use = pageLoadUse(incoming, wireFactsFromHeaders(incoming)?.target);
  return checkSession(await getStore(), sealed, use);
}

/** Where the outage page shown for this request reloads to by itself, and where "Try again" goes. */
export async function outagePageHrefs(): Promise<ReturnType<typeof automaticReloadHrefs>> {
  return automaticReloadHrefs(wireFactsFromHeaders(await headers())?.target);
}

/** SESSION_IDLE_SECONDS in words ("30 minutes"), for the sign-in page; null when it is off. */
export function idleTimeout(): string | null {
  const seconds = getConfig().SESSION_IDLE_SECONDS;
  return seconds > 0 ? idleTimeoutInWords(seconds) : null;
}

/**
 * The public key the session cookie names, for a page's header only: the
 * cookie opened with the server's key (so it is one this server issued,
 * unexpired), not looked up (the key's record, the revocations). For the
 * no-access boundaries (app/orgs/[orgId]/forbidden.tsx, not-found.tsx): Next
 * renders them on every page of their segment, shown or not, so a full
 * currentSession() there cost every page two more lookups, and with the
 * database away failed outside the page's outage notice. Where one is shown,
 * the page that refused has just checked the session in full. Null when
 * there is none, or the server's key cannot be read now.
 */
export async function sessionPublicKeyForHeader(): Promise<string | null> {
  const incoming = await headers();
  const sealed = sessionCookieValue(incoming.get('cookie'), isSecureRequest({ headers: incoming }));
  if (!sealed) return null;
  try {
    return openSession((await serverKeys(await getStore())).session, sealed)?.publicKey ?? null;
  } catch {
    return null;
  }
}

/** The zone the browser last reported, so local times render the same on both sides. */
export async function localZoneHint(): Promise<string> {
  const zone = (await cookies()).get(LOCAL_ZONE_COOKIE)?.value;
  return zone && isKnownZone(zone) ? zone : UTC_ZONE;
}

export type ApiCallResult<T> =
  | { ok: true; status: number; body: T }
  | { ok: false; status: number; body: ApiErrorBody | null; retryAfter?: string };

/**
 * GETs a public API path in-process with the incoming request's headers (its
 * session cookie, host and forwarding headers), marked as the dashboard, and
 * logged under the page's request id: the front door's, generated when the
 * client sent none (only a client's own X-Request-Id reached the API, so
 * without one a page's 503 could not be told from its API calls' lines).
 */
export async function callApi<T>(path: string): Promise<ApiCallResult<T>> {
  const incoming = await headers();
  const forwarded = new Headers();
  incoming.forEach((value, name) => forwarded.set(name, value));
  forwarded.set(DASHBOARD_CLIENT_HEADER, DASHBOARD_CLIENT_VALUE);
  // The page's own session check (requireSession) has counted its activity.
  forwarded.set(DASHBOARD_ACTIVITY_HEADER, DASHBOARD_BACKGROUND_VALUE);
  forwarded.set('accept', 'application/json');
  forwarded.delete('authorization');
  const wire = wireFactsFromHeaders(incoming);
  const response = await handleApiRequest({
    method: 'GET',
    url: path,
    headers: forwarded,
    requestId: wire?.requestId,
    remoteAddress: clientAddress({
      headers: incoming,
      remoteAddress: lastForwardedFor(incoming),
    }),
    // Under server.ts's own TLS the links the API writes say https, as they
    // do for a client of the API: Next's thread is reached over loopback HTTP.
    encrypted: wire?.encrypted,
  });
  let body: unknown = null;
  try {
    body = response.body ? JSON.parse(response.body) : null;
  } catch {
    body = null;
  }
  if (response.status >= 200 && response.status < 300) {
    return { ok: true, status: response.status, body: body as T };
  }
  const retryAfter = response.headers.find(([name]) => name.toLowerCase() === 'retry-after')?.[1];
  return { ok: false, status: response.status, body: body as ApiErrorBody | null, retryAfter };
}

/**
 * A failed call the page cannot go on without, to throw: a 503 as the
 * ApiError it was (app/unavailable.tsx then shows the service
 * as unavailable), anything else as the bug it is.
 */
export function failedCallError(result: Extract<ApiCallResult<unknown>, { ok: false }>): Error {
  if (result.status !== 503) return new Error(`The API answered the dashboard ${result.status}`);
  return new ApiError(
    'SERVICE_UNAVAILABLE',
    result.body?.detail ?? 'The service is temporarily unavailable.',
    [],
    result.retryAfter === undefined ? [] : [['Retry-After', result.retryAfter]],
  );
}
