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

function createLogger(): Logger {
  const terminal = process.stdout.isTTY === true;
  const options: pino.LoggerOptions = {
    level: getConfig().LOG_LEVEL,
    base: { pid: process.pid },
    timestamp: pino.stdTimeFunctions.isoTime,
    redact: {
      paths: [
        'headers.authorization',
        'headers.cookie',
        'headers["set-cookie"]',
        '*.headers.authorization',
        '*.headers.cookie',
        'privateKey',
        '*.privateKey',
      ],
      censor: '[redacted]',
    },
    // Level names rather than numbers in JSON: what log pipelines filter on.
    ...(!terminal && { formatters: { level: (label: string) => ({ level: label }) } }),
  };
  return terminal
    ? pino(options, pretty({ colorize: true, sync: true, translateTime: 'SYS:HH:MM:ss.l' }))
    : pino(options, pino.destination({ dest: 1, sync: false }));
}

export function getLogger(): Logger {
  const holder = globalThis as Holder;
  return (holder[LOGGER_KEY] ??= createLogger());
}

/** Writes what the asynchronous destination still holds (before process.exit). */
export function flushLog(): void {
  const holder = globalThis as Holder;
  holder[LOGGER_KEY]?.flush();
}
