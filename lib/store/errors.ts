import { errorMessage } from '@/lib/domain/errors';

/**
 * The one error the store throws when the database cannot answer right now
 * (unreachable, restarting, shutting down, out of connections, or an SQLite
 * file locked beyond the busy timeout), as opposed to a query that is wrong.
 * Callers answer it with 503 and Retry-After; the request may succeed later
 * unchanged. The engine's own error is kept as `cause` for the log.
 */
export class StoreUnavailableError extends Error {
  override readonly name = 'StoreUnavailableError';
  /** How long a client should wait before retrying, in seconds. */
  readonly retryAfterSeconds: number;
  /**
   * The database was reached but gave up on a statement (a server's
   * statement_timeout or lock_timeout, or an operator's cancel), rather than
   * not answering at all: said so in the 503, which is otherwise the same.
   */
  readonly timedOut: boolean;
  /**
   * The database refused for want of room (isDiskFull of the cause): said so
   * in the 503, which said "database unreachable" while the database
   * answered and its disk was full.
   */
  readonly diskFull: boolean;

  constructor(
    message: string,
    options: { cause?: unknown; retryAfterSeconds?: number; timedOut?: boolean } = {},
  ) {
    super(message, { cause: options.cause });
    this.retryAfterSeconds = options.retryAfterSeconds ?? 5;
    this.timedOut = options.timedOut ?? false;
    this.diskFull = isDiskFull(options.cause);
  }
}

/**
 * PostgreSQL SQLSTATEs that mean "not now" rather than "not this query":
 * class 08 (connection exceptions), admin/crash shutdown, cannot connect now
 * (starting up or shutting down), a session ended for idling, too many
 * connections.
 */
const UNAVAILABLE_SQLSTATES = new Set([
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
  '57P01',
  '57P02',
  '57P03',
  // The session ended for idling (idle_session_timeout, PostgreSQL 14+, and
  // idle_in_transaction_session_timeout), as managed services often set:
  // the pool's next connection serves. They answered 500.
  '57P05',
  '25P03',
  '53300',
  // Writes refused for now: a primary demoted to a read-only standby
  // (read_only_sql_transaction), a full disk, the server out of memory.
  '25006',
  '53100',
  '53200',
]);

/**
 * SQLite's codes (and their extended forms, SQLITE_BUSY_SNAPSHOT,
 * SQLITE_IOERR_WRITE, …) for a file that cannot be written or read now:
 * another connection held the lock for longer than busy_timeout, the disk
 * full, an I/O error, the file read-only, memory exhausted. Before, a
 * dashboard write on a full disk answered 500 UNEXPECTED_ERROR, not 503 with
 * Retry-After.
 */
const UNAVAILABLE_SQLITE_CODES = [
  'SQLITE_BUSY',
  'SQLITE_FULL',
  'SQLITE_IOERR',
  'SQLITE_READONLY',
  'SQLITE_NOMEM',
];

/**
 * PostgreSQL SQLSTATEs of a statement the server gave up on: 57014
 * query_canceled (a statement_timeout, or pg_cancel_backend by an
 * operator) and 55P03 lock_not_available (a lock_timeout). DBAs set both
 * server-wide; the query was right and may pass on retry (a lock released,
 * a busy moment over), so it is answered like an outage, a 503 with
 * Retry-After, not logged as a bug. (The real service answers a count too
 * slow to finish with 500 TIMEOUT_WHILE_PAGING, "Retry with
 * includeCount=false"; here paging needs the same counters as the count,
 * so that advice would not help.)
 */
const GAVE_UP_SQLSTATES = new Set(['57014', '55P03']);

/** Socket failures on the way to the database. */
const UNAVAILABLE_SYSTEM_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ECONNABORTED',
  'EPIPE',
  'ETIMEDOUT',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'ENOTFOUND',
  'EAI_AGAIN',
]);

/**
 * node-postgres reports a lost connection with a message and no code:
 * "Connection terminated unexpectedly", "Client has encountered a connection
 * error and is not queryable", "timeout exceeded when trying to connect".
 */
