import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorJson, unexpectedError } from '@/lib/domain/errors';
import { wireFactsOf } from '@/lib/http/front-door';
import { getLogger } from '@/lib/ops/log';
import { handleApiRequest, type ApiHandler } from './handler';
import { type ApiRequest, type ApiResponse, ClientStalledError, type StreamingBody } from './types';

/**
 * node:http <-> the API's request/response. Used by server.ts (the fast path
 * in front of Next) and by the benchmark's plain node:http baseline.
 */
export function toApiRequest(req: IncomingMessage): ApiRequest {
  const { headers } = req;
  const wire = wireFactsOf(req);
  return {
    method: req.method ?? 'GET',
    // The target as received: the front-door guard (if installed) rewrites req.url for Next.
    url: wire?.target ?? req.url ?? '/',
    headers: {
      get(name: string) {
        const value = headers[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(', ') : value;
      },
    },
    remoteAddress: req.socket.remoteAddress,
    requestId: wire?.requestId,
    encrypted: wire?.encrypted,
  };
}

export function writeApiResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: ApiResponse,
): void {
  if (response.stream) {
    void sendStream(req, res, response, response.stream);
    return;
  }
  const body = Buffer.from(response.body, 'utf8');
  const headers: string[] = [];
  for (const [name, value] of response.headers) headers.push(name, value);
  headers.push('Content-Length', String(body.length));
  res.writeHead(response.status, headers);
  // HEAD: the GET's headers (Content-Length included), no body.
  res.end(req.method === 'HEAD' ? undefined : body);
}

/** Resolves when the socket has taken what was written ('drain') or the response is gone. */
function drained(res: ServerResponse): Promise<void> {
  return new Promise((resolve) => {
    const done = () => {
      res.off('drain', done);
      res.off('close', done);
      resolve();
    };
    res.on('drain', done);
    res.on('close', done);
  });
}

/**
 * A streamed body (chunked): the next chunk is produced only once write()
 * took the previous one or the socket drained, so memory holds a chunk or
 * two whatever the size; a client gone ('close' before the end) cancels the
 * stream, ending the query behind it at once. A failure mid-way cannot
 * change the status any more: the connection is cut, so the client sees a
 * truncated body (and a count that does not match X-Total-Count).
 */
async function sendStream(
  req: IncomingMessage,
  res: ServerResponse,
  response: ApiResponse,
  stream: StreamingBody,
): Promise<void> {
  const headers: string[] = [];
  for (const [name, value] of response.headers) headers.push(name, value);
  res.writeHead(response.status, headers);
  // Nobody awaits a cancel from 'close': a failure is logged, never an
  // unhandled rejection (which ends the process).
  const cancel = () => {
    if (!res.writableFinished) stream.cancel().catch(logCancelFailure);
  };
  res.on('close', cancel);
  try {
    if (req.method === 'HEAD') return;
    for (;;) {
      const chunk = await stream.read();
      if (res.destroyed) return;
      if (chunk === null) break;
      // A client that stopped reading altogether never drains: the body's
      // idle limit (`stalled`) ends the wait, and the read below fails.
      if (!res.write(chunk)) await Promise.race([drained(res), stream.stalled ?? NEVER]);
    }
    res.end();
  } catch (error) {
    // The API handler's access log writes the request's line when its body
    // ends (lib/api/handler.ts loggedAtEnd): a failure there is logged once,
    // with its cause, as the outage (503, a warning) or the bug (500) it is.
    if (error instanceof ClientStalledError) {
      getLogger().warn(
        { err: error, requestId: wireFactsOf(req)?.requestId },
        'stream ended: client idle',
      );
    }
    res.destroy(error instanceof Error ? error : new Error(String(error)));
  } finally {
    res.off('close', cancel);
    if (!res.writableEnded) res.end();
    await stream.cancel().catch(logCancelFailure);
  }
}

const NEVER = new Promise<never>(() => undefined);

function logCancelFailure(error: unknown): void {
  getLogger().warn({ err: error }, 'ending a stream failed');
}

/** A node:http request listener serving the API. */
export function createNodeApiHandler(
  handler: ApiHandler = handleApiRequest,
): (req: IncomingMessage, res: ServerResponse) => void {
  return (req, res) => {
    handler(toApiRequest(req)).then(
      (response) => writeApiResponse(req, res, response),
      (error: unknown) => {
        // The handler maps every failure itself; this is the last line of defence.
        getLogger().error(
          { err: error, requestId: wireFactsOf(req)?.requestId },
          'adapter failure',
        );
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(errorJson(unexpectedError()));
      },
    );
  };
}
