import { randomBytes } from 'node:crypto';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import type { TLSSocket } from 'node:tls';
import { nonApiRouteName, recordRequest } from '@/lib/ops/access-log';
import { observeAuthFailure, observeLockout } from '@/lib/ops/metrics';
import { REQUEST_ID_HEADER, requestIdFor } from '@/lib/ops/request-id';
import { HOST_COOKIE_PREFIX, OWN_COOKIE_PREFIX } from '@/lib/auth/cookie-names';
import { clientAddress } from './client-address';
import { claimRequestLog, statusAnsweredByHand } from './client-error';
import { contentSecurityPolicy, scriptNonce } from './content-security-policy';
import { isApiTarget, originForm } from './request-target';

/**
 * What only the node:http server knows about a request, and Next's route
 * handlers cannot see: the TCP peer and the request-target exactly as
 * received (Next hands route handlers a WHATWG-normalised URL, while a
 * Digest `uri` signs the target as sent).
 */
export type WireFacts = {
  remoteAddress: string | undefined;
  /** The request-target as received: origin form, or absolute form from a proxy. */
  target: string;
  /** X-Request-Id: the incoming one when sane, else generated (lib/ops/request-id.ts). */
  requestId: string;
  /** The connection is TLS (server.ts with TLS_CERT_FILE): links are https. */
  encrypted: boolean;
};

// Shared by every bundle that loads this module (server.ts under tsx, Next's
// instrumentation and route bundles) through globalThis.
const INSTALLED_KEY = Symbol.for('org-events.front-door-guard');
const TOKEN_KEY = Symbol.for('org-events.wire-token');
/** Where the guard leaves a request's facts on its IncomingMessage. */
const FACTS_KEY = Symbol.for('org-events.wire-facts');
type Holder = { [INSTALLED_KEY]?: boolean; [TOKEN_KEY]?: string };
type GuardedMessage = IncomingMessage & { [FACTS_KEY]?: WireFacts };

/**
 * The request header that carries the facts to Next's route handlers, which
 * see a Web Request, never the IncomingMessage. It starts with a random token
 * of this process, so a client that sends the header itself (the guard drops
 * it anyway) cannot pass for the guard.
 */
export const WIRE_FACTS_HEADER = 'x-org-events-wire';

/** The token of this process's guard (passed to Next's worker thread, which trusts it). */
export function processToken(): string {
  const holder = globalThis as Holder;
  return (holder[TOKEN_KEY] ??= randomBytes(18).toString('base64url'));
}

/**
 * In Next's worker thread (lib/http/next-thread.ts): requests reach this
 * thread's server only from the main thread, whose guard has already taken
 * their facts and put them in the facts header with `token`. Trust that
 * token, and keep instrumentation.ts's register() from guarding the loopback
 * server again (it would record the main thread as every request's peer).
 */
export function trustUpstreamGuard(token: string): void {
  const holder = globalThis as Holder;
  holder[TOKEN_KEY] = token;
  holder[INSTALLED_KEY] = true;
}

/**
 * The facts the guard recorded for a request (server.ts's fast path reads
 * them here), or undefined when it did not see it.
 *
 * Why not AsyncLocalStorage: on Node 20 its first run() turns on promise
 * hooks for the whole process, which cost the fast path a third of its
 * throughput (bench/api.ts); the facts travel with the request instead.
 */
export function wireFactsOf(req: IncomingMessage): WireFacts | undefined {
  return (req as GuardedMessage)[FACTS_KEY];
}

/**
 * The facts of a request Next hands a route handler, or undefined when the
 * guard did not see it (one that arrived while `next start` was still
 * booting, before instrumentation ran) or the header is not the guard's.
 */
export function wireFactsFromHeaders(headers: {
  get(name: string): string | null;
}): WireFacts | undefined {
  const value = headers.get(WIRE_FACTS_HEADER);
  if (!value) return undefined;
  // token remoteAddress encrypted requestId target (the target last: it is
  // the only field that may hold anything but a fixed alphabet).
  const parts = value.split(' ');
  if (parts.length < 5 || parts[0] !== processToken()) return undefined;
  const [, remote, encrypted, requestId] = parts as [string, string, string, string];
  return {
    remoteAddress: remote === '-' ? undefined : remote,
    encrypted: encrypted === '1',
    requestId,
    target: parts.slice(4).join(' '),
  };
}

function wireFactsHeader(wire: WireFacts): string {
  const remote = wire.remoteAddress || '-';
  return `${processToken()} ${remote} ${wire.encrypted ? 1 : 0} ${wire.requestId} ${wire.target}`;
}

