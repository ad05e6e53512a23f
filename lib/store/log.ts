/**
 * Where the store reports what it survives (a pool connection lost while
 * idle, say). The server hands it its logger with setStoreLogger (a pino
 * logger fits as it is); until then, and in the CLI, one JSON line goes to
 * stderr. Shared through globalThis like the store itself, so the custom
 * server and Next's bundled route handlers report through the same logger.
 */
export type StoreLogger = {
  warn(details: Record<string, unknown>, message: string): void;
};

const LOGGER_KEY = Symbol.for('org-events.store-logger');
type Holder = { [LOGGER_KEY]?: StoreLogger };

const stderrLogger: StoreLogger = {
  warn: (details, message) => {
    process.stderr.write(
      `${JSON.stringify({ level: 'warn', time: new Date().toISOString(), msg: message, ...details })}\n`,
    );
  },
};

export function setStoreLogger(logger: StoreLogger | undefined): void {
  (globalThis as Holder)[LOGGER_KEY] = logger;
}

export function storeLogger(): StoreLogger {
  return (globalThis as Holder)[LOGGER_KEY] ?? stderrLogger;
}

/** An error's name, code and message only: never a connection string or a query. */
export function errorDetails(error: unknown): Record<string, unknown> {
  if (!(error instanceof Error)) return { error: String(error) };
  const code = (error as { code?: unknown }).code;
  return { error: error.message, ...(typeof code === 'string' ? { code } : {}) };
}
