import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import BetterSqlite3 from 'better-sqlite3';

/**
 * A disk that fills up, for the tests of what a command leaves when writing
 * fails midway: a tmpfs of a few megabytes (ENOSPC, SQLITE_FULL: the real
 * thing), which only root may mount, as the test machines run. Elsewhere
 * `fileSizeLimitArgs` runs a command under RLIMIT_FSIZE (EFBIG, SQLite's
 * disk I/O error), which anyone may.
 */
export type SmallDisk = {
  dir: string;
  /** Space given back: the tmpfs made this large, its files kept. */
  grow: (megabytes: number) => void;
  unmount: () => void;
};

/** A mounted tmpfs of `megabytes`, or why there can be none here (to skip with). */
export function mountSmallDisk(megabytes: number): SmallDisk | string {
  if (process.getuid?.() !== 0) return 'mounting a small tmpfs needs root';
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-small-disk-'));
  const mount = (options: string) =>
    spawnSync('mount', ['-t', 'tmpfs', '-o', options, 'tmpfs', dir], { encoding: 'utf8' });
  const mounted = mount(`size=${megabytes}m`);
  if (mounted.status !== 0) {
    fs.rmdirSync(dir);
    return `mount refused a tmpfs: ${(mounted.stderr || mounted.error?.message || '').trim()}`;
  }
  return {
    dir,
    grow: (larger) => {
      const grown = mount(`remount,size=${larger}m`);
      if (grown.status !== 0) throw new Error(`remount failed: ${grown.stderr}`);
    },
    unmount: () => {
      spawnSync('umount', [dir]);
      fs.rmSync(dir, { recursive: true, force: true });
    },
  };
}

/**
 * The command and arguments that run `command args` with no file written
 * past `bytes` (prlimit, util-linux). Node ignores SIGXFSZ, so a write
 * past the limit fails with EFBIG instead of ending the process.
 */
export function fileSizeLimitArgs(
  bytes: number,
  command: string,
  args: string[],
): [string, string[]] {
  return ['prlimit', [`--fsize=${bytes}`, '--', command, ...args]];
}

/** Writes the file `filler` until its disk has no room left (ENOSPC); removing it gives the room back. */
export function fillDisk(filler: string): void {
  const fd = fs.openSync(filler, 'w');
  try {
    for (;;) fs.writeSync(fd, Buffer.alloc(4096));
  } catch (error) {
    assert.equal((error as NodeJS.ErrnoException).code, 'ENOSPC');
  } finally {
    fs.closeSync(fd);
  }
}

/**
 * Empties an SQLite database's write-ahead log into the file (a TRUNCATE
 * checkpoint), so its next write needs room the disk may no longer have:
 * a WAL keeps its size, and writes reuse it without asking the disk.
 */
export function emptyWal(database: string): void {
  const checkpoint = new BetterSqlite3(database);
  try {
    checkpoint.pragma('busy_timeout = 10000');
    checkpoint.pragma('wal_checkpoint(TRUNCATE)');
  } finally {
    checkpoint.close();
  }
}
