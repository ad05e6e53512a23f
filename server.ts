/**
 * The production server (`npm start`): a custom Next.js server whose API
 * routes skip Next entirely. Requests under /api/public/v1.0/ go straight to
 * the framework-free handler in lib/api (the fast path: Next's per-request
 * machinery costs several times the API's own work); everything else (the
 * dashboard) is Next's, in a worker thread of this process
 * (lib/http/next-thread.ts: Next's promise hooks would otherwise slow every
 * API promise). The Next route handlers under app/api/public call the same
 * handler through the same route table, so `next start` serves the same API,
 * only slower (tests/api/parity.test.ts compares the two).
 *
 * It also answers GET /healthz, /readyz and /metrics (lib/ops) before Next,
 * writes one JSON log line per request (lib/ops/log.ts), listens with HTTPS
 * when TLS_CERT_FILE and TLS_KEY_FILE are set, and on SIGTERM or SIGINT
 * finishes in-flight requests and exits. `npm start` execs node (see
 * package.json) so the signal npm forwards reaches this process.
 *
 * Environment: PORT (default 3000; 0 picks a free port), HOSTNAME (default
 * 0.0.0.0), DATABASE_URL and the rest of lib/config.ts.
 */
import { createPrivateKey, X509Certificate } from 'node:crypto';
import fs from 'node:fs';
import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import https from 'node:https';
import tls from 'node:tls';
import type { AddressInfo, Socket } from 'node:net';
import path from 'node:path';
import { getBuildInfo, staleBuildReason } from '@/lib/api/build-info';
import { errorResponse } from '@/lib/api/handler';
import { PLAIN_FORMAT } from '@/lib/api/types';
import { createNodeApiHandler, writeApiResponse } from '@/lib/api/node-adapter';
import { isApiTarget, nextRoutingTarget } from '@/lib/api/routes';
import {
  assertServesSealedKeys,
  secureSecretsAtOpen,
  unsealedKeysWarning,
} from '@/lib/auth/ha1-at-rest';
import { secretSource, warnIfSecretMissing } from '@/lib/auth/secrets';
import { warmAuthState } from '@/lib/auth/shared-state';
import { getConfig, type Config } from '@/lib/config';
import {
  bodyTooLarge,
  malformedPath,
  methodNeverServed,
  methodNotAllowedHere,
  routeNotFound,
  serviceUnavailable,
  unreadableRequest,
} from '@/lib/domain/errors';
import { isPortText } from '@/lib/domain/limits';
import { afterOwedResponses, answerClientError } from '@/lib/http/client-error';
import { installFrontDoorGuard } from '@/lib/http/front-door';
import { startNextThread } from '@/lib/http/next-thread';
import { splitTarget } from '@/lib/http/request-target';
import { recordRequest } from '@/lib/ops/access-log';
import { flushLog, getLogger } from '@/lib/ops/log';
import { REQUEST_ID_HEADER, requestIdFor } from '@/lib/ops/request-id';
import { failStart } from '@/lib/ops/start-failure';
import { metricsAnswer } from '@/lib/ops/metrics';
import { healthzAnswer, markDraining, readyzAnswer, type ProbeAnswer } from '@/lib/ops/probes';
import { setStoreLogger, waitForStore } from '@/lib/store';
import { MIGRATION_NAMES } from '@/lib/store/migrations';

const SHUTDOWN_GRACE_MS = 10_000;
/**
 * Node's default (16 KB for the request line and all headers together)
 * refuses a 16 KB URL, and a Digest Authorization header repeats the URL in
 * its `uri`: 64 KB fits both, with room for cookies.
 */
const MAX_HEADER_BYTES = 64 * 1024;

/**
 * How long a request that declares a body (Content-Length, or chunked) may
 * take to send all of it once its headers are in: the API takes no body and
 * the dashboard's routes at most 64 KB (lib/http/next-thread.ts), which
 * needs 6.4 KB/s. Without it, one that never sent its body held its
 * connection, and its route waiting on the body, for Node's requestTimeout:
 * 5 minutes, checked every 30 s.
 */
const BODY_TIMEOUT_MS = 10_000;

/** The operations endpoints, answered before Next and outside the API's authentication. */
const OPS_ROUTES: Record<string, (req: IncomingMessage) => ProbeAnswer | Promise<ProbeAnswer>> = {
  '/healthz': () => healthzAnswer(),
  '/readyz': () => readyzAnswer(),
  '/metrics': (req) => metricsAnswer(req.headers.authorization ?? null),
};

