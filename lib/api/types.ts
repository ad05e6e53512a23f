/**
 * The transport-neutral request and response of the API. `handleApiRequest`
 * maps one to the other; the node:http and Next adapters only translate.
 */
export type ApiRequest = {
  method: string;
  /** Path and query exactly as received, e.g. /api/public/v1.0/orgs/x/events?pageNum=2 */
  url: string;
  headers: { get(name: string): string | null };
  /** The TCP peer's address (for throttling), when known. */
  remoteAddress?: string;
};

export type ApiResponse = {
  status: number;
  headers: [string, string][];
  body: string;
};

/** How the client asked the body to be shaped (pretty, envelope): applies to errors too. */
export type ResponseFormat = { pretty: boolean; envelope: boolean };

export const PLAIN_FORMAT: ResponseFormat = { pretty: false, envelope: false };

export { API_PREFIX } from '@/lib/domain/limits';
