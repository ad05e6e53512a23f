import http, { type IncomingMessage, type ServerResponse } from 'node:http';
import path from 'node:path';
import { finished } from 'node:stream';
import { MessageChannel, type MessagePort, Worker } from 'node:worker_threads';
import { getAuthState } from '@/lib/auth/shared-state';
import { serveAuthState } from '@/lib/auth/thread-auth-state';
import { processToken } from './front-door';

/**
 * Next (the dashboard) in a worker thread of server.ts's process, reached
 * over loopback HTTP from the main thread, which keeps the API's fast path.
 *
 * Why: on Node 20, Next's rendering uses AsyncLocalStorage, whose first
 * run() turns on promise hooks for the whole isolate; every promise of the
 * API's fast path then pays for them (about a fifth of its throughput once a
 * dashboard page has been served, `npm run bench`). A worker thread is its
 * own isolate, so the hooks stay there.
 *
 * What crosses: each request with the main thread's guard's facts header
 * (lib/http/front-door.ts: client address, TLS, request id, raw target),
 * which the worker trusts by the guard's token; the authentication state
 * (nonce counts, throttle, session revocations) stays the main thread's and
 * the worker calls it (lib/auth/thread-auth-state.ts), so a sign-out in the
 * dashboard ends the session for the API at once, and the sign-in throttle
 * counts every failure of the process. The worker opens its own store
 * connections; the main thread has already migrated the database.
 */

export type NextThread = {
  handle: (req: IncomingMessage, res: ServerResponse) => void;
  close: () => Promise<void>;
};

export type NextThreadOptions = {
  /** The public host and port, as Next would have been told without the thread. */
  hostname: string;
  port: number;
  /** The project directory (the one holding .next). */
  dir: string;
  maxHeaderSize: number;
  /** Answers a request the worker cannot (it has exited or dropped the connection). */
  answerUnavailable: (req: IncomingMessage, res: ServerResponse) => void;
  /** Answers a request whose body is over MAX_DASHBOARD_BODY_BYTES (413). */
  answerBodyTooLarge: (req: IncomingMessage, res: ServerResponse, maxBytes: number) => void;
};

/**
 * The most body a dashboard request may send (its routes take a few KB of
 * JSON: sign-in 8 KB, a saved view 16 KB). A route reads a body over its own
 * limit to the end before answering (lib/http/request.ts), so this bounds
 * what it reads for nothing; a longer one is refused here, its upstream
 * connection closed, never handed to the worker whole.
 */
export const MAX_DASHBOARD_BODY_BYTES = 64 * 1024;

/** How long the rest of a body no route reads is read and dropped before its connection is cut. */
const DISCARD_BODY_MS = 5_000;

/**
 * Reads the rest of a body the route will not read (refused with a 413, or
 * answered without reading it) and drops it, so the connection carries
 * the client's next request. Closed with the body still arriving, the
 * connection was reset by the kernel, and the reset threw away the 413
 * before the client read it (it saw EPIPE or ECONNRESET). A body still
 * arriving DISCARD_BODY_MS after the answer is cut: its client gets no more
 * of this server's time.
 */
function discardRestOfBody(req: IncomingMessage): void {
  req.resume();
  if (req.complete) return;
  const cut = setTimeout(() => req.socket.destroy(), DISCARD_BODY_MS);
  req.once('close', () => clearTimeout(cut));
}

/** What the worker posts once Next is prepared and its loopback server listens. */
export type NextThreadReady = { port: number };

export type NextThreadInput = Omit<
  NextThreadOptions,
  'answerUnavailable' | 'answerBodyTooLarge'
> & {
  token: string;
  authPort: MessagePort;
  authKind: 'memory' | 'redis';
};

const WORKER_FILE = path.join(__dirname, 'next-thread-worker.ts');

/**
 * The header limit of the hop to the worker, both ways: twice the public
 * limit and some. Going in, the guard's facts header repeats the
 * request-target (front-door.ts); coming back, a redirect's Location may
 * repeat it too (`/orgs/.?<16 KB>` answers 308 to `/orgs?<16 KB>`). At the
 * public limit (or Node's 16 KB default for responses) a URL the public
 * server accepted overflowed that hop: a 431 from the worker, or a dropped
 * response and a 503 where a 308 or 404 was due. Clients never reach the
 * loopback server; the public limit still holds for them.
 */
function loopbackHeaderLimit(publicLimit: number): number {
  return 2 * publicLimit + 8 * 1024;
}

/**
 * Headers of one connection, not of the message (RFC 9110 7.6.1): each hop
 * sets its own. `transfer-encoding` goes too: node:http frames the body again.
 */
const HOP_BY_HOP = new Set([
  'connection',
  'keep-alive',
  'proxy-connection',
  'transfer-encoding',
  'te',
  'trailer',
  'upgrade',
  // Met (or ignored) by the front server: Next's own server would answer an
  // unknown expectation 417 with an empty body.
  'expect',
]);

function endToEnd(headers: http.IncomingHttpHeaders): http.OutgoingHttpHeaders {
  const kept: http.OutgoingHttpHeaders = {};
  for (const [name, value] of Object.entries(headers)) {
    if (value !== undefined && !HOP_BY_HOP.has(name)) kept[name] = value;
  }
  return kept;
}

