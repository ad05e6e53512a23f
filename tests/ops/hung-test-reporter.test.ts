import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { ROOT } from '@/tests/helpers/server';

function withoutTestContext(): NodeJS.ProcessEnv {
  const env = { ...process.env };
  delete env.NODE_TEST_CONTEXT;
  return env;
}

/**
 * scripts/hung-test-reporter.mjs, as scripts/run-tests.mjs adds it: a test
 * file killed by --test-timeout is reported by Node 20 as the file alone,
 * and the reporter names the tests of it that were running then.
 */
describe('the hung-test reporter', () => {
  let dir: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-hung-test-'));
    fs.writeFileSync(
      path.join(dir, 'hangs.test.mjs'),
      [
        "import { describe, test } from 'node:test';",
        "describe('a suite', () => {",
        "  test('a test that ends', () => {});",
        "  test('a test awaiting what never comes', () => new Promise(() => setInterval(() => {}, 1000)));",
        "  test('a test never reached', () => {});",
        '});',
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(dir, 'handle.test.mjs'),
      [
        "import { test } from 'node:test';",
        "test('a test that leaves a handle open', () => { setInterval(() => {}, 1000); });",
      ].join('\n'),
    );
    fs.writeFileSync(
      path.join(dir, 'top-level.test.mjs'),
      [
        "import { test } from 'node:test';",
        'await new Promise(() => setInterval(() => {}, 1000));',
        "test('a test never declared', () => {});",
      ].join('\n'),
    );
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('names the tests running in each file that timed out, and says when none was or none had begun', () => {
    const run = spawnSync(
      process.execPath,
      [
        '--test',
        '--test-concurrency=3',
        '--test-timeout=3000',
        '--test-reporter=tap',
        '--test-reporter-destination=stdout',
        `--test-reporter=${path.join(ROOT, 'scripts', 'hung-test-reporter.mjs')}`,
        '--test-reporter-destination=stderr',
        'hangs.test.mjs',
        'handle.test.mjs',
        'top-level.test.mjs',
      ],
      // Without NODE_TEST_CONTEXT, which this file's own runner set: with it,
      // node --test takes itself for a test file and runs none.
      { cwd: dir, encoding: 'utf8', timeout: 60_000, env: withoutTestContext() },
    );
    assert.equal(run.status, 1, run.stderr);
    // The TAP report names the files only.
    assert.match(run.stdout, /not ok \d+ - .*hangs\.test\.mjs/);
    assert.doesNotMatch(run.stdout, /awaiting what never comes/);
    const hangs = path.join(dir, 'hangs.test.mjs');
    const handle = path.join(dir, 'handle.test.mjs');
    const hangsSaid = [
      `${hangs} timed out while these of its tests were running:`,
      '  a suite',
      '    a test awaiting what never comes',
    ].join('\n');
    const handleSaid = `${handle} timed out with none of its tests running: each had ended (a handle left open keeps its process alive), or one never yields to the event loop (then its start could not be reported)`;
    const topLevelSaid = `${path.join(dir, 'top-level.test.mjs')} timed out before any of its tests began: loading its modules, or awaiting at its top level`;
    // The files run at once: any may time out first.
    const said = [hangsSaid, handleSaid, topLevelSaid];
    for (const each of said) assert.ok(run.stderr.includes(`${each}\n`), run.stderr);
    assert.equal(run.stderr.length, said.join('\n').length + 1, run.stderr);
  });
});
