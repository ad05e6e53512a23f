import assert from 'node:assert/strict';
import { execFileSync, spawn, type ChildProcess } from 'node:child_process';
import fs from 'node:fs';
import net from 'node:net';
import os from 'node:os';
import path from 'node:path';
import { describe, test } from 'node:test';
import { parseLogLines, ROOT } from '@/tests/helpers/server';
import { freePort } from '@/tests/helpers/free-port';

/**
 * Graceful shutdown however the server is started. `npm start` used to
 * swallow signals: npm forwards SIGTERM/SIGINT to its child, the shell
 * running the script, and dash exits without passing them on, so node kept
 * serving, orphaned. Needs `npm run build`.
 */

const STOP_WITHIN_MS = 15_000;

/** Every process under `pid` (children, grandchildren…), from ps. */
function descendants(pid: number): number[] {
  const rows = execFileSync('ps', ['-e', '-o', 'pid=,ppid='], { encoding: 'utf8' })
    .trim()
    .split('\n')
    .map((row) => row.trim().split(/\s+/).map(Number) as [number, number]);
  const found: number[] = [];
  const queue = [pid];
  while (queue.length) {
    const parent = queue.shift()!;
    for (const [child, ppid] of rows) {
      if (ppid === parent) {
        found.push(child);
        queue.push(child);
      }
    }
  }
  return found;
}

function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

function answers(port: number): Promise<boolean> {
  return new Promise((resolve) => {
    const socket = net.connect(port, '127.0.0.1');
    socket.once('connect', () => {
      socket.destroy();
      resolve(true);
    });
    socket.once('error', () => resolve(false));
  });
}

/** The runner's environment without its NODE_ENV=test (the server runs as production). */
function inheritedEnv(): NodeJS.ProcessEnv {
  const { NODE_ENV: _test, ...rest } = process.env;
  return rest as NodeJS.ProcessEnv;
}

async function startServer(command: string, args: string[], env: Record<string, string> = {}) {
  const port = await freePort();
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-signals-'));
  const child: ChildProcess = spawn(command, args, {
    cwd: ROOT,
    env: {
      ...inheritedEnv(),
      PORT: String(port),
      HOSTNAME: '127.0.0.1',
      DATABASE_URL: `file:${path.join(dir, 'signals.db')}`,
      NEXT_TELEMETRY_DISABLED: '1',
      ...env,
    },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  child.stderr!.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
  const deadline = Date.now() + 90_000;
  while (!output.includes('ready on')) {
    if (child.exitCode !== null || Date.now() > deadline) {
      child.kill('SIGKILL');
      throw new Error(`server did not start:\n${output}`);
    }
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
  return { child, port, dir, output: () => output };
}

for (const [how, command, args] of [
  ['npm start', 'npm', ['start']],
  ['node --import tsx server.ts', process.execPath, ['--import', 'tsx', 'server.ts']],
] as const) {
  describe(how, () => {
    for (const signal of ['SIGTERM', 'SIGINT'] as const) {
      test(`${signal} to the started process: the port closes and no process remains within 15 s`, async () => {
        const server = await startServer(command, [...args]);
        const pids = [server.child.pid!, ...descendants(server.child.pid!)];
        try {
          assert.ok(await answers(server.port), 'serving before the signal');
          server.child.kill(signal);
          const deadline = Date.now() + STOP_WITHIN_MS;
          while ((pids.some(alive) || (await answers(server.port))) && Date.now() < deadline) {
            await new Promise((resolve) => setTimeout(resolve, 200));
          }
          assert.deepEqual(pids.filter(alive), [], `still running:\n${server.output()}`);
          assert.equal(await answers(server.port), false, 'the port still answers');
          assert.match(server.output(), /finishing in-flight requests/);
        } finally {
          for (const pid of pids.filter(alive)) process.kill(pid, 'SIGKILL');
          fs.rmSync(server.dir, { recursive: true, force: true });
        }
      });
    }
  });
}

describe('SHUTDOWN_DRAIN_SECONDS', () => {
  /** GET `path` on a new connection: its status, or null when refused. */
  const statusOf = (port: number, path: string) =>
    fetch(`http://127.0.0.1:${port}${path}`, { headers: { connection: 'close' } }).then(
      (res) => res.status,
      () => null,
    );

  test('after SIGTERM the server keeps answering for the drain, /readyz 503 (logged as requests, not warnings), then closes and exits; a second signal ends the drain at once', async () => {
    // Before, the port closed at the signal: /readyz's 503 reached no balancer.
    for (const second of [false, true]) {
      const server = await startServer(process.execPath, ['--import', 'tsx', 'server.ts'], {
        SERVE: 'api',
        SHUTDOWN_DRAIN_SECONDS: second ? '60' : '2',
      });
      try {
        assert.equal(await statusOf(server.port, '/readyz'), 200);
        const signalled = Date.now();
        server.child.kill('SIGTERM');
        await new Promise((resolve) => setTimeout(resolve, 300));
        for (let poll = 0; poll < 3; poll++) {
          assert.equal(await statusOf(server.port, '/readyz'), 503, server.output());
        }
        assert.equal(await statusOf(server.port, '/healthz'), 200, 'still serving');
        if (second) server.child.kill('SIGTERM');
        const exited = await new Promise<number | null>((resolve) =>
          server.child.once('exit', (code) => resolve(code)),
        );
        const took = Date.now() - signalled;
        assert.equal(exited, 0, server.output());
        if (second) assert.ok(took < 10_000, `the second signal ended the drain (${took} ms)`);
        else assert.ok(took >= 2_000, `served through the drain (${took} ms)`);
        // One line says the server drains; each poll's 503 is logged as a request, not a warning.
        const lines = parseLogLines(server.output());
        assert.equal(lines.filter((l) => /^draining/.test(String(l.msg))).length, 1);
        const polls = lines.filter((l) => l.route === 'readyz' && l.status === 503);
        assert.deepEqual(
          polls.map((l) => [l.level, l.msg]),
          polls.map(() => ['info', 'request']),
        );
        assert.equal(polls.length, 3);
        const drainFrom = lines.findIndex((l) => /^draining/.test(String(l.msg)));
        assert.deepEqual(
          lines
            .slice(drainFrom)
            .filter((l) => l.level !== 'info')
            .map((l) => l.msg),
          [],
          'nothing in a drain is a warning',
        );
      } finally {
        if (server.child.exitCode === null) server.child.kill('SIGKILL');
        fs.rmSync(server.dir, { recursive: true, force: true });
      }
    }
  });
});
