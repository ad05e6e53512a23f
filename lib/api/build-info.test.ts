import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { MIGRATION_NAMES } from '@/lib/store/migrations';
import { staleBuildReason } from './build-info';

describe('staleBuildReason', () => {
  it('accepts a build with the same migrations, or one that did not record them', () => {
    assert.equal(staleBuildReason([...MIGRATION_NAMES], MIGRATION_NAMES), null);
    assert.equal(staleBuildReason(null, MIGRATION_NAMES), null);
  });

  it('refuses a build older than the code, naming both ends and the fix', () => {
    const older = MIGRATION_NAMES.slice(0, -1);
    const reason = staleBuildReason(older, MIGRATION_NAMES);
    assert.ok(reason);
    assert.match(
      reason,
      new RegExp(
        `through ${older[older.length - 1]!}, the code has ${MIGRATION_NAMES[MIGRATION_NAMES.length - 1]!}`,
      ),
    );
    assert.match(reason, /npm run build/);
  });
});