/**
 * Without a trusted proxy, forwarding headers are whatever the client typed:
 * X-Forwarded-For becomes the TCP peer (Next and the sign-in route read the
 * client address from it; Next only fills it in when absent) and the
 * forwarded host and protocol go.
 */
export function forgetUntrustedForwarding(req: IncomingMessage): void {
  req.headers['x-forwarded-for'] = req.socket.remoteAddress ?? '';
  delete req.headers['x-forwarded-host'];
  delete req.headers['x-forwarded-proto'];
}

export type FrontDoorOptions = {
  /** TRUST_PROXY: keep X-Forwarded-* as received. */
  trustProxy: boolean;
  /**
   * The target Next should route by (req.url), given the origin form of the
   * received one. The received target stays in the wire facts.
   */
  routeForNext?: (originFormTarget: string) => string;
  /**
   * Routed targets answered before Next (server.ts's fast path): they need
   * no facts header, which only Next's route handlers read.
   */
  answeredBeforeNext?: (routedTarget: string) => boolean;
  /**
   * Targets whose handler writes its own log line (the API's); the guard
   * logs every other request (dashboard, probes, assets) when it finishes.
   */
  logsItself?: (target: string) => boolean;
  /**
   * Routed targets of the dashboard: each gets the Content-Security-Policy
   * with a nonce of its own (withContentSecurityPolicy). By default every
   * one but the API's, which keeps the hosted service's own headers.
   */
  isDashboardTarget?: (routedTarget: string) => boolean;
};

function headerReader(req: IncomingMessage) {
  return {
    get(name: string): string | null {
      const value = req.headers[name.toLowerCase()];
      if (value === undefined) return null;
      return Array.isArray(value) ? value.join(', ') : value;
    },
  };
}

/**
 * A dashboard sign-in refused for its key (401, or the no-JavaScript form's
 * 303 back with the reason) or locked out (429): counted in the auth metrics
 * as Digest's refusals are. Next's thread answers it, and its metrics are
 * its own; this thread serves /metrics.
 */
function countRefusedSignIn(req: IncomingMessage, res: ServerResponse, path: string): void {
  if (req.method !== 'POST' || (path !== '/api/session' && path !== '/api/session/')) return;
  // The form's refusal goes back to the form with its reason first; a
  // successful one goes to `next`, which may hold any query of the user's.
  const location = String(res.getHeader('location') ?? '');
  const formError = /^\/sign-in\?error=([A-Z_]+)/.exec(location)?.[1];
  if (res.statusCode === 429 || formError === 'RATE_LIMITED') observeLockout();
  else if (res.statusCode === 401 || formError === 'INVALID_CREDENTIALS') {
    observeAuthFailure('dashboard sign-in');
  }
}

