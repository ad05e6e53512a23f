import { lastForwardedFor } from '@/lib/http/client-address';
import { handleApiRequest } from './handler';

/**
 * Next.js route handlers (Web Request/Response) <-> the API. Route files
 * export this for every method so `next dev`/`next start` serve the API
 * exactly as the custom server's fast path does.
 *
 * Route handlers cannot see the socket. Next fills X-Forwarded-For with the
 * peer address when the client sent none, so its last entry is the best
 * address available (a client can forge it here; behind server.ts it cannot).
 */
export async function handleNextRequest(request: Request): Promise<Response> {
  const url = new URL(request.url);
  const response = await handleApiRequest({
    method: request.method,
    url: `${url.pathname}${url.search}`,
    headers: request.headers,
    remoteAddress: lastForwardedFor(request.headers),
  });
  // Next streams the body (chunked) and adds its own Vary values: header
  // parity with the real service is the fast path's job (server.ts).
  return new Response(request.method === 'HEAD' ? null : response.body, {
    status: response.status,
    headers: response.headers,
  });
}
