import assert from 'node:assert/strict';
import { test } from 'node:test';
import BetterSqlite3 from 'better-sqlite3';
import { serviceUnavailable } from '@/lib/domain/errors';
import { getLogger } from '@/lib/ops/log';
import { translateStoreError } from '@/lib/store/errors';
import { failureResponse } from './responses';

/** SQLite's own "database or disk is full", as the store throws it. */
function diskFull(): unknown {
  const sqlite = new BetterSqlite3(':memory:');
  try {
    sqlite.exec('CREATE TABLE t (x)');
    sqlite.pragma(`max_page_count = ${sqlite.pragma('page_count', { simple: true }) as number}`);
    sqlite.prepare('INSERT INTO t VALUES (zeroblob(100000))').run();
  } catch (error) {
    return translateStoreError(error);
  } finally {
    sqlite.close();
  }
  throw new Error('the insert did not fail');
}

test("a dashboard route's store failure (a full disk) answers 503 and logs its cause as a warning", async (t) => {
  const warnings: { fields: Record<string, unknown>; message: string }[] = [];
  t.mock.method(getLogger(), 'warn', (fields: Record<string, unknown>, message: string) => {
    warnings.push({ fields, message });
  });
  const error = diskFull();
  const response = failureResponse(error, 'saved views failed');
  assert.equal(response.status, 503);
  assert.equal(response.headers.get('Retry-After'), '5');
  assert.equal(((await response.json()) as { errorCode: string }).errorCode, 'SERVICE_UNAVAILABLE');
  // The request's own line says "service unavailable" and nothing of why.
  assert.equal(warnings.length, 1);
  assert.equal(warnings[0]!.message, 'saved views failed');
  assert.equal(warnings[0]!.fields.err, error);
  assert.match(String((error as Error).message), /its disk is full/);

  // Redis away is answered with its own message and logged where it is met.
  warnings.length = 0;
  assert.equal(failureResponse(serviceUnavailable('shared state unreachable', 5), 'x').status, 503);
  assert.deepEqual(warnings, []);
});
