import assert from 'node:assert/strict';
import { execFileSync, spawn, spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BUNDLE_DIR, freshCliBundle } from '@/bin/cli-bundle.mjs';
import { ROOT } from '@/tests/helpers/server';

/**
 * What the Dockerfile does, without a container runtime (none is reachable
 * in CI): scripts/release.sh stages the runtime files of this checkout's
 * build into an empty directory, installs production dependencies only
 * there (`npm ci --omit=dev`), and starts the server from it the way the
 * image's CMD does. The build step itself is CI's own `npm run build`.
 * The install finds better-sqlite3's addon among local prebuilds (a
 * documented prebuild-install option), packed from this checkout's own
 * install as its release download would be: with no route to GitHub it
 * compiled SQLite from source again, 80 s of the test's 90 (20 s now).
 */

const RELEASE = path.join(ROOT, 'scripts', 'release.sh');

/**
 * better-sqlite3's compiled addon from this checkout, packed under the name
 * its release download has, in `dir`/prebuilds, and a .prebuild-installrc
 * in `dir` naming that folder: prebuild-install, run by an install anywhere
 * below `dir`, finds the rc file up the tree and takes the addon from there.
 */
function offerLocalPrebuild(dir: string): void {
  const addon = path.join(ROOT, 'node_modules', 'better-sqlite3');
  const { version } = JSON.parse(fs.readFileSync(path.join(addon, 'package.json'), 'utf8')) as {
    version: string;
  };
  const prebuilds = path.join(dir, 'prebuilds');
  fs.mkdirSync(prebuilds);
  const name = `better-sqlite3-v${version}-node-v${process.versions.modules}-${process.platform}-${process.arch}.tar.gz`;
  execFileSync('tar', ['-czf', path.join(prebuilds, name), 'build/Release/better_sqlite3.node'], {
    cwd: addon,
  });
  fs.writeFileSync(path.join(dir, '.prebuild-installrc'), `local-prebuilds=${prebuilds}\n`);
}
let dir: string;
let appDir: string;

before(() => {
  assert.ok(fs.existsSync(path.join(ROOT, '.next', 'BUILD_ID')), 'run `npm run build` first');
  dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-release-'));
  appDir = path.join(dir, 'app');
  execFileSync(RELEASE, ['stage', appDir], { cwd: ROOT, stdio: 'pipe' });
  offerLocalPrebuild(dir);
  execFileSync(path.join(appDir, 'scripts', 'release.sh'), ['prod-deps'], {
    cwd: appDir,
    stdio: 'pipe',
    timeout: 600_000,
  });
});
after(() => {
  if (dir) fs.rmSync(dir, { recursive: true, force: true });
});

describe('release: staged build with production dependencies only', () => {
  test('no development-only dependency is installed; tsx and every dependency are', () => {
    const installed = (name: string) =>
      fs.existsSync(path.join(appDir, 'node_modules', name, 'package.json'));
    const read = (file: string): unknown => JSON.parse(fs.readFileSync(file, 'utf8'));
    const pkg = read(path.join(ROOT, 'package.json')) as { dependencies: Record<string, string> };
    const lock = read(path.join(ROOT, 'package-lock.json')) as {
      packages: Record<string, { dev?: boolean; devOptional?: boolean }>;
    };
    // `dev` in the lock: needed by devDependencies only. (`devOptional`
    // ones, e.g. @playwright/test as an optional peer of next, are
    // installed by --omit=dev too; nothing at run time loads them.)
    const devOnly = Object.entries(lock.packages)
      .filter(([where, entry]) => entry.dev && where.startsWith('node_modules/'))
      .map(([where]) => where.slice('node_modules/'.length))
      .filter((name) => !name.includes('/node_modules/'));
    assert.ok(devOnly.includes('typescript') && devOnly.includes('eslint'), 'sanity');
    for (const name of devOnly) assert.ok(!installed(name), `${name} (dev only) is installed`);
    for (const name of [...Object.keys(pkg.dependencies), 'tsx']) assert.ok(installed(name), name);
    assert.ok(!fs.existsSync(path.join(appDir, 'tests')), 'tests are not staged');
    assert.ok(!fs.existsSync(path.join(appDir, '.next', 'cache')), 'no build cache');
  });

  test('the admin CLI runs from the staged build (npx org-events), so a container can create orgs and keys', () => {
    // Its bundle came along, still newer than the sources staged with it.
    assert.equal(freshCliBundle(appDir), path.join(appDir, BUNDLE_DIR, 'cli.cjs'));
    const database = `file:${path.join(dir, 'cli.db')}`;
    const run = (...args: string[]) =>
      spawnSync(process.execPath, [path.join(appDir, 'bin', 'org-events.mjs'), ...args], {
        cwd: appDir,
        env: { ...process.env, DATABASE_URL: database },
        encoding: 'utf8',
        timeout: 60_000,
      });
    const created = run('orgs', 'create', '--name', 'Staged', '--json');
    assert.equal(created.status, 0, created.stderr);
    const { id } = JSON.parse(created.stdout) as { id: string };
    const key = run('keys', 'create', '--org', id, '--role', 'ORG_OWNER', '--json');
    assert.equal(key.status, 0, key.stderr);
    assert.match((JSON.parse(key.stdout) as { publicKey: string }).publicKey, /^[a-z]{8}$/);
  });

  test('`release.sh start` serves /readyz, /healthz and the API, and stops on SIGTERM', async () => {
    const { NODE_ENV: _test, ...inherited } = process.env;
    const child = spawn(path.join(appDir, 'scripts', 'release.sh'), ['start'], {
      cwd: appDir,
      env: {
        ...inherited,
        NODE_ENV: 'production',
        PORT: '0',
        HOSTNAME: '127.0.0.1',
        DATABASE_URL: `file:${path.join(dir, 'release.db')}`,
        NEXT_TELEMETRY_DISABLED: '1',
      },
      stdio: ['ignore', 'pipe', 'pipe'],
    });
    let output = '';
    child.stdout.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    child.stderr.setEncoding('utf8').on('data', (chunk: string) => (output += chunk));
    const exited = new Promise<number | null>((resolve) => child.once('exit', resolve));
    try {
      const deadline = Date.now() + 90_000;
      let base: string | undefined;
      while (!(base = /ready on (http:\/\/\S+)/.exec(output)?.[1])) {
        assert.ok(child.exitCode === null && Date.now() < deadline, `no start:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 100));
      }
      const ready = await fetch(`${base}/readyz`);
      assert.equal(ready.status, 200, output);
      assert.deepEqual(await ready.json(), { status: 'ready' });
      assert.equal((await fetch(`${base}/healthz`)).status, 200);
      assert.equal((await fetch(`${base}/api/public/v1.0/openapi.json`)).status, 200);
      assert.equal((await fetch(`${base}/sign-in`)).status, 200, 'Next serves the dashboard');
      child.kill('SIGTERM');
      const timer = setTimeout(() => child.kill('SIGKILL'), 15_000);
      assert.equal(await exited, 0, output);
      clearTimeout(timer);
    } finally {
      if (child.exitCode === null) child.kill('SIGKILL');
    }
  });
});
