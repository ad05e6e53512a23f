/**
 * Next.js calls register() once per server process, before it handles a
 * request: under `next start` and `next dev` this is the only code of ours
 * that runs next to the node:http server Next creates. It installs the
 * front-door guard there (the TCP peer and the raw request-target for the API
 * route handlers; a target Next routes to the table's route file without its
 * own redirects; forwarding headers forgotten unless TRUST_PROXY; a request
 * id and one log line for every request the API handler does not log
 * itself), as server.ts does for its own server.
 */
export async function register(): Promise<void> {
  if (process.env.NEXT_RUNTIME !== 'nodejs') return;
  const { getConfig } = await import('@/lib/config');
  const { installFrontDoorGuard } = await import('@/lib/http/front-door');
  const { isApiTarget, nextRoutingTarget } = await import('@/lib/api/routes');
  installFrontDoorGuard({
    trustProxy: getConfig().TRUST_PROXY,
    routeForNext: nextRoutingTarget,
    logsItself: isApiTarget,
  });
  // With REDIS_URL: connected before the first nonce is issued. A Redis
  // refusing REDIS_URL's user ends the start, as under server.ts: Next would
  // only log the hook's failure and go on listening.
  const { warmAuthState } = await import('@/lib/auth/shared-state');
  const { failStart } = await import('@/lib/ops/start-failure');
  await warmAuthState().catch(failStart);
}
