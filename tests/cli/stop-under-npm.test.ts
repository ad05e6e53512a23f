import assert from 'node:assert/strict';
import { spawn } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, test } from 'node:test';
import { ROOT } from './run-cli';

/**
 * A long command started through npm (`npm run cli -- …`, as `npx
 * org-events …` starts it too, under `sh -c`) that npm is asked to stop with
 * SIGTERM, as a container or a supervisor stops its command. The shell in
 * between exits without passing the signal on: the command went on, handed
 * to PID 1, until its end (scripts/cli/parent-watch.ts).
 */
const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-npm-stop-'));
after(() => fs.rmSync(dir, { recursive: true, force: true }));

test('a seed started through npm stops cleanly, its summary printed, when npm gets SIGTERM', async () => {
  const database = path.join(dir, 'store.db');
  const npm = spawn(
    'npm',
    [
      'run',
      '-s',
      'cli',
      '--',
      'seed',
      '--org',
      '65a1b2c3d4e5f6a7b8c9d0ab',
      '--create-org',
      '--name',
      'Stopped by npm',
      // Minutes of work at any speed this suite runs at.
      '--events',
      '20000000',
    ],
    { cwd: ROOT, env: { ...process.env, DATABASE_URL: `file:${database}` } },
  );
  let stderr = '';
  let stdout = '';
  npm.stdout.on('data', (chunk: Buffer) => (stdout += chunk.toString()));
  // Every writer of the pipes closed: npm, its shell and the command itself.
  const closed = new Promise<void>((resolve) => npm.stderr.on('close', resolve));
  await new Promise<void>((resolve, reject) => {
    npm.stderr.on('data', (chunk: Buffer) => {
      stderr += chunk.toString();
      if (/Seeding .*events\/s/.test(stderr)) resolve();
    });
    npm.once('exit', () => reject(new Error(`npm ended before seeding: ${stderr}`)));
  });
  npm.kill('SIGTERM');
  let timer: NodeJS.Timeout | undefined;
  const outcome = await Promise.race([
    closed.then(() => 'closed'),
    new Promise<string>((resolve) => (timer = setTimeout(() => resolve('still running'), 30_000))),
  ]);
  clearTimeout(timer);
  if (outcome !== 'closed') {
    // The command was left running: end it, so the suite does not wait for it.
    spawn('pkill', ['-f', database]);
  }
  assert.equal(outcome, 'closed', `the command was still running 30 s after npm's SIGTERM`);
  assert.match(stdout, /Stopped seeding "Stopped by npm"/, stderr);
});