/** One log line (and the request metrics) for a request the guard saw through. */
function logWhenDone(req: IncomingMessage, res: ServerResponse, wire: WireFacts, trust: boolean) {
  const started = performance.now();
  res.once('close', () => {
    const path = originForm(wire.target).split(/[?#]/, 1)[0] || '/';
    if (res.headersSent) countRefusedSignIn(req, res, path);
    recordRequest({
      requestId: wire.requestId,
      method: (req.method ?? 'GET').slice(0, 16),
      route: nonApiRouteName(path),
      // A response cut short (client gone, server closing) never got a
      // status line, but for a refusal of its body answered by hand.
      status: res.headersSent ? res.statusCode : (statusAnsweredByHand(res) ?? 499),
      durationMs: performance.now() - started,
      clientAddress: clientAddress(
        { headers: headerReader(req), remoteAddress: wire.remoteAddress },
        trust,
      ),
      path: path.length > 200 ? `${path.slice(0, 200)}…` : path,
    });
  });
}

/**
 * Every cookie this service sets is named so (the session, the dashboard's
 * time zone), or so after `__Host-` (the session over HTTPS,
 * lib/auth/cookie-names.ts): dropped as another's, a browser's session beside
 * its zone cookie never reached a page or sign-out, and every page sent a
 * signed-in user to sign-in.
 */
const OWN_COOKIE_PREFIXES = [OWN_COOKIE_PREFIX, `${HOST_COOKIE_PREFIX}${OWN_COOKIE_PREFIX}`];

/**
 * Drops the cookies that are not this service's from a request bound for
 * Next, whose route handlers spend time quadratic in the number of cookies
 * (each is set again into a jar that rewrites all the others): 3,000 cookies,
 * 26 KB of header, held the dashboard's thread for 13 s. Others' cookies
 * (a shared domain) mean nothing here.
 */
function keepOwnCookies(req: IncomingMessage): void {
  const header = req.headers.cookie;
  if (header === undefined || !header.includes(';')) return;
  const own = header
    .split(';')
    .map((pair) => pair.trim())
    .filter((pair) => OWN_COOKIE_PREFIXES.some((prefix) => pair.startsWith(prefix)));
  if (own.length > 0) req.headers.cookie = own.join('; ');
  else delete req.headers.cookie;
}

/**
 * A fresh nonce and the dashboard's policy naming it
 * (lib/http/content-security-policy.ts), on the request bound for Next,
 * whose app-render reads the nonce from there and puts it on every script it
 * writes, and on the response. Here rather than in a Next `proxy.ts` (Next
 * 16's documented place): every dashboard request already passes this guard
 * before Next, however the service is served (server.ts's thread, `next
 * start`, `next dev`), and it already shapes what Next sees (the facts
 * header, the cookies kept); a proxy would add a step of Next's own, with
 * its request and response objects, to every page, asset and route request
 * in Next's thread, and a matcher of its own to keep it off the API. A
 * policy a client sent in the request is replaced: its nonce is no nonce of ours.
 */
function withContentSecurityPolicy(req: IncomingMessage, res: ServerResponse): void {
  const policy = contentSecurityPolicy(scriptNonce());
  req.headers['content-security-policy'] = policy;
  res.setHeader('Content-Security-Policy', policy);
}

/**
 * Makes every node:http server of this process (server.ts's, and the one
 * `next start`/`next dev` create) record each request's wire facts before any
 * listener runs, and, unless a proxy is trusted, forget untrusted forwarding
 * headers. Route handlers cannot reach the socket; this is the one place
 * that can. Next answers an absolute-form target (RFC 9112 says servers must
 * accept it) with a 308 to itself, so req.url becomes its origin form.
 * It also gives every request its id (X-Request-Id) and, for what the API
 * handler does not log itself, one log line with status and duration when
 * the response is done. Patches https.Server too (TLS_CERT_FILE).
 * Installed by server.ts before it listens and by instrumentation.ts's
 * register() (a no-op when server.ts already did).
 */
export function installFrontDoorGuard(options: FrontDoorOptions): void {
  const holder = globalThis as Holder;
  if (holder[INSTALLED_KEY]) return;
  holder[INSTALLED_KEY] = true;
  const isDashboardTarget = options.isDashboardTarget ?? ((target) => !isApiTarget(target));
  type Emit = (this: http.Server, event: string | symbol, ...args: unknown[]) => boolean;
  const guard = (emit: Emit): Emit =>
    function (event, ...args) {
      if (event !== 'request') return emit.call(this, event, ...args);
      const req = args[0] as IncomingMessage;
      const res = args[1] as ServerResponse;
      const target = req.url ?? '/';
      const wire: WireFacts = {
        remoteAddress: req.socket.remoteAddress,
        target,
        requestId: requestIdFor(headerReader(req).get(REQUEST_ID_HEADER)),
        encrypted: (req.socket as TLSSocket).encrypted === true,
      };
      const routed = originForm(target);
      req.url = options.routeForNext ? options.routeForNext(routed) : routed;
      if (!options.trustProxy) forgetUntrustedForwarding(req);
      (req as GuardedMessage)[FACTS_KEY] = wire;
      // Whatever a client sent under this name is not the guard's.
      delete req.headers[WIRE_FACTS_HEADER];
      // Judged on the routed target, as server.ts's listener judges it.
      if (!options.answeredBeforeNext?.(req.url)) {
        req.headers[WIRE_FACTS_HEADER] = wireFactsHeader(wire);
        keepOwnCookies(req);
        if (isDashboardTarget(req.url)) withContentSecurityPolicy(req, res);
        // Read by Next's pages for their nonce (above): only ever ours.
        else delete req.headers['content-security-policy'];
      }
      if (!options.logsItself?.(target)) {
        res.setHeader(REQUEST_ID_HEADER, wire.requestId);
        claimRequestLog(res, wire.requestId);
        logWhenDone(req, res, wire, options.trustProxy);
      }
      return emit.call(this, event, ...args);
    };
  // https.Server is no http.Server subclass: it inherits emit from EventEmitter.
  for (const Server of [http.Server, https.Server]) {
    // Called with the server as `this` by guard().
    const emit = Server.prototype.emit as Emit;
    Server.prototype.emit = guard(emit) as typeof Server.prototype.emit;
  }
}
