/**
 * How a start that cannot go on ends, under either front door: server.ts's
 * (`npm start`) and instrumentation.ts's register() (`next start`, where
 * Next would only log the hook's failure and go on listening). One line on
 * plain stderr, which operators and the start tests read, not the log: the
 * logger may be what failed (a bad LOG_LEVEL). Then exit status 1.
 */
export function failStart(error: unknown): never {
  console.error(
    `> org-events failed to start: ${error instanceof Error ? error.message : String(error)}`,
  );
  process.exit(1);
}