/** Starts the worker and resolves once Next is ready to answer. */
export async function startNextThread(options: NextThreadOptions): Promise<NextThread> {
  const auth = new MessageChannel();
  serveAuthState(auth.port1, getAuthState);
  const loopbackLimit = loopbackHeaderLimit(options.maxHeaderSize);
  const input: NextThreadInput = {
    hostname: options.hostname,
    port: options.port,
    dir: options.dir,
    maxHeaderSize: loopbackLimit,
    token: processToken(),
    authPort: auth.port2,
    authKind: getAuthState().kind,
  };
  // The worker is TypeScript: register tsx inside it before loading it.
  const worker = new Worker(
    `require('tsx/cjs/api').register(); require(${JSON.stringify(WORKER_FILE)});`,
    { eval: true, workerData: input, transferList: [auth.port2] },
  );
  const ready = await new Promise<NextThreadReady>((resolve, reject) => {
    worker.once('message', resolve);
    worker.once('error', reject);
    worker.once('exit', (code) => reject(new Error(`Next's thread exited (${code}) before ready`)));
  });
  let exited = false;
  worker.once('exit', () => {
    exited = true;
    auth.port1.close();
  });
  // Few sockets, kept: every dashboard request reuses one.
  const agent = new http.Agent({ keepAlive: true, maxSockets: 64 });

  const handle = (req: IncomingMessage, res: ServerResponse): void => {
    const unavailable = (error?: Error) => {
      // The client already gone (the upstream request was ended for it): nothing to say.
      if (res.destroyed || res.writableEnded) return;
      if (res.headersSent) res.destroy(error);
      else options.answerUnavailable(req, res);
    };
    if (exited) {
      unavailable();
      return;
    }
    const headers = endToEnd(req.headers);
    // A chunked body is framed again on this hop, and said so: for a GET,
    // HEAD, DELETE or OPTIONS, Node's client writes a body of no stated
    // length unframed, and Next's thread read it as a request of its own on
    // the kept-alive socket, whose answer then went to the next client
    // served over it.
    if (req.headers['transfer-encoding'] !== undefined) headers['transfer-encoding'] = 'chunked';
    const upstream = http.request(
      {
        agent,
        host: '127.0.0.1',
        port: ready.port,
        method: req.method,
        path: req.url,
        headers,
        maxHeaderSize: loopbackLimit,
      },
      (answer) => {
        res.writeHead(answer.statusCode ?? 502, endToEnd(answer.headers));
        answer.pipe(res);
        answer.on('error', unavailable);
        // Answered with the body still coming (a 401 before reading it): the
        // route reads no more of it. Relayed on, it stalled: once an answer
        // is complete Node's client no longer passes its socket's 'drain' on
        // to the request, so the first piece of body the socket could not
        // take at once (16 KB in one read) paused it for good, short of the
        // 64 KB that has it dropped below; the client's next request then
        // waited behind it until server.ts's body deadline cut the connection.
        answer.once('end', () => {
          if (!req.readableEnded) dropRestOfBody();
        });
      },
    );
    upstream.on('error', unavailable);
    // A client that resets mid-body: the upstream request goes with it.
    req.on('error', () => upstream.destroy());
    let bodyBytes = 0;
    /**
     * The route answered without reading the body all (a 401 before it):
     * that answer stands, relayed to its end, and the rest of the body is
     * dropped as a 413's is. Destroyed instead, the connection was reset
     * under the client still sending, which lost an answer not yet read,
     * and the connection with it; so was an answer still being relayed (the
     * worker's last chunk not yet in, which on a busy machine came after
     * the client's next 64 KB), cut short where no 413 can follow it.
     */
    let dropping = false;
    const dropRestOfBody = () => {
      if (dropping) return;
      dropping = true;
      req.off('data', countBody);
      req.unpipe(upstream);
      discardRestOfBody(req);
      // Its request is cut short on the loopback hop: that socket carries no other.
      finished(res, () => upstream.destroy());
    };
    const countBody = (chunk: Buffer) => {
      bodyBytes += chunk.length;
      if (bodyBytes <= MAX_DASHBOARD_BODY_BYTES) return;
      if (res.headersSent) {
        dropRestOfBody();
        return;
      }
      req.off('data', countBody);
      req.unpipe(upstream);
      upstream.destroy();
      options.answerBodyTooLarge(req, res, MAX_DASHBOARD_BODY_BYTES);
      discardRestOfBody(req);
    };
    req.on('data', countBody);
    // A client gone before the answer ends: stop the worker's work too.
    res.once('close', () => {
      if (!res.writableFinished) upstream.destroy();
    });
    req.pipe(upstream);
  };

  const close = async () => {
    agent.destroy();
    if (exited) return;
    const gone = new Promise<void>((resolve) => worker.once('exit', () => resolve()));
    worker.postMessage('close');
    // Next's own close is quick; a thread that does not answer is ended.
    const timer = setTimeout(() => void worker.terminate(), 5_000);
    await gone;
    clearTimeout(timer);
  };
  return { handle, close };
}
