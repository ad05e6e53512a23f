#!/usr/bin/env node
// `npx org-events <command>`: the admin CLI (scripts/cli.ts) through tsx, in this
// process's stdio, without npm's banner on stdout (so `--json | jq` works).
import { spawn } from 'node:child_process';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..');
const require = createRequire(import.meta.url);
const tsx = require.resolve('tsx/cli', { paths: [root] });
const child = spawn(
  process.execPath,
  [
    tsx,
    '--tsconfig',
    path.join(root, 'tsconfig.json'),
    path.join(root, 'scripts', 'cli.ts'),
    ...process.argv.slice(2),
  ],
  { stdio: 'inherit' },
);
// Ctrl-C reaches the child through the terminal's process group; leave the exit to it.
process.on('SIGINT', () => undefined);
process.on('SIGTERM', () => child.kill('SIGTERM'));
child.on('exit', (code, signal) => {
  process.exitCode = code ?? (signal ? 128 + 2 : 1);
});