/** The methods Next's route handlers know; any other is no method of this server. */
const NEXT_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

function opsRoute(req: IncomingMessage) {
  if (req.method !== 'GET' && req.method !== 'HEAD') return undefined;
  return OPS_ROUTES[splitTarget(req.url ?? '/').path];
}

function writeAnswer(req: IncomingMessage, res: ServerResponse, answer: ProbeAnswer): void {
  const body = Buffer.from(answer.body, 'utf8');
  for (const [name, value] of answer.headers) res.setHeader(name, value);
  res.setHeader('Content-Length', body.length);
  res.writeHead(answer.status);
  res.end(req.method === 'HEAD' ? undefined : body);
}

/**
 * What Next would have served is not here (SERVE=api), or the target is no
 * path at all (`OPTIONS *`, the asterisk form): the API's 404.
 */
function answerNotServedHere(req: IncomingMessage, res: ServerResponse): void {
  const notHere = routeNotFound(splitTarget(req.url ?? '/').path);
  writeApiResponse(req, res, errorResponse(notHere, PLAIN_FORMAT));
}

/** The error body of a request the server cannot read (the parser's `code`, when it gave one). */
function unreadableAnswer(code: string | undefined) {
  return errorResponse(unreadableRequest(code, MAX_HEADER_BYTES), PLAIN_FORMAT);
}

/**
 * An HTTP/1.1 request without Host is malformed (RFC 9112 §3.2: a 400), and
 * links built from Host would point nowhere: refused before any route, as
 * Node refused it, with the body a request the parser cannot read gets.
 */
function answerWithoutHost(req: IncomingMessage, res: ServerResponse): void {
  const started = performance.now();
  const response = unreadableAnswer(undefined);
  const requestId = requestIdFor(undefined);
  response.headers.push([REQUEST_ID_HEADER, requestId], ['Connection', 'close']);
  writeApiResponse(req, res, response);
  recordRequest({
    requestId,
    method: req.method?.slice(0, 16) ?? '-',
    route: 'unparsed',
    status: response.status,
    durationMs: performance.now() - started,
    clientAddress: req.socket.remoteAddress,
  });
}

/**
 * A body not in BODY_TIMEOUT_MS after the headers: 408 REQUEST_TIMEOUT and
 * the connection closed, as Node's own requestTimeout answers (through
 * answerClientError, which gives the route waiting on the body up with its
 * connection). A request already answered (the API reads no body) has its
 * connection closed without a word: the rest will not come.
 */
function limitBodyWait(req: IncomingMessage, res: ServerResponse): void {
  const declared =
    req.headers['transfer-encoding'] !== undefined || Number(req.headers['content-length']) > 0;
  if (!declared) return;
  const timer = setTimeout(() => {
    if (req.complete || req.socket.destroyed) return;
    if (res.writableFinished) {
      req.socket.destroy();
      return;
    }
    const late = Object.assign(new Error('request body timed out'), {
      code: 'ERR_HTTP_REQUEST_TIMEOUT',
    });
    answerClientError(late, req.socket, unreadableAnswer, req.method?.slice(0, 16));
  }, BODY_TIMEOUT_MS);
  req.once('close', () => clearTimeout(timer));
}

/** Whether every percent-escape of a path decodes (to UTF-8), as Next's routing requires. */
function isDecodable(path: string): boolean {
  try {
    decodeURIComponent(path);
    return true;
  } catch {
    return false;
  }
}

/** Next's thread has exited or dropped the connection: the dashboard is down, not the process. */
function answerDashboardUnavailable(req: IncomingMessage, res: ServerResponse): void {
  const down = serviceUnavailable('the dashboard thread is not answering', 5);
  writeApiResponse(req, res, errorResponse(down, PLAIN_FORMAT));
}

/** A dashboard request with more body than any of its routes takes (lib/http/next-thread.ts). */
function answerDashboardBodyTooLarge(
  req: IncomingMessage,
  res: ServerResponse,
  maxBytes: number,
): void {
  // The rest of the body is read and dropped (lib/http/next-thread.ts): the
  // connection stays open for the client's next request.
  writeApiResponse(req, res, errorResponse(bodyTooLarge(maxBytes), PLAIN_FORMAT));
}

