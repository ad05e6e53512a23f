/**
 * Helpers for route handlers that read a request directly (the dashboard's
 * sign-in): its body, whether it came over HTTPS, whether a browser sent it
 * from this site, and where it may redirect next. Which client address it came
 * from is client-address.ts.
 */

import { type Config, getConfig } from '@/lib/config';
import { keepsSecureCookiesOverHttp } from '@/lib/domain/secure-cookies';
import { wireFactsFromHeaders } from './front-door';

/** A request's headers as every reader here needs them: by name, null when absent. */
export type HeaderReader = { get(name: string): string | null };

/** What says which origin a browser reached: a proxy's forwarded headers, the public URL. */
type OriginConfig = Pick<Config, 'TRUST_PROXY' | 'PUBLIC_BASE_URL'>;

/** Reads a request body as text, refusing anything larger than `maxBytes`. */
export async function readBodyText(request: Request, maxBytes: number): Promise<string | null> {
  const declared = Number(request.headers.get('content-length') ?? '0');
  if (Number.isFinite(declared) && declared > maxBytes) return null;
  if (!request.body) return '';
  const reader = request.body.getReader();
  const chunks: Uint8Array[] = [];
  let total = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    total += value.byteLength;
    if (total > maxBytes) {
      // Read to the end and dropped, not cancelled: in Next's thread a
      // cancelled body leaves its rest unread on the kept-alive socket from
      // the main thread, and the next request sent over it hung for a minute,
      // then got a 503. The main thread refuses a dashboard body over 64 KB
      // (lib/http/next-thread.ts), which bounds what is read here.
      while (!(await reader.read()).done);
      return null;
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks).toString('utf8');
}

/**
 * The request body's media type as declared (Content-Type without its
 * parameters, lower case), or null when none is. Routes that read JSON
 * check it rather than parse any body as JSON: a cross-site form may post
 * text/plain without a preflight, and a body in such a post that parses as
 * JSON would be taken as the dashboard's own.
 */
export function requestMediaType(headers: HeaderReader): string | null {
  const essence = headers.get('content-type')?.split(';', 1)[0]?.trim().toLowerCase();
  return essence || null;
}

/**
 * The entry of a forwarded header (X-Forwarded-Host, -Proto) that the
 * trusted proxy wrote: the right-most, as for X-Forwarded-For. Entries to
 * its left arrive from the client (a proxy that appends keeps them), so the
 * left-most let a client put its own host in links and pass the same-origin
 * check of a sign-in posted from its site.
 */
export function proxyForwarded(value: string | null): string | undefined {
  return value?.split(',').at(-1)?.trim() || undefined;
}

/**
 * Whether the browser reached this service over HTTPS, the one place that
 * decides (the session cookie's `Secure` and `__Host-` name, and which
 * session cookie is read): the request is known to have come over HTTPS
 * (arrivedOverHttps), or PUBLIC_BASE_URL is https: the operator has said the
 * browser's origin is an https one. That last holds behind a TLS proxy
 * without TRUST_PROXY, where the hop to us is plain HTTP and says nothing of
 * the scheme, and the cookie went out without `Secure`. `url` is a route
 * handler's absolute URL, `encrypted` the API's own fact (lib/api/types.ts).
 */
export function isSecureRequest(
  request: { url?: string; headers: HeaderReader; encrypted?: boolean },
  config: OriginConfig = getConfig(),
): boolean {
  return arrivedOverHttps(request, config) || publicHttpsOrigin(config) !== null;
}

/**
 * Whether this request itself came over HTTPS: the connection is TLS
 * (server.ts with TLS_CERT_FILE) or a trusted proxy says so in
 * X-Forwarded-Proto. Unlike isSecureRequest, not PUBLIC_BASE_URL, which says
 * what browsers are expected to use, not what this one did.
 */
function arrivedOverHttps(
  request: { url?: string; headers: HeaderReader; encrypted?: boolean },
  config: OriginConfig,
): boolean {
  // Next's worker thread (lib/http/next-thread.ts) is reached over loopback
  // HTTP, so its URL says http: the guard's facts say what the client used.
  if (request.encrypted || request.url?.startsWith('https:')) return true;
  if (wireFactsFromHeaders(request.headers)?.encrypted) return true;
  return (
    config.TRUST_PROXY &&
    proxyForwarded(request.headers.get('x-forwarded-proto'))?.toLowerCase() === 'https'
  );
}

/**
 * Refuses cross-site posts: a browser always sends Origin on a POST, and it
 * must name this host: the one the request names (Host, or a trusted
 * proxy's X-Forwarded-Host), or PUBLIC_BASE_URL's origin, which a proxy that
 * rewrites Host (nginx sends its upstream's by default) leaves as the only
 * sign of it. Non-browser clients (curl) send neither Origin nor
 * Sec-Fetch-Site and are let through; they cannot ride a victim's cookie.
 *
 * The scheme counts too: http://host is another origin than https://host,
 * and whoever is on the network can answer for the plain-http one (a page
 * posting a form to the https one, where SameSite lets the cookie through in
 * browsers that ignore the scheme). So a plain-http Origin is refused when
 * the request came over HTTPS (arrivedOverHttps); when only an https
 * PUBLIC_BASE_URL says so, on loopback hosts it is kept (a browser keeps
 * Secure cookies on a plain-http localhost, and no one else can serve it).
 * A sign-in from such a page of this host off loopback is refused
 * HTTPS_REQUIRED instead (httpsOriginForSignIn), which says what to do.
 */
