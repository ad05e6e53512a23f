/**
 * The names of the cookies this service sets, in a module of their own: the
 * front door (lib/http/front-door.ts), which keeps only these on requests
 * bound for Next, reads them here without loading the session code.
 */

/** Every cookie this service sets starts so: the session, the dashboard's zone (lib/domain/dates.ts). */
export const OWN_COOKIE_PREFIX = 'org_events_';

/**
 * A browser takes a cookie so named only Secure, with Path=/ and no Domain,
 * from this host itself: a sibling subdomain or a plain-HTTP answer cannot
 * plant or replace it. Browsers refuse it without Secure.
 */
export const HOST_COOKIE_PREFIX = '__Host-';

/** The dashboard's session cookie: sealed (AES-256-GCM), expiring, HttpOnly. Over plain HTTP. */
export const SESSION_COOKIE = `${OWN_COOKIE_PREFIX}session`;

/** Its name over HTTPS (lib/http/request.ts isSecureRequest), the only one read there. */
export const SECURE_SESSION_COOKIE = `${HOST_COOKIE_PREFIX}${SESSION_COOKIE}`;
