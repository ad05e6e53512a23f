import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test } from 'node:test';
import { BUNDLE_DIR, BUNDLE_INPUTS, freshCliBundle } from '@/bin/cli-bundle.mjs';
import { CLI_BIN, ROOT } from './run-cli';

/**
 * `npx org-events` runs the CLI's bundle (made by `npm run build`) only
 * while no source it was made from is newer; otherwise the sources, through
 * tsx. Either way the same commands give the same answers.
 */
describe('the CLI bundle', () => {
  let dir: string;
  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-cli-bundle-'));
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  test('this build made one, from every source the CLI loads', () => {
    assert.equal(
      freshCliBundle(ROOT),
      path.join(ROOT, BUNDLE_DIR, 'cli.cjs'),
      'run `npm run build` first',
    );
    const inputs = JSON.parse(fs.readFileSync(path.join(ROOT, BUNDLE_INPUTS), 'utf8')) as string[];
    for (const source of [
      'scripts/cli.ts',
      'scripts/cli/bulk-commands.ts',
      'lib/ingest/bulk-worker.ts',
      'lib/store/sqlite.ts',
    ]) {
      assert.ok(inputs.includes(source), source);
    }
  });

  test('is passed over when a source is newer, a bundled file or the list is missing', () => {
    const root = path.join(dir, 'project');
    const bundleDir = path.join(root, BUNDLE_DIR);
    fs.mkdirSync(path.join(root, 'lib'), { recursive: true });
    fs.mkdirSync(bundleDir, { recursive: true });
    const source = path.join(root, 'lib', 'a.ts');
    fs.writeFileSync(source, 'export {};\n');
    const built = (at: Date) => {
      for (const name of ['cli.cjs', 'bulk-worker.cjs']) {
        fs.writeFileSync(path.join(bundleDir, name), '');
        fs.utimesSync(path.join(bundleDir, name), at, at);
      }
      fs.writeFileSync(path.join(root, BUNDLE_INPUTS), JSON.stringify(['lib/a.ts']));
    };
    const sourceAt = (at: Date) => fs.utimesSync(source, at, at);

    built(new Date('2026-01-02'));
    sourceAt(new Date('2026-01-01'));
    assert.equal(freshCliBundle(root), path.join(bundleDir, 'cli.cjs'));
    sourceAt(new Date('2026-01-03')); // edited (or checked out) after the build
    assert.equal(freshCliBundle(root), undefined);
    sourceAt(new Date('2026-01-01'));
    fs.rmSync(path.join(bundleDir, 'bulk-worker.cjs'));
    assert.equal(freshCliBundle(root), undefined);
    built(new Date('2026-01-02'));
    fs.rmSync(source); // a source it was made from is gone
    assert.equal(freshCliBundle(root), undefined);
    fs.writeFileSync(source, '');
    sourceAt(new Date('2026-01-01'));
    fs.rmSync(path.join(root, BUNDLE_INPUTS));
    assert.equal(freshCliBundle(root), undefined);
    assert.equal(freshCliBundle(path.join(dir, 'nothing-here')), undefined);
  });

  test('the bundle and the sources through tsx answer alike, seed and import (the bundled producer thread) included', () => {
    const org = '65a1b2c3d4e5f6a7b8c9d0e1';
    const run = (how: 'bundle' | 'sources', database: string, ...args: string[]) => {
      const argv =
        how === 'bundle'
          ? [CLI_BIN, ...args]
          : ['--import', 'tsx', path.join(ROOT, 'scripts', 'cli.ts'), ...args];
      const result = spawnSync(process.execPath, [...argv, '--database', database], {
        cwd: ROOT,
        encoding: 'utf8',
        env: { ...process.env, NODE_ENV: 'test' },
        timeout: 60_000,
      });
      assert.equal(result.status, 0, `${how} ${args.join(' ')}: ${result.stderr}`);
      return result.stdout;
    };
    const answers = (how: 'bundle' | 'sources') => {
      const database = path.join(dir, `${how}.db`);
      run(how, database, 'orgs', 'create', '--name', 'Bundle', '--id', org);
      const seeded = JSON.parse(
        run(
          how,
          database,
          'seed',
          '--org',
          org,
          '--events',
          '300',
          '--from',
          '2026-01-01',
          '--to',
          '2026-02-01',
          '--json',
        ),
      ) as { inserted: number };
      const file = path.join(dir, `${how}.ndjson`);
      run(how, database, 'events', 'export', '--org', org, '--out', file);
      const copy = path.join(dir, `${how}-copy.db`);
      run(how, copy, 'orgs', 'create', '--name', 'Copy', '--id', org);
      const imported = JSON.parse(run(how, copy, 'import', '--org', org, file, '--json')) as {
        inserted: number;
      };
      return {
        seeded: seeded.inserted,
        imported: imported.inserted,
        exported: fs.readFileSync(file, 'utf8'),
        listed: run(how, copy, 'events', 'list', '--org', org, '--limit', '300', '--json'),
      };
    };
    const bundle = answers('bundle');
    const sources = answers('sources');
    assert.equal(bundle.seeded, 300);
    assert.equal(bundle.imported, 300);
    assert.equal(bundle.exported.split('\n').filter(Boolean).length, 300);
    assert.deepEqual(bundle, sources);
  });
});
