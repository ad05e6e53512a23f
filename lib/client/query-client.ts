import {
  QueryCache,
  QueryClient,
  isServer,
  onlineManager,
  replaceEqualDeep,
} from '@tanstack/react-query';
import { ApiRequestError } from '@/lib/client/api-client';

/**
 * One QueryClient per server render (never shared between users) and one for
 * the browser's lifetime, so cached pages survive client-side navigation.
 */
export function makeQueryClient(): QueryClient {
  return new QueryClient({
    queryCache: new QueryCache({ onError: sendToSignInOnExpiredSession }),
    defaultOptions: {
      queries: {
        // Events are append-only history: a page seconds old is still right,
        // and refetching on every focus would make the table jump.
        staleTime: 30_000,
        // The browser keeps unused pages 5 minutes. A server render's client
        // is dropped with its request: a timer there (TanStack's server
        // default is none) held every render's answers 5 minutes longer,
        // and kept a test process alive as long.
        gcTime: isServer ? Infinity : 5 * 60_000,
        refetchOnWindowFocus: false,
        // A 4xx will not change on retry; a dropped connection might.
        retry: (failureCount, error) =>
          failureCount < 1 && !(error instanceof ApiRequestError && error.status < 500),
        structuralSharing: shareStructure,
      },
      // The server's answers reach the browser as JSON text, not as objects:
      // React's Flight props drop every member named "__proto__", and an
      // event may have one (the API serves every field as recorded).
      dehydrate: { serializeData: (data: unknown) => JSON.stringify(data) },
      hydrate: { deserializeData: (text: string): unknown => JSON.parse(text) },
    },
  });
}

/**
 * Keeps what did not change of a refetched answer (TanStack Query's
 * structural sharing), unless the answer holds a member named "__proto__":
 * replaceEqualDeep copies by assignment, which made that member the copy's
 * prototype, gone from its keys and lending its fields ("username") to a
 * record that has none. JSON.parse keeps it an own field; so does this.
 */
export function shareStructure(previous: unknown, next: unknown): unknown {
  return hasProtoMember(next) ? next : replaceEqualDeep(previous, next);
}

function hasProtoMember(value: unknown): boolean {
  if (value === null || typeof value !== 'object') return false;
  if (Array.isArray(value)) return value.some(hasProtoMember);
  if (Object.hasOwn(value, '__proto__')) return true;
  return Object.values(value).some(hasProtoMember);
}

let browserQueryClient: QueryClient | undefined;

export function getQueryClient(): QueryClient {
  if (isServer) return makeQueryClient();
  browserQueryClient ??= makeQueryClient();
  return browserQueryClient;
}

let signingOut = false;

/** The user is signing out: a 401 from now on is expected, not an expired session. */
export function leavingSession(): void {
  signingOut = true;
}

/**
 * The session has ended and the page is leaving: drops everything read under
 * it, asking the API nothing more. Emptied by itself, the cache had the
 * queries still on screen (event types, list, facets, histogram) fetch again
 * what they showed, four 401s on the way out; with the client offline those
 * fetches wait, for a page that is going away.
 */
export function forgetSession(queryClient: QueryClient): void {
  onlineManager.setOnline(false);
  queryClient.clear();
}

/** The sign-out failed: the session goes on, and a 401 means it expired again. */
export function stayingInSession(): void {
  signingOut = false;
}

/**
 * A 401 in the browser means the session ended: sign in again and come back
 * here. Queries get this from the cache; requests made outside a query (the
 * export's count and download, saving a view) call it with what they caught.
 */
export function sendToSignInOnExpiredSession(error: unknown): void {
  if (isServer || signingOut || !(error instanceof ApiRequestError) || error.status !== 401) {
    return;
  }
  const back = window.location.pathname + window.location.search;
  window.location.assign(`/sign-in?reason=expired&next=${encodeURIComponent(back)}`);
}