/**
 * A TLS PEM file, read and parsed: what cannot be read or is no PEM of its
 * kind is named by its variable (OpenSSL's own words, such as "PEM
 * routines::no start line", named neither the variable nor the file).
 */
function readTlsFile(
  variable: 'TLS_CERT_FILE' | 'TLS_KEY_FILE',
  file: string,
  parse: (pem: Buffer) => unknown,
): Buffer {
  let pem: Buffer;
  try {
    pem = fs.readFileSync(file);
  } catch (error) {
    throw new Error(`${variable} ${file} cannot be read: ${(error as Error).message}`);
  }
  try {
    parse(pem);
  } catch (error) {
    const kind = variable === 'TLS_CERT_FILE' ? 'a PEM certificate' : 'a PEM private key';
    throw new Error(`${variable} ${file} is not ${kind}: ${(error as Error).message}`);
  }
  return pem;
}

type TlsFiles = { cert: Buffer; key: Buffer };

/**
 * The certificate and key when TLS_CERT_FILE and TLS_KEY_FILE are set, read
 * and checked as a pair. Read before the database wait: a wrong file was
 * named only once the database had been waited for (DATABASE_WAIT_SECONDS).
 */
function readTlsFiles(config: Config): TlsFiles | undefined {
  if (!config.TLS_CERT_FILE !== !config.TLS_KEY_FILE) {
    throw new Error('TLS_CERT_FILE and TLS_KEY_FILE must be set together');
  }
  if (!config.TLS_CERT_FILE || !config.TLS_KEY_FILE) return undefined;
  const cert = readTlsFile(
    'TLS_CERT_FILE',
    config.TLS_CERT_FILE,
    (pem) => new X509Certificate(pem),
  );
  const key = readTlsFile('TLS_KEY_FILE', config.TLS_KEY_FILE, (pem) => createPrivateKey(pem));
  try {
    tls.createSecureContext({ cert, key });
  } catch (error) {
    throw new Error(
      `TLS_CERT_FILE and TLS_KEY_FILE are not a certificate and its private key: ${(error as Error).message}`,
    );
  }
  return { cert, key };
}

/** HTTPS with the configured certificate and key (readTlsFiles), else HTTP. */
function createServer(
  tlsFiles: TlsFiles | undefined,
  listener: http.RequestListener,
): http.Server | https.Server {
  // requireHostHeader off: Node's own check answered a bare 400 with no body
  // before the listener or 'clientError' saw the request; answerWithoutHost
  // gives the same 400 in the service's error body.
  const options = { maxHeaderSize: MAX_HEADER_BYTES, requireHostHeader: false };
  return tlsFiles
    ? https.createServer({ ...options, ...tlsFiles }, listener)
    : http.createServer(options, listener);
}

