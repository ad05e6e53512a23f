import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isObjectId, newObjectId, objectIdTime } from './object-id';

test('ids made one after another in a second order as they were made (the ledger lists runs of one millisecond by id)', () => {
  // Within one second (the first id's), or the second's prefix alone orders them.
  const ids = [newObjectId()];
  while (ids.length < 2000) {
    const id = newObjectId();
    if (objectIdTime(id) !== objectIdTime(ids[0]!)) break;
    ids.push(id);
  }
  assert.ok(ids.length >= 2, `${ids.length} ids in one second`);
  for (const id of ids) assert.ok(isObjectId(id), id);
  for (let i = 1; i < ids.length; i++) {
    // A counter wrapping (once in 16,777,216 ids) is the one exception.
    if (ids[i]!.slice(18) === '000000') continue;
    assert.ok(ids[i]! > ids[i - 1]!, `${ids[i - 1]} then ${ids[i]}`);
  }
  assert.equal(new Set(ids).size, ids.length);
});
