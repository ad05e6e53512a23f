import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DatabaseUrlError, parseDatabaseUrl, withLibpqSslModes } from './database-url';

test('database URLs: the supported forms name their engine; any other scheme is refused', () => {
  assert.deepEqual(parseDatabaseUrl('file:./data/org-events.db'), {
    engine: 'sqlite',
    filename: './data/org-events.db',
  });
  assert.deepEqual(parseDatabaseUrl('sqlite:///tmp/a.db'), {
    engine: 'sqlite',
    filename: '/tmp/a.db',
  });
  assert.deepEqual(parseDatabaseUrl('data/a.db'), { engine: 'sqlite', filename: 'data/a.db' });
  assert.deepEqual(parseDatabaseUrl(':memory:'), { engine: 'sqlite', filename: ':memory:' });
  for (const url of ['postgres://h/db', 'POSTGRESQL://h/db?sslmode=require']) {
    assert.deepEqual(parseDatabaseUrl(url), { engine: 'postgres', connectionString: url });
  }
  for (const url of ['postgress://h/db', 'mysql://x', 'file:/tmp/q.db?mode=ro', 'file:', '']) {
    assert.throws(() => parseDatabaseUrl(url), DatabaseUrlError, url);
  }
});

test('a refused URL is named without its password', () => {
  for (const url of [
    'postgress://app:hunter2@db.example.com/x',
    'mysql://root:hunter2@db/x',
    // A password holding '/' or '@' unencoded is still all hidden.
    'mysql://root:hun/ter2@db/x',
    'mysql://root:hun@ter2@db/x',
  ]) {
    assert.throws(
      () => parseDatabaseUrl(url),
      (error: Error) => !error.message.includes('hunter2') && error.message.includes('***@'),
      url,
    );
  }
});

test('pg is told to read sslmode as libpq does where its own reading differs, never over a uselibpqcompat written in the URL', () => {
  for (const mode of ['prefer', 'require', 'verify-ca']) {
    const url = `postgres://h/db?sslmode=${mode}&sslrootcert=/ca.pem`;
    assert.equal(withLibpqSslModes(url), `${url}&uselibpqcompat=true`, mode);
  }
  for (const url of [
    'postgres://h/db',
    'postgres://h/db?sslmode=disable',
    'postgres://h/db?sslmode=verify-full',
    'postgres://h/db?sslmode=no-verify',
    'postgres://h/db?sslmode=require&uselibpqcompat=false',
  ]) {
    assert.equal(withLibpqSslModes(url), url);
  }
});
