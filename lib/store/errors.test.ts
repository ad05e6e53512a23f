import assert from 'node:assert/strict';
import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { toApiError } from '@/lib/domain/errors';
import {
  isDiskFull,
  isRefusedConfiguration,
  isUnavailable,
  StoreUnavailableError,
  translateStoreError,
  unavailable,
} from './errors';

/** An error as a driver reports it: a message and a code. */
function driverError(code: string, message = code): Error {
  return Object.assign(new Error(message), { code });
}

test('a database that cannot write now (disk full, I/O error, read-only, out of memory) is unavailable, not an unexpected error', () => {
  for (const code of [
    'SQLITE_FULL',
    'SQLITE_IOERR',
    'SQLITE_IOERR_WRITE',
    'SQLITE_READONLY',
    'SQLITE_READONLY_DBMOVED',
    'SQLITE_NOMEM',
    '25006',
    '53100',
    '53200',
  ]) {
    assert.equal(isUnavailable(driverError(code)), true, code);
    assert.ok(translateStoreError(driverError(code)) instanceof StoreUnavailableError, code);
  }
  // A query that is wrong stays wrong: not retried, logged as a bug.
  for (const code of ['SQLITE_ERROR', 'SQLITE_CONSTRAINT_UNIQUE', '42601', '23505']) {
    assert.equal(isUnavailable(driverError(code)), false, code);
  }
});

test('a full disk is said as such, not as a database that cannot be reached', () => {
  // SQLite's own SQLITE_FULL: a database held to the pages it has.
  const sqlite = new BetterSqlite3(':memory:');
  let full: unknown;
  try {
    sqlite.exec('CREATE TABLE t (x)');
    sqlite.pragma(`max_page_count = ${sqlite.pragma('page_count', { simple: true }) as number}`);
    sqlite.prepare('INSERT INTO t VALUES (zeroblob(100000))').run();
  } catch (error) {
    full = error;
  } finally {
    sqlite.close();
  }
  const translated = translateStoreError(full);
  assert.ok(translated instanceof StoreUnavailableError);
  assert.equal(
    translated.message,
    'The database cannot write: its disk is full (database or disk is full)',
  );
  assert.equal(isDiskFull(translated), true);
  // PostgreSQL's disk_full.
  assert.equal(
    unavailable(driverError('53100', 'could not extend file "base/1/2": No space left on device'))
      .message,
    'The database cannot write: its disk is full (could not extend file "base/1/2": No space left on device)',
  );
  for (const code of ['SQLITE_IOERR_WRITE', 'ECONNREFUSED', '53200']) {
    assert.match(unavailable(driverError(code)).message, /^The database is unavailable: /, code);
    assert.equal(isDiskFull(driverError(code)), false, code);
  }
});

test("a full disk is answered 503 saying the database's disk is full, naming no file", () => {
  for (const cause of [
    driverError('SQLITE_FULL', 'database or disk is full'),
    // A write, or a read whose sort spills to a temporary file.
    driverError('53100', 'could not extend file "base/16384/16400": No space left on device'),
    driverError(
      '53100',
      'could not write to file "base/pgsql_tmp/pgsql_tmp4321.0": No space left on device',
    ),
  ]) {
    const error = toApiError(translateStoreError(cause));
    assert.equal(error.status, 503);
    assert.equal(
      error.detail,
      "The service is temporarily unavailable (the database's disk is full). Retry in 5 seconds.",
      String(cause),
    );
  }
  // Any other outage is still said as one.
  assert.match(
    toApiError(translateStoreError(driverError('ECONNREFUSED'))).detail,
    /\(database unreachable\)/,
  );
  assert.match(
    toApiError(translateStoreError(driverError('57014', 'canceling statement'))).detail,
    /\(database query timed out\)/,
  );
});

test("SQLite's own read-only refusal is unavailable", () => {
  const dir = fs.mkdtempSync(path.join(os.tmpdir(), 'org-events-errors-'));
  const file = path.join(dir, 'x.db');
  try {
    const writer = new BetterSqlite3(file);
    writer.exec('CREATE TABLE t (x)');
    writer.close();
    const reader = new BetterSqlite3(file, { readonly: true });
    try {
      assert.throws(
        () => reader.exec('INSERT INTO t VALUES (1)'),
        (error: unknown) => isUnavailable(error),
      );
    } finally {
      reader.close();
    }
  } finally {
    fs.rmSync(dir, { recursive: true, force: true });
  }
});

test('what waiting at start cannot fix: the role, password or database refused, a password or TLS the URL lacks', () => {
  const pgError = (code: string) => Object.assign(new Error(`refused ${code}`), { code });
  for (const refused of [
    pgError('28P01'),
    pgError('28000'),
    pgError('3D000'),
    new Error('SASL: SCRAM-SERVER-FIRST-MESSAGE: client password must be a string'),
    new Error('The server does not support SSL connections'),
  ]) {
    assert.equal(isRefusedConfiguration(unavailable(refused)), true, refused.message);
  }
  for (const passing of [
    pgError('57P03'),
    pgError('53300'),
    Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:5432'), { code: 'ECONNREFUSED' }),
    new Error('Connection terminated unexpectedly'),
  ]) {
    assert.equal(isRefusedConfiguration(unavailable(passing)), false, passing.message);
  }
});
