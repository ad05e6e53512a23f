import { metricsAnswer } from './metrics';
import { healthzAnswer, readyzAnswer, type ProbeAnswer } from './probes';

/**
 * The route files app/healthz, app/readyz and app/metrics: the same answers
 * server.ts's fast path gives, for `next start` and `next dev`.
 */

function toResponse(request: Request, answer: ProbeAnswer): Response {
  return new Response(request.method === 'HEAD' ? null : answer.body, {
    status: answer.status,
    headers: answer.headers,
  });
}

type Handlers = {
  GET: (request: Request) => Promise<Response>;
  HEAD: (request: Request) => Promise<Response>;
};

function handlers(answer: (request: Request) => ProbeAnswer | Promise<ProbeAnswer>): Handlers {
  const handle = async (request: Request) => toResponse(request, await answer(request));
  return { GET: handle, HEAD: handle };
}

export const healthzRoute = handlers(() => healthzAnswer());
export const readyzRoute = handlers(() => readyzAnswer());
export const metricsRoute = handlers((request) =>
  metricsAnswer(request.headers.get('authorization')),
);
