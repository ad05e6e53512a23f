import { getConfig } from '@/lib/config';
import type { HeaderReader } from './request';

/**
 * The one answer to "which address is this client?", used for throttling and
 * logs on every path (the custom server's fast path, Next's route handlers,
 * the dashboard's in-process API calls).
 *
 * With TRUST_PROXY the right-most X-Forwarded-For entry is the client: the
 * one our (single) proxy appended; the entries left of it are whatever the
 * client claimed. Without it, only the TCP peer counts. Next's route handlers
 * cannot see the socket: the server in front of Next (server.ts) writes the
 * peer into X-Forwarded-For for them and the Next adapter passes that on as
 * `remoteAddress`, so what a client sends in that header never reaches here
 * as an address unless a proxy is trusted.
 */
export function clientAddress(
  request: { headers: HeaderReader; remoteAddress?: string },
  trustProxy: boolean = getConfig().TRUST_PROXY,
): string | undefined {
  if (trustProxy) {
    const last = lastForwardedFor(request.headers);
    if (last) return last;
  }
  return request.remoteAddress || undefined;
}

/** The right-most X-Forwarded-For entry: whoever connected to the last hop. */
export function lastForwardedFor(headers: HeaderReader): string | undefined {
  return headers.get('x-forwarded-for')?.split(',').pop()?.trim() || undefined;
}
