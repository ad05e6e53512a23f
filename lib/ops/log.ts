import pino, { type Logger } from 'pino';
import pretty from 'pino-pretty';
import { getConfig } from '@/lib/config';

/**
 * The server's one logger: JSON lines on stdout (one per request, plus
 * startup, shutdown and unexpected errors), readable colour output instead
 * when stdout is a terminal. The level comes from LOG_LEVEL.
 *
 * Nothing that authenticates ever reaches it: request lines carry the public
 * key, never headers, cookies or private keys, and the redaction below is a
 * second line of defence should a header object ever be logged by mistake.
 */

export type { Logger } from 'pino';

// One logger per process, shared by server.ts (loaded through tsx) and Next's
// bundles, so both write through the same stream with the same settings.
const LOGGER_KEY = Symbol.for('org-events.logger');
type Holder = { [LOGGER_KEY]?: Logger };

/**
 * pino's error serializer, with the error's own message: pino appends each
 * cause's message to it, and ours already name their cause ("The database
 * is unavailable: X" became "…: X: X"). The stack still lists the causes
 * ("caused by: …"). Its type is one a reader can use (errorType).
 */
export function errorForLog(error: unknown): unknown {
  if (!(error instanceof Error)) return error;
  const { type: _constructorName, ...serialized } = pino.stdSerializers.err(error);
  const type = errorType(error);
  return { ...(type === undefined ? {} : { type }), ...serialized, message: error.message };
}

/**
 * Whether a name says something: one or two letters are the minifier's.
 * Next's production server bundle renames classes (StoreUnavailableError is
 * `c` there), so pino's type, the constructor's name, read "c" for errors
 * thrown in a request.
 */
const readable = (name: unknown): name is string => typeof name === 'string' && name.length > 2;

/**
 * The class's name as pino gives it where it is not minified (server.ts,
 * the CLI, the tests); else the name the error gives itself (each of our
 * classes sets it, as `this.name = …` survives minifying); else its code
 * (a library's error naming itself after its constructor); else none.
 */
function errorType(error: Error): string | undefined {
  const code = (error as { code?: unknown }).code;
  return [error.constructor?.name, error.name, code].find(readable);
}

function createLogger(fd: 1 | 2 = 1): Logger {
  const terminal = (fd === 1 ? process.stdout : process.stderr).isTTY === true;
  const options: pino.LoggerOptions = {
    level: getConfig().LOG_LEVEL,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    serializers: { err: errorForLog },
    redact: {
      paths: [
        'headers.authorization',
        'headers.cookie',
        'headers["set-cookie"]',
        '*.headers.authorization',
        '*.headers.cookie',
        'privateKey',
        '*.privateKey',
        // A Redis reply error (ioredis) carries the command it answered with
        // its arguments: the HELLO or AUTH that a refused REDIS_URL password
        // fails is logged with that password. The command's name stays.
        'err.command.args',
        '*.err.command.args',
      ],
      censor: '[redacted]',
    },
    // Level names rather than numbers in JSON: what log pipelines filter on.
    ...(!terminal && { formatters: { level: (label: string) => ({ level: label }) } }),
  };
  return terminal
    ? pino(
        options,
        pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l', destination: fd }),
      )
    : pino(options, pino.destination({ dest: fd, sync: false }));
}

export function getLogger(): Logger {
  const holder = globalThis as Holder;
  return (holder[LOGGER_KEY] ??= createLogger());
}

/**
 * The log goes to stderr from now on: the CLI's stdout carries only its
 * output, so `--json | jq` never meets a log line.
 */
export function logToStderr(): void {
  (globalThis as Holder)[LOGGER_KEY] = createLogger(2);
}

/** Writes what the asynchronous destination still holds (before process.exit). */
export function flushLog(): void {
  const holder = globalThis as Holder;
  holder[LOGGER_KEY]?.flush();
}
