/**
 * The API's fixed shapes and limits, written once. The API's parameter
 * schemas (lib/domain/query.ts), the OpenAPI document generated from them and
 * the dashboard's URL state (lib/client/url-state.ts) all read these, so the
 * parser, the document and the dashboard cannot disagree. Plain constants:
 * browser code imports this module without pulling in zod or node.
 */

/** Every route of the API lives under this prefix, as on the real service. */
export const API_PREFIX = '/api/public/v1.0';

/** The largest page the list endpoints serve (itemsPerPage), as on the real service. */
export const MAX_ITEMS_PER_PAGE = 500;

/** The page size of a list request that names none. */
export const DEFAULT_ITEMS_PER_PAGE = 100;

/** 24 lowercase hex digits, the id shape of orgs, events, keys and projects. */
export const OBJECT_ID_PATTERN = /^[0-9a-f]{24}$/;

/** A public key: eight lowercase letters, as the real service's (lib/auth/api-keys.ts makes them). */
export const PUBLIC_KEY_PATTERN = /^[a-z]{8}$/;

/**
 * A port written as text: digits naming 0 to 65535 (five digits alone allow
 * 99999; parseInt would read 3e3 as 3, Number 0x10 as 16). An event's `port`
 * field and the server's PORT both.
 */
export function isPortText(text: string): boolean {
  return /^\d{1,5}$/.test(text) && Number(text) <= 65_535;
}

/**
 * The deepest an event may nest, counting the event object itself as level 1:
 * MongoDB's limit for the documents the real service keeps its events in, so
 * no event it serves goes deeper. Held at import and mirror, it bounds what
 * serving and showing a document cost (an indented `raw` grows with depth,
 * and the dashboard walks it); a 1 MB record could otherwise nest 500,000
 * levels.
 */
export const MAX_EVENT_NESTING = 100;

/**
 * The longest record `import` and `mirror` may be told to read (--max-record-bytes,
 * IMPORT_MAX_RECORD_BYTES), as long as an NDJSON line holding a whole page may be:
 * a longer one is held as text past the longest string Node can make (about 512 MiB).
 */
export const MAX_RECORD_BYTES_LIMIT = 256 << 20;

/** Event type names are upper snake case, at most 128 characters; anything else is a syntax error. */
export const EVENT_TYPE_PATTERN = /^[A-Z][A-Z0-9_]{0,127}$/;

/**
 * The dashboard marks its API calls with this header: its 401s then come
 * without a Digest challenge, which would make the browser show its own
 * credential prompt instead of our sign-in page.
 */
export const DASHBOARD_CLIENT_HEADER = 'X-Org-Events-Client';
export const DASHBOARD_CLIENT_VALUE = 'dashboard';

/**
 * The dashboard marks the API calls the user did not make (the live count
 * it asks every few seconds, a refetch of its own) with this header: they
 * check the session without counting as activity, so a page left open does
 * not keep its session from the idle timeout (lib/auth/session-activity.ts).
 */
export const DASHBOARD_ACTIVITY_HEADER = 'X-Org-Events-Activity';
export const DASHBOARD_BACKGROUND_VALUE = 'background';
