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
  /** The front door's request id (lib/ops/request-id.ts); else taken from X-Request-Id or made. */
  requestId?: string;
  /** The connection is TLS (server.ts with TLS_CERT_FILE): links are https. */
  encrypted?: boolean;
};

/**
 * A body produced while it is sent (an export): the adapters pull the next
 * chunk only when the client has taken the previous one (backpressure), and
 * cancel it when the client goes away, which ends the query behind it.
 */
export type StreamingBody = {
  /** The next chunk, or null at the end (after which the producer has released everything). */
  read(): Promise<string | null>;
  /** Stops producing and releases the query; idempotent, also after the end. */
  cancel(): Promise<void>;
  /**
   * Settles with the reason when the body ended itself because its client
   * read nothing for too long (ClientStalledError): the adapter then cuts the
   * connection, which a client that keeps still would otherwise hold open,
   * its response never logged.
   */
  stalled?: Promise<ClientStalledError>;
};

/**
 * A streamed body ended because its client took nothing of it for too long
 * (EXPORT_IDLE_SECONDS): the client's doing, logged as 408, never as an
 * unexpected 500 (which alerts on 5xx fired for).
 */
export class ClientStalledError extends Error {
  constructor(idleSeconds: number) {
    super(`the client read nothing of the body for ${idleSeconds} s`);
    this.name = 'ClientStalledError';
  }
}

export type ApiResponse = {
  status: number;
  headers: [string, string][];
  /** The finished body; empty when `stream` carries it. */
  body: string;
  /** A body sent as it is produced (only ever on a 200): the adapters send it instead of `body`. */
  stream?: StreamingBody;
};

/** How the client asked the body to be shaped (pretty, envelope): applies to errors too. */
export type ResponseFormat = { pretty: boolean; envelope: boolean };

export const PLAIN_FORMAT: ResponseFormat = { pretty: false, envelope: false };

export { API_PREFIX } from '@/lib/domain/limits';
