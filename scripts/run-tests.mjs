// Runs every unit and integration test file with node:test (Node 20 has no
// --test globbing), TypeScript loaded through tsx.
import { spawnSync } from 'node:child_process';
import { readdirSync, statSync } from 'node:fs';
import path from 'node:path';
import { fileURLToPath } from 'node:url';

// The integration tests (tests/) first: they are the longest (servers, the
// CLI, PostgreSQL), and one started last kept the whole run waiting on it.
const roots = process.argv.slice(2).length ? process.argv.slice(2) : ['tests', 'lib', 'components'];
const files = [];
const walk = (dir, found) => {
  for (const entry of readdirSync(dir)) {
    if (entry === 'node_modules' || entry.startsWith('.')) continue;
    const full = path.join(dir, entry);
    if (statSync(full).isDirectory()) walk(full, found);
    else if (/\.test\.tsx?$/.test(entry)) found.push(full);
  }
};
// Files in the order of `roots`, each root's alphabetically.
for (const root of roots) {
  const found = [];
  if (statSync(root, { throwIfNoEntry: false })?.isDirectory()) walk(root, found);
  else if (statSync(root, { throwIfNoEntry: false })) found.push(root);
  files.push(...found.sort().filter((file) => !files.includes(file)));
}
if (files.length === 0) {
  console.error('No test files found');
  process.exit(1);
}
// The CLI's bundle from the sources as they are now (~0.3 s): the tests run
// the CLI as users do, through bin/ and its bundle, and check the bundle is
// fresh; after an edit they ran the sources through tsx and failed those checks.
const bundled = spawnSync(
  process.execPath,
  [fileURLToPath(new URL('./build-cli.mjs', import.meta.url))],
  { stdio: 'inherit' },
);
if (bundled.status !== 0) process.exit(bundled.status ?? 1);
// A file still running after this long fails, named in the report, its
// process killed, and the run goes on: a test awaiting what never comes, a
// handle left open that keeps the file's process alive after its last
// test, or a loop that never yields held the run until CI's own limit. On
// Node 20 --test-timeout bounds each file's process as a whole (each file
// is one subtest of the runner; the files' own tests do not get it), so it
// is well above the longest file: the whole unit and integration run takes
// 6 to 8 minutes, the longest test's own timeout is 60 s.
const FILE_TIMEOUT_MS = 10 * 60_000;
// Four files at once on two cores: a test file mostly waits (for a server to
// start, PostgreSQL, the CLI, its own timers). At two, the suite kept 1.1 of
// the 2 cores busy (465 s wall for 531 CPU-seconds); at four, 1.5 (362 s).
const result = spawnSync(
  process.execPath,
  [
    '--import',
    'tsx',
    '--test',
    '--test-concurrency=4',
    `--test-timeout=${FILE_TIMEOUT_MS}`,
    // Naming a reporter replaces the default one, so it is named too (Node
    // 20's: spec on a terminal, else tap); the hung-test reporter names the
    // tests still running in a file that timed out, which the other cannot.
    `--test-reporter=${process.stdout.isTTY ? 'spec' : 'tap'}`,
    '--test-reporter-destination=stdout',
    `--test-reporter=${fileURLToPath(new URL('./hung-test-reporter.mjs', import.meta.url))}`,
    '--test-reporter-destination=stderr',
    ...files,
  ],
  { stdio: 'inherit', env: { ...process.env, NODE_ENV: 'test' } },
);
process.exit(result.status ?? 1);
