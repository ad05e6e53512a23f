import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { test } from 'node:test';
import { ROOT } from '@/tests/helpers/server';

/**
 * CI's short run of `npm run test:chaos` (scripts/chaos.ts): the same fuzz
 * and load, 2,000 fuzzed requests and 3 s of load instead of 100,000 and
 * 60 s (about 15 s instead of about 6 min). Needs `npm run build`.
 */
test('chaos, short: fuzzed requests and a Digest load get no 5xx, the load only 200s', () => {
  // Not the runner's NODE_ENV=test: the chaos script's server runs as production.
  const env: Record<string, string | undefined> = { ...process.env };
  delete env.NODE_ENV;
  Object.assign(env, { CHAOS_FUZZ_REQUESTS: '2000', CHAOS_LOAD_SECONDS: '3' });
  const result = spawnSync(
    process.execPath,
    ['--import', 'tsx', path.join('scripts', 'chaos.ts')],
    {
      cwd: ROOT,
      env: env as NodeJS.ProcessEnv,
      encoding: 'utf8',
      timeout: 180_000,
    },
  );
  const output = `${result.stdout}${result.stderr}`;
  assert.equal(result.status, 0, output);
  assert.match(output, /^fuzz: 2000 requests/m);
  assert.match(output, /^server RSS: [\d.]+ MiB at start/m);
  assert.match(output, /chaos: zero 5xx, every loaded request answered 200/);
});
