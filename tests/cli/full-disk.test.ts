import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { after, before, describe, test, type TestContext } from 'node:test';
import { mountSmallDisk, type SmallDisk } from '@/tests/helpers/small-disk';
import { cli, cliWith } from './run-cli';

/**
 * Writing fails midway: the disk fills up (a tmpfs of a few megabytes,
 * where root may mount one) or a file reaches the process's size limit
 * (RLIMIT_FSIZE, anywhere). A backup or an export says which file could
 * not be written and leaves none of it behind.
 */

const ORG = '6b1c2d3e4f5a6b7c8d9e0f01';
const EVENTS = 3000;

describe('CLI: writing fails midway (a full disk, a file-size limit)', () => {
  let dir: string;
  let source: string;

  before(() => {
    dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-cli-full-disk-'));
    source = path.join(dir, 'source.db');
    const seeded = cli(
      source,
      ...['seed', '--org', ORG, '--events', String(EVENTS), '--create-org', '--name', 'Full'],
      ...['--from', '2026-01-01', '--to', '2026-02-01'],
    );
    assert.equal(seeded.code, 0, seeded.stderr);
  });
  after(() => fs.rmSync(dir, { recursive: true, force: true }));

  function smallDisk(t: TestContext, megabytes: number): SmallDisk | undefined {
    const disk = mountSmallDisk(megabytes);
    if (typeof disk === 'string') {
      t.skip(disk);
      return undefined;
    }
    t.after(() => disk.unmount());
    return disk;
  }

  test('a backup onto a full disk or past a file-size limit names its file and leaves nothing', (t) => {
    const limited = path.join(dir, 'limited-copy.db');
    const refused = cliWith({ fileSizeLimit: 1_000_000 }, source, 'backup', '--out', limited);
    assert.equal(refused.code, 1);
    // It was "Error: [object Object]": the copying thread's error lost its message.
    assert.equal(
      refused.stderr.trim(),
      `Error: Backup to ${limited} failed (disk I/O error): nothing was written`,
    );
    assert.deepEqual(
      fs.readdirSync(dir).filter((name) => name.includes('copy')),
      [],
    );

    const disk = smallDisk(t, 1);
    if (!disk) return;
    const full = path.join(disk.dir, 'copy.db');
    const json = cli(source, 'backup', '--out', full, '--json');
    assert.equal(json.code, 1);
    assert.deepEqual(json.json, {
      error: {
        code: 'failed',
        message: `Cannot write ${full}: no space left on its disk (database or disk is full); nothing was written`,
        exitCode: 1,
      },
    });
    assert.deepEqual(fs.readdirSync(disk.dir), []);
  });

  test('an export onto a full disk or past a file-size limit names its file and leaves nothing', (t) => {
    const limited = path.join(dir, 'limited.ndjson');
    const refused = cliWith(
      { fileSizeLimit: 100_000 },
      source,
      ...['events', 'export', '--org', ORG, '--out', limited],
    );
    assert.equal(refused.code, 1);
    assert.match(
      refused.stderr,
      new RegExp(
        `^Error: Cannot write ${limited} \\(EFBIG: file too large, write\\): nothing was written$`,
        'm',
      ),
    );
    assert.deepEqual(
      fs.readdirSync(dir).filter((name) => name.includes('limited.ndjson')),
      [],
    );
    // A device written in place: no file to leave, the name said all the same.
    const device = cli(source, 'events', 'export', '--org', ORG, '--out', '/dev/full');
    assert.equal(device.code, 1);
    assert.match(
      device.stderr,
      /^Error: Cannot write \/dev\/full \(ENOSPC: no space left on device, write\)$/m,
    );

    const disk = smallDisk(t, 1);
    if (!disk) return;
    const full = path.join(disk.dir, 'events.ndjson');
    const filled = cli(source, 'events', 'export', '--org', ORG, '--out', full, '--include-raw');
    assert.equal(filled.code, 1);
    assert.match(
      filled.stderr,
      new RegExp(
        `^Error: Cannot write ${full} \\(ENOSPC: no space left on device, write\\): nothing was written$`,
        'm',
      ),
    );
    assert.deepEqual(fs.readdirSync(disk.dir), []);
  });
});
