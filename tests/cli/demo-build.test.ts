import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { MIGRATION_NAMES } from '@/lib/store/migrations';
import { ROOT } from './run-cli';

/**
 * `npm run demo` in a project of its own: scripts/demo.mjs copied (it finds
 * the project from its own path), lib/ linked entry by entry but for
 * build-info.json, which each test writes as a build would have, a
 * .next/BUILD_ID, and an `npm` on PATH that records its arguments and fails,
 * standing in for the minutes of a real `npm run build`.
 */
function demoProject(dir: string): { root: string; npmCalls: string } {
  const root = path.join(dir, 'project');
  fs.mkdirSync(path.join(root, 'scripts'), { recursive: true });
  fs.copyFileSync(path.join(ROOT, 'scripts/demo.mjs'), path.join(root, 'scripts/demo.mjs'));
  fs.copyFileSync(
    path.join(ROOT, 'scripts/demo-setup.ts'),
    path.join(root, 'scripts/demo-setup.ts'),
  );
  for (const file of ['package.json', 'tsconfig.json', 'server.ts']) {
    fs.copyFileSync(path.join(ROOT, file), path.join(root, file));
  }
  fs.symlinkSync(path.join(ROOT, 'node_modules'), path.join(root, 'node_modules'));
  fs.mkdirSync(path.join(root, 'lib'));
  for (const entry of fs.readdirSync(path.join(ROOT, 'lib'))) {
    if (entry === 'build-info.json') continue;
    fs.symlinkSync(path.join(ROOT, 'lib', entry), path.join(root, 'lib', entry));
  }
  fs.mkdirSync(path.join(root, '.next'));
  fs.writeFileSync(path.join(root, '.next/BUILD_ID'), 'test-build\n');
  const bin = path.join(dir, 'bin');
  fs.mkdirSync(bin);
  const npmCalls = path.join(dir, 'npm-calls');
  fs.writeFileSync(
    path.join(bin, 'npm'),
    `#!/bin/sh\necho "$*" >> '${npmCalls}'\necho 'the stand-in build fails' >&2\nexit 3\n`,
    { mode: 0o755 },
  );
  return { root, npmCalls };
}

function runDemo(dir: string, root: string, env: Record<string, string>) {
  return spawnSync(process.execPath, ['--import', 'tsx', 'scripts/demo.mjs'], {
    cwd: root,
    encoding: 'utf8',
    timeout: 120_000,
    env: {
      ...process.env,
      PATH: `${path.join(dir, 'bin')}:${process.env.PATH ?? ''}`,
      DATABASE_URL: `file:${path.join(dir, 'demo.db')}`,
      ...env,
    },
  });
}

function writeBuildInfo(
  root: string,
  migrations: readonly string[],
  gitHash: string = 'unknown',
): void {
  fs.writeFileSync(
    path.join(root, 'lib/build-info.json'),
    JSON.stringify({ gitHash, version: '0.1.0', migrations }),
  );
}

function git(root: string, ...args: string[]): string {
  return spawnSync('git', args, { cwd: root, encoding: 'utf8' }).stdout.trim();
}

describe('npm run demo and its build', () => {
  let dir: string;
  let project: { root: string; npmCalls: string };
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-demo-build-'));
    project = demoProject(dir);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('a build made with fewer migrations than the code has (a pull added one) is rebuilt before anything else', () => {
    writeBuildInfo(project.root, MIGRATION_NAMES.slice(0, -1));
    const run = runDemo(dir, project.root, { PORT: '0' });
    const npmCalls = fs.existsSync(project.npmCalls)
      ? fs.readFileSync(project.npmCalls, 'utf8')
      : '(none)';
    assert.equal(npmCalls, 'run build\n', run.stderr);
    assert.match(run.stderr, /build is older than the code/);
    assert.equal(run.status, 1);
    // It stopped at the failed build: no database was made, no key printed.
    assert.equal(fs.existsSync(path.join(dir, 'demo.db')), false);
    assert.doesNotMatch(run.stdout, /Private key/);
  });

  test('a build made with the code’s migrations is not rebuilt', () => {
    fs.rmSync(project.npmCalls, { force: true });
    writeBuildInfo(project.root, MIGRATION_NAMES);
    // An invalid PORT ends the server at once, after the setup.
    const run = runDemo(dir, project.root, { PORT: 'not-a-port' });
    assert.equal(fs.existsSync(project.npmCalls), false, run.stderr);
    assert.match(run.stdout, /Private key/);
    assert.match(run.stderr, /PORT must be an integer/);
    assert.equal(run.status, 1);
  });

  test('a build of another commit than the one checked out (a pull changed the dashboard) is rebuilt; one of this commit is not', () => {
    git(project.root, 'init', '-q');
    git(
      project.root,
      '-c',
      'user.email=demo@example.com',
      '-c',
      'user.name=demo',
      'commit',
      '-q',
      '--allow-empty',
      '-m',
      'pulled',
    );
    const head = git(project.root, 'rev-parse', 'HEAD');
    assert.match(head, /^[0-9a-f]{40}$/);

    fs.rmSync(project.npmCalls, { force: true });
    writeBuildInfo(project.root, MIGRATION_NAMES, '0'.repeat(40));
    const old = runDemo(dir, project.root, { PORT: 'not-a-port' });
    assert.equal(fs.readFileSync(project.npmCalls, 'utf8'), 'run build\n', old.stderr);
    assert.match(old.stderr, /build is of another commit/);
    assert.doesNotMatch(old.stdout, /Private key/);

    fs.rmSync(project.npmCalls, { force: true });
    writeBuildInfo(project.root, MIGRATION_NAMES, head);
    const same = runDemo(dir, project.root, { PORT: 'not-a-port' });
    assert.equal(fs.existsSync(project.npmCalls), false, same.stderr);
    assert.match(same.stdout, /Private key/);
  });

  test('a run that issues the demo key says once where its private key is kept', () => {
    const database = path.join(dir, 'issuing', 'demo.db');
    const run = runDemo(dir, project.root, {
      PORT: 'not-a-port',
      DATABASE_URL: `file:${database}`,
    });
    assert.match(run.stderr, /Issued/);
    const file = path.join(path.dirname(database), 'demo-credentials.json');
    const said = `${run.stdout}${run.stderr}`.split(file).length - 1;
    assert.equal(said, 1, `${run.stdout}${run.stderr}`);
  });
});
