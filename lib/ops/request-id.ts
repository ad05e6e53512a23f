import { randomUUID } from 'node:crypto';

export const REQUEST_ID_HEADER = 'X-Request-Id';

/**
 * What a request id taken from a client or proxy may look like: short and
 * made of characters that cannot break a log line, a header or a shell
 * (UUIDs, ULIDs, AWS/GCP trace ids, Heroku's and nginx's ids all fit).
 */
const SANE_REQUEST_ID = /^[A-Za-z0-9._:@/+=-]{1,128}$/;

/**
 * The incoming X-Request-Id when it is sane (so a proxy's id follows the
 * request through our log), else a fresh UUID. A client cannot inject log
 * lines or oversized values through it.
 */
export function requestIdFor(incoming: string | null | undefined): string {
  const candidate = incoming?.trim();
  return candidate && SANE_REQUEST_ID.test(candidate) ? candidate : randomUUID();
}
