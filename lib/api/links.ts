import { getConfig } from '@/lib/config';
import { proxyForwarded } from '@/lib/http/request';
import type { QueryParam } from './params';
import { API_PREFIX, type ApiRequest } from './types';

export type Link = { href: string; rel: string };

const HOST = /^(?:[A-Za-z0-9-]+(?:\.[A-Za-z0-9-]+)*\.?|\[[0-9A-Fa-f:.]+\])(?::\d{1,5})?$/;

/**
 * Where links point: PUBLIC_BASE_URL when configured (the normal case behind
 * a proxy or for the self-hosted `https://{host}:{port}`), otherwise the
 * request's own Host. X-Forwarded-Proto/Host count only with TRUST_PROXY, so
 * a client cannot make us print links to another site. A missing or
 * malformed Host falls back to localhost.
 */
export function baseUrl(request: Pick<ApiRequest, 'headers' | 'encrypted'>): string {
  const config = getConfig();
  if (config.PUBLIC_BASE_URL) return config.PUBLIC_BASE_URL;
  // Served over TLS by server.ts itself (TLS_CERT_FILE): the request came in as https.
  let proto = request.encrypted ? 'https' : 'http';
  let host = request.headers.get('host') ?? '';
  if (config.TRUST_PROXY) {
    const forwardedProto = proxyForwarded(request.headers.get('x-forwarded-proto'))?.toLowerCase();
    if (forwardedProto === 'https' || forwardedProto === 'http') proto = forwardedProto;
    host = proxyForwarded(request.headers.get('x-forwarded-host')) ?? host;
  }
  if (!HOST.test(host)) host = 'localhost';
  return `${proto}://${host}`;
}

export function orgHref(base: string, orgId: string): string {
  return `${base}${API_PREFIX}/orgs/${orgId}`;
}

export function eventHref(base: string, orgId: string, eventId: string): string {
  return `${base}${API_PREFIX}/orgs/${orgId}/events/${eventId}`;
}

function encodePairs(params: readonly QueryParam[]): string[] {
  return params.map((p) => `${encodeURIComponent(p.name)}=${encodeURIComponent(p.value)}`);
}

/**
 * A paginated list's links, in the real service's format: `self` repeats the
 * request's other parameters in the order received and ends with
 * `pageNum=N&itemsPerPage=M`; `next` and `previous` end with
 * `itemsPerPage=M&pageNum=N±1` (the order really is swapped). Order of the
 * array: previous, self, next.
 */
export function pageLinks(
  url: string,
  params: readonly QueryParam[],
  page: { pageNum: number; itemsPerPage: number; hasNext: boolean },
): Link[] {
  const kept = encodePairs(params.filter((p) => p.name !== 'pageNum' && p.name !== 'itemsPerPage'));
  const href = (tail: string) => `${url}?${[...kept, tail].join('&')}`;
  const { pageNum, itemsPerPage } = page;
  const links: Link[] = [];
  if (pageNum > 1) {
    links.push({
      href: href(`itemsPerPage=${itemsPerPage}&pageNum=${pageNum - 1}`),
      rel: 'previous',
    });
  }
  links.push({ href: href(`pageNum=${pageNum}&itemsPerPage=${itemsPerPage}`), rel: 'self' });
  if (page.hasNext) {
    links.push({ href: href(`itemsPerPage=${itemsPerPage}&pageNum=${pageNum + 1}`), rel: 'next' });
  }
  return links;
}

/** The `self` link of a single resource: its URL with the request's parameters. */
export function selfLink(url: string, params: readonly QueryParam[]): Link[] {
  const query = encodePairs(params).join('&');
  return [{ href: query ? `${url}?${query}` : url, rel: 'self' }];
}
