import type { IncomingMessage, ServerResponse } from 'node:http';
import { errorJson, unexpectedError } from '@/lib/domain/errors';
import { wireFacts } from '@/lib/http/front-door';
import { getLogger } from '@/lib/ops/log';
import { handleApiRequest, type ApiHandler } from './handler';
import type { ApiRequest, ApiResponse } from './types';

/**
 * node:http <-> the API's request/response. Used by server.ts (the fast path
 * in front of Next) and by the benchmark's plain node:http baseline.
 */
export function toApiRequest(req: IncomingMessage): ApiRequest {
  const { headers } = req;
  return {
    method: req.method ?? 'GET',
    // The target as received: the front-door guard (if installed) rewrites req.url for Next.
    url: wireFacts()?.target ?? req.url ?? '/',
    headers: {
      get(name: string) {
        const value = headers[name.toLowerCase()];
        if (value === undefined) return null;
        return Array.isArray(value) ? value.join(', ') : value;
      },
    },
    remoteAddress: req.socket.remoteAddress,
  };
}

export function writeApiResponse(
  req: IncomingMessage,
  res: ServerResponse,
  response: ApiResponse,
): void {
  const body = Buffer.from(response.body, 'utf8');
  const headers: string[] = [];
  for (const [name, value] of response.headers) headers.push(name, value);
  headers.push('Content-Length', String(body.length));
  res.writeHead(response.status, headers);
  // HEAD: the GET's headers (Content-Length included), no body.
  res.end(req.method === 'HEAD' ? undefined : body);
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
        getLogger().error({ err: error, requestId: wireFacts()?.requestId }, 'adapter failure');
        if (!res.headersSent) res.writeHead(500, { 'Content-Type': 'application/json' });
        res.end(errorJson(unexpectedError()));
      },
    );
  };
}
