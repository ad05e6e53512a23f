import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { test } from 'node:test';
import { ROOT } from '@/tests/helpers/server';

/** The server refuses a PORT it would misread, before it listens anywhere. */
test('PORT other than plain digits 0-65535 is refused at start, not read as another port', () => {
  // parseInt read 1e3 as 1, 3e3 as 3 and 3302abc as 3302; Number read 0x10 as 16.
  for (const port of ['1e3', '3e3', '0x10', '3302abc', '3302.9', '-1', '65536']) {
    const started = spawnSync(process.execPath, ['--import', 'tsx', 'server.ts'], {
      cwd: ROOT,
      env: { ...process.env, PORT: port, NODE_ENV: 'test' },
      encoding: 'utf8',
      timeout: 60_000,
    });
    assert.equal(started.status, 1, `PORT=${port}: ${started.stdout}${started.stderr}`);
    assert.match(
      started.stdout + started.stderr,
      new RegExp(`PORT must be an integer from 0 to 65535, got ${port.replace('.', '\\.')}`),
    );
  }
});
