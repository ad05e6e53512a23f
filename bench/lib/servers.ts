import { type ChildProcess, spawn } from 'node:child_process';
import path from 'node:path';

export type RunningServer = { name: string; baseUrl: string; stop: () => Promise<void> };

const ROOT = path.resolve(__dirname, '..', '..');

/**
 * Starts a server process and resolves once it prints its URL. Servers are
 * bench subjects, so their output is kept quiet except for failures.
 */
export function startServer(
  name: string,
  command: string,
  args: string[],
  env: Record<string, string>,
  readyPattern: RegExp,
): Promise<RunningServer> {
  return new Promise((resolve, reject) => {
    const child: ChildProcess = spawn(command, args, {
      cwd: ROOT,
      env: { ...process.env, ...env },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    const timer = setTimeout(() => {
      child.kill('SIGKILL');
      reject(new Error(`${name} did not start in time:\n${output}`));
    }, 120_000);
    const onData = (chunk: Buffer) => {
      output += chunk.toString();
      const match = readyPattern.exec(output);
      if (match) {
        clearTimeout(timer);
        child.stdout?.off('data', onData);
        resolve({
          name,
          baseUrl: match[1]!.replace('0.0.0.0', '127.0.0.1'),
          stop: () =>
            new Promise<void>((done) => {
              if (child.exitCode !== null) return done();
              child.once('exit', () => done());
              child.kill('SIGTERM');
              setTimeout(() => child.kill('SIGKILL'), 5_000).unref();
            }),
        });
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', (chunk: Buffer) => (output += chunk.toString()));
    child.once('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`${name} exited with ${code}:\n${output}`));
    });
  });
}

const TSX = ['--import', 'tsx'];

/** `npm start`: the custom server with the API fast path. */
export const startOurServer = (env: Record<string, string>) =>
  startServer(
    'ours (npm start)',
    process.execPath,
    [...TSX, 'server.ts'],
    { ...env, PORT: '0', HOSTNAME: '127.0.0.1' },
    /ready on (http:\/\/\S+)/,
  );

/** A plain node:http server over the same lib/ handler: the baseline. */
export const startBaselineServer = (env: Record<string, string>) =>
  startServer(
    'baseline (node:http)',
    process.execPath,
    [...TSX, 'bench/baseline-server.ts'],
    { ...env, PORT: '0' },
    /ready on (http:\/\/\S+)/,
  );

/** `next start`: the same API through Next's own route handlers, to show the framework's cost. */
export const startNextOnlyServer = (env: Record<string, string>, port: number) =>
  startServer(
    'next start (route handlers)',
    process.execPath,
    [
      path.join(ROOT, 'node_modules', 'next', 'dist', 'bin', 'next'),
      'start',
      '-p',
      String(port),
      '-H',
      '127.0.0.1',
    ],
    env,
    /(http:\/\/(?:127\.0\.0\.1|localhost):\d+)/,
  );