export function isSameOriginRequest(
  url: string,
  headers: HeaderReader,
  config: OriginConfig = getConfig(),
): boolean {
  const origin = headers.get('origin');
  if (origin === null) return headers.get('sec-fetch-site') !== 'cross-site';
  let originUrl: URL;
  try {
    originUrl = new URL(origin);
  } catch {
    return false; // includes the opaque origin "null"
  }
  if (
    originUrl.protocol === 'http:' &&
    (arrivedOverHttps({ url, headers }, config) ||
      (publicHttpsOrigin(config) !== null && !keepsSecureCookiesOverHttp(originUrl.hostname)))
  ) {
    return false;
  }
  if (originUrl.origin === publicOrigin(config)) return true;
  return originUrl.host.toLowerCase() === requestHost(url, headers, config);
}

/**
 * The host (and port) the client addressed, lower-cased: a trusted proxy's
 * X-Forwarded-Host, else Host, else the URL's.
 */
function requestHost(url: string, headers: HeaderReader, config: OriginConfig): string | undefined {
  const forwardedHost = config.TRUST_PROXY
    ? proxyForwarded(headers.get('x-forwarded-host'))
    : undefined;
  const host = forwardedHost ?? headers.get('host') ?? undefined;
  if (host) return host.toLowerCase();
  try {
    return new URL(url).host.toLowerCase();
  } catch {
    return undefined;
  }
}

/**
 * PUBLIC_BASE_URL's origin when it is https: where a browser keeps the
 * Secure session cookie that such a URL makes (isSecureRequest). Null when
 * it is unset or plain http.
 */
export function publicHttpsOrigin(config: OriginConfig = getConfig()): string | null {
  const origin = publicOrigin(config);
  return origin?.startsWith('https:') ? origin : null;
}

/**
 * PUBLIC_BASE_URL's origin, or null when it is unset. Parsed once per
 * value: isSecureRequest asks for it on every API request (authenticate).
 */
function publicOrigin(config: OriginConfig): string | null {
  const url = config.PUBLIC_BASE_URL;
  if (!url) return null;
  if (url !== parsedPublicUrl) [parsedPublicUrl, parsedPublicOrigin] = [url, new URL(url).origin];
  return parsedPublicOrigin;
}

let parsedPublicUrl: string | undefined;
let parsedPublicOrigin: string | null = null;

/**
 * Where to send a browser whose sign-in would be lost: it posted from a
 * plain-http page of this host (its Origin says so; the hop to us cannot,
 * which is plain HTTP behind a TLS proxy too) other than loopback, while the
 * session cookie is Secure (`secure`, isSecureRequest's answer), which such
 * a browser drops: it was signed in and landed back at sign-in with no word
 * why. PUBLIC_BASE_URL's origin when https, else the same host over https
 * (its http port says nothing of the https one). Null when the browser keeps
 * the cookie, sent no Origin (not a browser), or the page is another site's:
 * that one is refused as cross-site (isSameOriginRequest), not told to open
 * this service over https.
 */
export function httpsOriginForSignIn(
  url: string,
  headers: HeaderReader,
  secure: boolean,
  config: OriginConfig = getConfig(),
): string | null {
  if (!secure) return null;
  let origin: URL;
  try {
    origin = new URL(headers.get('origin') ?? '');
  } catch {
    return null;
  }
  if (origin.protocol !== 'http:' || keepsSecureCookiesOverHttp(origin.hostname)) return null;
  const configured = publicHttpsOrigin(config);
  // This host: the one the request names, or PUBLIC_BASE_URL's on any port
  // (a page opened past the proxy, whose Host it may rewrite).
  const thisHost =
    origin.host === requestHost(url, headers, config) ||
    (configured !== null && withoutRootDot(origin.hostname) === new URL(configured).hostname);
  if (!thisHost) return null;
  return configured ?? `https://${origin.hostname}`;
}

/** A hostname without the DNS root's trailing dot, which names the same host. */
function withoutRootDot(hostname: string): string {
  return hostname.endsWith('.') ? hostname.slice(0, -1) : hostname;
}

/** Where a sign-in may send the browser next: only a path on this site. */
export function safeNextPath(value: unknown): string {
  if (typeof value !== 'string') return '/';
  if (!value.startsWith('/') || value.startsWith('//') || value.startsWith('/\\')) return '/';
  if (value.length > 2048 || [...value].some((char) => char.charCodeAt(0) < 0x20)) return '/';
  // As the URL parser serializes it: percent-encoded ASCII. The raw text
  // goes into a Location header, where a character above U+00FF threw (a
  // 500 to a sign-in with ?q=日本 in its link) and one above U+007F went out
  // as a byte no browser reads as the user's text.
  const url = new URL(value, NEXT_PATH_BASE);
  if (url.origin !== NEXT_PATH_BASE) return '/';
  // The parser removes dot segments and reads `\` as `/`: `/.//evil.com` and
  // `/./\evil.com` come out as `//evil.com`, which a browser follows off the site.
  if (url.pathname.startsWith('//')) return '/';
  return url.pathname + url.search + url.hash;
}

const NEXT_PATH_BASE = 'http://next.invalid';
