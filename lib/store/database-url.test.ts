import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DatabaseUrlError, parseDatabaseUrl } from './database-url';

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
  for (const url of ['postgress://app:hunter2@db.example.com/x', 'mysql://root:hunter2@db/x']) {
    assert.throws(
      () => parseDatabaseUrl(url),
      (error: Error) => !error.message.includes('hunter2') && error.message.includes('***@'),
      url,
    );
  }
});