const UNAVAILABLE_MESSAGES =
  /connection terminated|not queryable|timeout exceeded when trying to connect/i;

/** Whether an engine's error means the database cannot answer right now. */
export function isUnavailable(error: unknown): boolean {
  if (error instanceof StoreUnavailableError) return true;
  if (!(error instanceof Error)) return false;
  const code = (error as { code?: unknown }).code;
  if (typeof code === 'string') {
    if (UNAVAILABLE_SQLSTATES.has(code) || UNAVAILABLE_SYSTEM_CODES.has(code)) return true;
    if (GAVE_UP_SQLSTATES.has(code)) return true;
    if (UNAVAILABLE_SQLITE_CODES.some((prefix) => code.startsWith(prefix))) return true;
  }
  // AggregateError: a host name with several addresses, each refused.
  if (error instanceof AggregateError && error.errors.some(isUnavailable)) return true;
  return UNAVAILABLE_MESSAGES.test(error.message);
}

/**
 * Whether the database answered and refused this server's connection for
 * what it was told to connect as: a password or role it does not take
 * (SQLSTATE class 28) or a database it does not have (3D000). At runtime
 * these are answered like any outage (acquireConnection wraps every
 * failure); at start, waiting cannot fix them, so the server says so at once.
 */
export function isRefusedConfiguration(error: unknown): boolean {
  const cause = error instanceof StoreUnavailableError ? error.cause : error;
  const code = (cause as { code?: unknown } | null)?.code;
  if (typeof code === 'string') return code.startsWith('28') || code === '3D000';
  // node-postgres's own, without a SQLSTATE: a server asking for a password
  // the URL does not hold (SCRAM), or refusing the TLS the URL asks for.
  const message = cause instanceof Error ? cause.message : '';
  return REFUSED_CONFIGURATION_MESSAGES.test(message);
}

const REFUSED_CONFIGURATION_MESSAGES =
  /^SASL: .*password must be a string|does not support SSL connections/;

/** The error to throw in place of `error`: StoreUnavailableError when it means so, else itself. */
export function translateStoreError(error: unknown): unknown {
  if (error instanceof StoreUnavailableError || !isUnavailable(error)) return error;
  return unavailable(error);
}

/** Wraps any failure (a connection that could not be made) as unavailable. */
export function unavailable(cause: unknown): StoreUnavailableError {
  const detail = errorMessage(cause);
  const code = (cause as { code?: unknown } | null)?.code;
  if (typeof code === 'string' && GAVE_UP_SQLSTATES.has(code)) {
    return new StoreUnavailableError(`The database gave up on a statement: ${detail}`, {
      cause,
      timedOut: true,
    });
  }
  // Said as what it is: "unavailable" sent an operator looking at the
  // network while the database answered and its disk was full.
  if (isDiskFull(cause)) {
    return new StoreUnavailableError(`The database cannot write: its disk is full (${detail})`, {
      cause,
    });
  }
  return new StoreUnavailableError(`The database is unavailable: ${detail}`, { cause });
}

/**
 * Whether a write failed for want of space: SQLite's SQLITE_FULL (the disk,
 * or a temporary file's), PostgreSQL's 53100 disk_full, the system's ENOSPC;
 * a store's wrapper is looked through to its cause.
 */
export function isDiskFull(error: unknown): boolean {
  const cause = error instanceof StoreUnavailableError ? error.cause : error;
  const code = (cause as { code?: unknown } | null)?.code;
  return code === 'SQLITE_FULL' || code === '53100' || code === 'ENOSPC';
}

/**
 * A second live mirror of one source into one org, refused by the database
 * (migration 0012): the ledger's check before starting is not atomic, this is.
 */
export class LiveMirrorConflictError extends Error {
  override readonly name = 'LiveMirrorConflictError';
}

/** A UNIQUE constraint refused a row (PostgreSQL 23505, SQLite SQLITE_CONSTRAINT_UNIQUE). */
export function isUniqueViolation(error: unknown): boolean {
  const code = (error as { code?: unknown } | null)?.code;
  return code === '23505' || code === 'SQLITE_CONSTRAINT_UNIQUE';
}
