import { getLogger } from '@/lib/ops/log';
import { errorJson, unexpectedError } from '@/lib/domain/errors';
import { handleNextRequest } from './next-adapter';
import type { OperationName } from './routes';

type RouteHandler = (request: Request) => Promise<Response>;

/** Every method a route file exports: Next answers the others (and these, if missing) itself. */
export type NextRouteHandlers = Record<
  'GET' | 'HEAD' | 'POST' | 'PUT' | 'PATCH' | 'DELETE' | 'OPTIONS',
  RouteHandler
>;

/**
 * The method exports of the route file that serves `operation` (or, for the
 * catch-all, 'unmatched': whatever the route table says of a path no other
 * file took, usually the API's JSON 404).
 *
 * Every method goes to the one lib/api handler, which matches the
 * request-target against the route table exactly as server.ts's fast path
 * does: a non-GET request gets the API's JSON 405 rather than Next's, and the
 * two doors cannot disagree about which operation answers. That each file's
 * folder is the path of the operation it names is checked by
 * lib/api/routes.test.ts.
 */
export function nextRouteHandlers(operation: OperationName | 'unmatched'): NextRouteHandlers {
  const handle: RouteHandler = async (request) => {
    try {
      return await handleNextRequest(request);
    } catch (error) {
      // The handler maps every failure itself; this is the last line of
      // defence, answering as node-adapter.ts does rather than with Next's page.
      getLogger().error({ err: error, route: operation }, 'adapter failure');
      return new Response(errorJson(unexpectedError()), {
        status: 500,
        headers: { 'Content-Type': 'application/json' },
      });
    }
  };
  return {
    GET: handle,
    HEAD: handle,
    POST: handle,
    PUT: handle,
    PATCH: handle,
    DELETE: handle,
    OPTIONS: handle,
  };
}
