import assert from 'node:assert/strict';
import { test } from 'node:test';
import { DEFAULT_TABLE_PREFS, moveColumn, normalizeTablePrefs } from './table-prefs';

test('prefs from anything: unknown columns dropped, missing ones appended, density checked', () => {
  assert.deepEqual(normalizeTablePrefs(null), DEFAULT_TABLE_PREFS);
  assert.deepEqual(
    normalizeTablePrefs({
      order: ['summary', 'bogus', 'type', 'type'],
      hidden: ['actor', 'time'],
      density: 'compact',
    }),
    {
      order: ['summary', 'type', 'actor', 'target', 'resource', 'remote'],
      hidden: ['actor'],
      density: 'compact',
      facetsOpen: true,
      collapsedFacets: [],
    },
  );
});

test('the facet sidebar: shown unless turned off, folded sections checked against the facet fields', () => {
  const prefs = normalizeTablePrefs({
    facetsOpen: false,
    collapsedFacets: ['actor', 'nope', 'actor'],
  });
  assert.equal(prefs.facetsOpen, false);
  assert.deepEqual(prefs.collapsedFacets, ['actor']);
  assert.equal(normalizeTablePrefs({ facetsOpen: 'no' }).facetsOpen, true);
});

test('moves a column one place, and not past either end', () => {
  const order = DEFAULT_TABLE_PREFS.order;
  assert.deepEqual(moveColumn(order, 'actor', -1).slice(0, 2), ['actor', 'type']);
  assert.deepEqual(moveColumn(order, 'type', -1), order);
  assert.deepEqual(moveColumn(order, 'summary', 1), order);
});
