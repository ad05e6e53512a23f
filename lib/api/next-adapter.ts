import { getConfig } from '@/lib/config';
import { lastForwardedFor } from '@/lib/http/client-address';
import { wireFactsFromHeaders } from '@/lib/http/front-door';
import { handleApiRequest } from './handler';
import type { StreamingBody } from './types';

/**
 * Next.js route handlers (Web Request/Response) <-> the API, so that
 * `next start` and `next dev` serve the API as server.ts's fast path does.
 *
 * Route handlers cannot see the socket, and Next gives them a normalised URL.
 * The front-door guard (lib/http/front-door.ts, installed by
 * instrumentation.ts) passes the TCP peer and the request-target as
 * received in a request header only it can write, so the handler gets what the fast path gets: the target a Digest
 * `uri` signed, and an address a client cannot choose. A request the guard
 * did not see (one that arrived while Next was still booting) gets the
 * forwarded address only when a proxy is trusted, otherwise none: it shares
 * the throttle's "unknown address" budget rather than picking its own.
 */
export async function handleNextRequest(request: Request): Promise<Response> {
  const wire = wireFactsFromHeaders(request.headers);
  const url = new URL(request.url);
  const response = await handleApiRequest({
    method: request.method,
    url: wire?.target ?? `${url.pathname}${url.search}`,
    headers: request.headers,
    remoteAddress: wire
      ? wire.remoteAddress
      : getConfig().TRUST_PROXY
        ? lastForwardedFor(request.headers)
        : undefined,
    requestId: wire?.requestId,
    encrypted: wire?.encrypted,
  });
  // Next drops Content-Length (it streams every route handler's body) and
  // puts its own Vary values before ours; tests/api/parity.test.ts lists
  // what differs from the fast path and what does not.
  if (response.stream && request.method === 'HEAD') await response.stream.cancel();
  const body =
    request.method === 'HEAD'
      ? null
      : response.stream
        ? readableStream(response.stream)
        : response.body;
  return new Response(body, {
    status: response.status,
    headers: response.headers,
  });
}

/**
 * A streamed body as a web stream: pulled a chunk at a time as Next sends it
 * (backpressure), cancelled when the client goes away.
 */
function readableStream(stream: StreamingBody): ReadableStream<Uint8Array> {
  const encoder = new TextEncoder();
  return new ReadableStream<Uint8Array>(
    {
      start(controller) {
        // A client that stopped reading is never pulled from again: at the
        // body's idle limit, one more read fails as the node adapter's does
        // (the request is logged, 408), and its error ends the stream, which
        // makes Next cut the connection.
        void stream.stalled?.then(() =>
          stream.read().then(
            () => controller.error(new Error('the stalled body gave a chunk')),
            (error: unknown) => controller.error(error),
          ),
        );
      },
      async pull(controller) {
        const chunk = await stream.read();
        if (chunk === null) controller.close();
        else controller.enqueue(encoder.encode(chunk));
      },
      cancel: () => stream.cancel(),
    },
    { highWaterMark: 1 },
  );
}
