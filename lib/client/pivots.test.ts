import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { columnPivots, eventPivots, fieldPivot, isFilterableValue } from './pivots';

describe('lib/client/pivots with a comma in a value', () => {
  // Commas separate values in the URL and the API: "Only actor comma,user@…"
  // would filter on "comma" and "user@…", which match nothing.
  const event = {
    id: '6a793fbd2c88faeba59bd3b5',
    created: '2026-01-01T00:00:00Z',
    eventTypeName: 'JOINED_ORG',
    username: 'comma,user@example.com',
    targetUsername: 'a,b@example.com',
    clusterName: 'Cluster,0',
    groupId: '65a000000000000000000001',
  };

  it('offers no filter on a value with a comma, and the others still', () => {
    assert.deepEqual(columnPivots(event, 'actor'), []);
    assert.deepEqual(columnPivots(event, 'target'), []);
    assert.deepEqual(
      columnPivots(event, 'resource').map((p) => [p.key, p.value]),
      [['groupId', '65a000000000000000000001']],
    );
    assert.equal(fieldPivot(event, 'clusterName'), null);
    assert.equal(fieldPivot(event, 'username'), null);
    assert.deepEqual(
      eventPivots(event).map((p) => `${p.key}:${p.value}`),
      ['eventType:JOINED_ORG', 'groupId:65a000000000000000000001'],
    );
  });
});

describe('lib/client/pivots with spaces around a value', () => {
  it('offers no filter on a value the URL would trim into another one, or into none', () => {
    const event = {
      id: '6a793fbd2c88faeba59bd3b5',
      created: '2026-01-01T00:00:00Z',
      eventTypeName: 'JOINED_ORG',
      username: 'alice ',
      hostname: '  ',
    };
    assert.equal(fieldPivot(event, 'username'), null);
    assert.equal(fieldPivot(event, 'hostname'), null);
    assert.deepEqual(
      eventPivots(event).map((p) => `${p.key}:${p.value}`),
      ['eventType:JOINED_ORG'],
    );
    assert.equal(isFilterableValue('alice'), true);
  });
});