async function main(): Promise<void> {
  // Next and React pick their production builds from NODE_ENV when loaded.
  (process.env as Record<string, string | undefined>).NODE_ENV = 'production';
  // Digits only: parseInt read PORT=3e3 as 3 and PORT=3302abc as 3302: a
  // server on a port nobody asked for.
  const portText = process.env.PORT?.trim() || '3000';
  if (!isPortText(portText)) {
    throw new Error(`PORT must be an integer from 0 to 65535, got ${process.env.PORT}`);
  }
  const port = Number(portText);
  const hostname = process.env.HOSTNAME || '0.0.0.0';

  const config = getConfig(); // fail fast on bad configuration
  const tlsFiles = readTlsFiles(config);
  const log = getLogger();
  // Startup and shutdown lines are few and what an operator (and the test
  // helpers, which wait for "ready on") must see at any LOG_LEVEL but silent.
  const lifecycle = config.LOG_LEVEL === 'silent' ? log : log.child({}, { level: 'info' });
  // Before Next loads (its instrumentation installs the same guard, a no-op
  // then) and before we listen: no request is ever seen unguarded. Without a
  // trusted proxy, what a client sends in X-Forwarded-For never reaches Next
  // (it would dodge the sign-in throttle); the fast path reads the socket.
  installFrontDoorGuard({
    trustProxy: config.TRUST_PROXY,
    routeForNext: nextRoutingTarget,
    logsItself: isApiTarget,
    answeredBeforeNext: isApiTarget,
  });
  // What the store survives (a pool connection lost while idle) goes to the
  // log like everything else: it went to stderr in a shape of its own, at any LOG_LEVEL.
  setStoreLogger(log);
  // Opens and migrates before we accept traffic, waiting a while for a
  // database that is not up yet instead of exiting at once.
  const store = await waitForStore(config.DATABASE_WAIT_SECONDS, (wait) =>
    lifecycle.warn(
      {
        attempt: wait.attempt,
        retryInMs: Math.round(wait.pauseMs),
        leftMs: Math.round(wait.leftMs),
      },
      `Waiting for the database (DATABASE_WAIT_SECONDS=${config.DATABASE_WAIT_SECONDS}): ${wait.reason}`,
    ),
  );
  // Where the secret is kept in the database (PostgreSQL without
  // ORG_EVENTS_SECRET), a copy of the database alone holds the keys to the API.
  warnIfSecretMissing(store, true, (message) => lifecycle.warn(message));
  await assertServesSealedKeys(store); // a replica with another secret locked keys out everywhere
  const secret = secretSource(store);
  if (secret.kind === 'file') {
    lifecycle.info(
      { secretFile: secret.path },
      'ORG_EVENTS_SECRET is not set: the server secret is the file beside the database. Keep it apart from copies of the database, which grant nothing without it; a database restored elsewhere needs it.',
    );
  }
  // Keys stored plain are sealed now, not when someone thinks of `keys rehash`.
  for (const note of await secureSecretsAtOpen(store, { servesWithSecret: true })) {
    lifecycle[note.level](note.message);
  }
  const unsealed = await unsealedKeysWarning(store);
  if (unsealed) lifecycle.warn(unsealed);
  await warmAuthState(); // with REDIS_URL: connected before the first nonce is issued

  if (config.SERVE === 'all') {
    const stale = staleBuildReason(getBuildInfo().migrations, MIGRATION_NAMES);
    if (stale) throw new Error(stale);
  }
  // The dashboard in its own thread: Next's promise hooks stay out of the fast path's isolate.
  const dashboard =
    config.SERVE === 'all'
      ? await startNextThread({
          hostname,
          port,
          dir: path.resolve(__dirname),
          maxHeaderSize: MAX_HEADER_BYTES,
          answerUnavailable: answerDashboardUnavailable,
          answerBodyTooLarge: answerDashboardBodyTooLarge,
        })
      : undefined;
  const handleNext = dashboard?.handle ?? answerNotServedHere;
  const handleApi = createNodeApiHandler();

  const server = createServer(tlsFiles, (req, res) => {
    limitBodyWait(req, res);
    if (req.httpVersion === '1.1' && req.headers.host === undefined) {
      answerWithoutHost(req, res);
      return;
    }
    if (isApiTarget(req.url)) {
      handleApi(req, res);
      return;
    }
    const ops = opsRoute(req);
    if (ops) {
      void Promise.resolve(ops(req)).then(
        (answer) => writeAnswer(req, res, answer),
        (error: unknown) => {
          log.error({ err: error, path: req.url }, 'operations endpoint failed');
          writeAnswer(req, res, { status: 500, headers: [], body: '' });
        },
      );
      return;
    }
    // Next cannot read a target that is no path (`*`) as a URL: it answered 500.
    if (!req.url?.startsWith('/')) {
      answerNotServedHere(req, res);
      return;
    }
    // Nor build a request (undici's) with TRACE, which the Fetch standard
    // forbids: a 500 too. A method Node's parser reads that Next's routes do
    // not know (PROPFIND, QUERY, PURGE…) got an empty 400 from a route and a
    // page rendered as for GET: refused alike. (Node's parser refuses TRACK
    // itself, and CONNECT never reaches this listener: see 'connect' below.)
    if (!NEXT_METHODS.has(req.method ?? '')) {
      writeApiResponse(req, res, errorResponse(methodNeverServed(req.method ?? ''), PLAIN_FORMAT));
      return;
    }
    // Nor decode a malformed percent-escape (`/orgs/%/events`): a 500 as well.
    const { path } = splitTarget(req.url);
    if (!isDecodable(path)) {
      writeApiResponse(req, res, errorResponse(malformedPath(path), PLAIN_FORMAT));
      return;
    }
    // A page or a static file answers GET and HEAD; Next answered OPTIONS on
    // one with an empty 400. (The dashboard's /api routes name their own.)
    if (req.method === 'OPTIONS' && !path.startsWith('/api/')) {
      const refused = methodNotAllowedHere(req.method, ['GET', 'HEAD']);
      writeApiResponse(req, res, errorResponse(refused, PLAIN_FORMAT));
      return;
    }
    // Next's own failures are answered and logged in its thread (next-thread-worker.ts).
    handleNext(req, res);
  });
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) =>
    answerClientError(error, socket, unreadableAnswer),
  );
  // CONNECT (a proxy's tunnel) is no method of this server: without a
  // listener Node dropped the connection without a word. The socket is no
  // longer the HTTP server's (its error listener went with it).
  // Requests pipelined before it are answered first.
  server.on('connect', (_req: IncomingMessage, socket: Socket) => {
    socket.on('error', () => socket.destroy());
    afterOwedResponses(socket, () =>
      answerClientError(
        Object.assign(new Error('CONNECT'), { code: 'CONNECT' }),
        socket,
        () => errorResponse(methodNeverServed('CONNECT'), PLAIN_FORMAT),
        'CONNECT',
      ),
    );
  });
  // An expectation other than 100-continue is ignored and the request
  // served (RFC 9110 §10.1.1 allows either): Node's own 417 had an empty
  // body, no request id and no log line.
  server.on('checkExpectation', (req: IncomingMessage, res: ServerResponse) =>
    server.emit('request', req, res),
  );
  server.keepAliveTimeout = 65_000; // outlive common proxies' idle timeouts
  server.headersTimeout = 66_000; // must exceed keepAliveTimeout

  await new Promise<void>((resolve, reject) => {
    // Node's words ("listen EADDRINUSE …", "getaddrinfo ENOTFOUND …") name no setting.
    server.once('error', (error) =>
      reject(
        new Error(`Cannot listen on ${hostname} port ${port} (HOSTNAME, PORT): ${error.message}`),
      ),
    );
    server.listen(port, hostname, resolve);
  });
  const address = server.address() as AddressInfo;
  const shownHost = address.family === 'IPv6' ? `[${address.address}]` : address.address;
  const scheme = server instanceof https.Server ? 'https' : 'http';
  // tests/helpers/server.ts and bench/lib/servers.ts read the URL from this line.
  lifecycle.info(
    {
      url: `${scheme}://${shownHost}:${address.port}`,
      variant: config.EVENTS_VARIANT,
      serve: config.SERVE,
    },
    `org-events ready on ${scheme}://${shownHost}:${address.port} (${config.EVENTS_VARIANT}, ${store.dialect}${config.SERVE === 'api' ? ', API only' : ''})`,
  );

  let stopping = false;
  let draining: NodeJS.Timeout | undefined;
  const shutdown = (signal: NodeJS.Signals) => {
    if (draining) {
      // A second signal while draining: stop now.
      clearTimeout(draining);
      draining = undefined;
      stop(signal);
      return;
    }
    if (stopping) return;
    stopping = true;
    markDraining();
    const drainMs = config.SHUTDOWN_DRAIN_SECONDS * 1000;
    if (drainMs > 0) {
      // Still serving, /readyz 503: a load balancer polling it stops sending
      // new requests here before the port closes (which would refuse them).
      lifecycle.info(
        { signal, drainSeconds: config.SHUTDOWN_DRAIN_SECONDS },
        `draining: serving ${config.SHUTDOWN_DRAIN_SECONDS} s more with /readyz answering 503, then closing the port`,
      );
      draining = setTimeout(() => {
        draining = undefined;
        stop(signal);
      }, drainMs);
    } else stop(signal);
  };
  const stop = (signal: string) => {
    // One more signal from here ends the process at once (Node's default).
    process.off('SIGTERM', shutdown);
    process.off('SIGINT', shutdown);
    lifecycle.info({ signal }, 'finishing in-flight requests');
    const force = setTimeout(() => {
      log.warn('shutdown timed out; closing remaining connections');
      server.closeAllConnections();
    }, SHUTDOWN_GRACE_MS);
    force.unref();
    server.close(() => {
      void (async () => {
        await dashboard?.close().catch(() => undefined);
        await store.close().catch(() => undefined);
        clearTimeout(force);
        lifecycle.info('stopped');
        flushLog();
        process.exit(0);
      })();
    });
    server.closeIdleConnections();
  };
  process.on('SIGTERM', shutdown);
  process.on('SIGINT', shutdown);
}

main().catch(failStart);
