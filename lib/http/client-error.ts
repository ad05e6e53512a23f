import { type ServerResponse, validateHeaderName, validateHeaderValue } from 'node:http';
import type { Socket } from 'node:net';
import { reasonPhrase } from '@/lib/domain/errors';
import { recordRequest } from '@/lib/ops/access-log';
import { requestIdFor } from '@/lib/ops/request-id';

/** What to answer a request the parser refused with: the service's error response for it. */
export type ParserRefusal = (parserCode: string | undefined) => {
  status: number;
  headers: readonly [string, string][];
  body: string;
};

/**
 * Left on a response by the front door, which logs its request when it
 * closes (front-door.ts's logWhenDone): the request's id and, once a
 * refusal of that request's body (it never came, or broke its framing) is
 * answered here by hand, the status sent. The request was logged twice
 * without it: the refusal under an id of its own, and a 499 "client
 * closed" for the response that never sent its own status line. Keyed in
 * the global symbol registry, as the front door's facts are: every bundle
 * loading these modules reads the same mark.
 */
const LOG_CLAIM_KEY = Symbol.for('org-events.request-logged-when-closed');
type LogClaim = { requestId: string; statusAnsweredByHand?: number };
type ClaimedResponse = ServerResponse & { [LOG_CLAIM_KEY]?: LogClaim };

/** The front door writes this response's log line, under `requestId`, when it closes. */
export function claimRequestLog(res: ServerResponse, requestId: string): void {
  (res as ClaimedResponse)[LOG_CLAIM_KEY] = { requestId };
}

/** The status a refusal answered by hand (answerClientError) sent for this response's request. */
export function statusAnsweredByHand(res: ServerResponse): number | undefined {
  return (res as ClaimedResponse)[LOG_CLAIM_KEY]?.statusAnsweredByHand;
}

/**
 * A request Node's HTTP parser refused before any handler saw it: headers
 * over the limit (431), a malformed request (400), one too slow to arrive
 * (408). Answered with the status Node answers by default and, as every
 * other error, the service's JSON error body (`answer`; Node sent none), and
 * logged and counted as every other request is.
 */
export function answerClientError(
  error: NodeJS.ErrnoException,
  socket: Socket,
  answer: ParserRefusal,
  method = '-',
): void {
  // The client left: nobody to answer.
  if (error.code === 'ECONNRESET' || !socket.writable) {
    socket.destroy();
    return;
  }
  // A response owed to a request pipelined before this one, begun or not (a
  // streamed page or export, or one awaiting authentication or the store):
  // written now, this answer would land inside it or be read as its answer.
  // Answered after it; Node's own handler destroys the socket instead, which
  // cut the good request's answer short.
  const inFlight = (socket as OwedSocket)._httpMessage;
  if (inFlight && !inFlight.writableFinished) {
    // Unless what was refused is that request's own body (a chunked body
    // whose framing breaks): it can never end, so its answer, waiting on it
    // (a sign-in, or any dashboard request passed on to Next's thread), never
    // came, nor did this one after it. That request is the malformed one:
    // refused now, or, its answer begun, the connection closed.
    if (inFlight.req && !inFlight.req.complete) {
      if (inFlight.headersSent) {
        socket.destroy();
        return;
      }
    } else {
      afterOwedResponses(socket, () => answerClientError(error, socket, answer, method));
      return;
    }
  }
  const { status, headers, body } = answer(error.code);
  // A response still owed here is the refused request's own, not begun: a
  // handler took the request and waits on its body. Whoever logs that
  // request logs this answer with it, once, under the request's id.
  const claim =
    inFlight && !inFlight.writableFinished
      ? (inFlight as ClaimedResponse)[LOG_CLAIM_KEY]
      : undefined;
  const requestId = claim?.requestId ?? requestIdFor(undefined);
  const head = [
    `HTTP/1.1 ${status} ${reasonPhrase(status)}`,
    // Written to the socket by hand: only what res.setHeader would take.
    ...[...headers, ['X-Request-Id', requestId] as const]
      .filter(([name, value]) => isValidHeader(name, value))
      .map(([name, value]) => `${name}: ${value}`),
    `Content-Length: ${Buffer.byteLength(body)}`,
    'Connection: close',
  ];
  // Before the socket can close, which is when the front door logs.
  if (claim) claim.statusAnsweredByHand = status;
  socket.end(`${head.join('\r\n')}\r\n\r\n${body}`);
  if (claim) return;
  recordRequest({
    requestId,
    method,
    route: 'unparsed',
    status,
    durationMs: 0,
    clientAddress: socket.remoteAddress,
  });
}

type OwedSocket = Socket & { _httpMessage?: ServerResponse | null };

/**
 * Runs `then` once the responses still owed on this connection (to requests
 * pipelined before the one being answered by hand) are written: an answer
 * written ahead of them is read as the first one's, and theirs are lost.
 * Node assigns the next owed response to the socket as one finishes. A
 * socket taken from the HTTP server (CONNECT) no longer tells its response
 * that it drained, so a response larger than its buffer (a piped page)
 * waited for ever: the socket's 'drain' is passed on here.
 */
export function afterOwedResponses(socket: Socket, then: () => void): void {
  const owed = () => {
    const message = (socket as OwedSocket)._httpMessage;
    return message && !message.writableFinished ? message : null;
  };
  if (!owed()) {
    then();
    return;
  }
  const drained = () => owed()?.emit('drain');
  socket.on('drain', drained);
  const next = () => {
    const message = owed();
    if (message) {
      message.once('finish', next);
      return;
    }
    socket.off('drain', drained);
    then();
  };
  next();
}

function isValidHeader(name: string, value: string): boolean {
  try {
    validateHeaderName(name);
    validateHeaderValue(name, value);
    return true;
  } catch {
    return false;
  }
}
