/**
 * A SIGTERM to this process when npm, which started it, stops it. `npx
 * org-events …` and `npm run cli -- …` run the command under `sh -c`, and a
 * SIGTERM to npm (a container's or a supervisor's stop) reaches that shell,
 * which exits without passing it on: the command, handed to PID 1, went on
 * (a `mirror --follow` copied until killed, an import to its end). Once the
 * shell is gone the command gets the SIGTERM meant for it, and its own
 * handlers stop it as they do for one sent to it directly.
 *
 * Under npm only (npm sets `npm_command` for `run` and `exec`): a command
 * started by a shell of its own and left running on purpose (`nohup … &`,
 * then the shell closed) is handed to PID 1 as well, and must go on.
 */
export function stopWhenNpmParentGoes(intervalMs = 250): void {
  if (!process.env.npm_command) return;
  const parent = process.ppid;
  if (parent <= 1) return;
  const timer = setInterval(() => {
    if (process.ppid === parent) return;
    clearInterval(timer);
    process.kill(process.pid, 'SIGTERM');
  }, intervalMs);
  // Never what keeps the process alive.
  timer.unref();
}
