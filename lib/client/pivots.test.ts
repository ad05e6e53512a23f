import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { columnPivots, eventPivots, fieldPivot, isFilterableValue } from './pivots';

describe('lib/client/pivots with a comma in a value', () => {
  // The URL and the API escape a comma in a value (`\\,`, lib/domain/value-list.ts),
  // so "Only actor comma,user@…" filters on exactly that actor.
  const event = {
    id: '6a793fbd2c88faeba59bd3b5',
    created: '2026-01-01T00:00:00Z',
    eventTypeName: 'JOINED_ORG',
    username: 'comma,user@example.com',
    targetUsername: 'a,b@example.com',
    clusterName: 'Cluster,0',
    groupId: '65a000000000000000000001',
  };

  it('offers a filter on a value with a comma, as one value', () => {
    assert.deepEqual(
      columnPivots(event, 'actor').map((p) => [p.key, p.value]),
      [['actor', 'comma,user@example.com']],
    );
    assert.deepEqual(
      columnPivots(event, 'target').map((p) => [p.key, p.value]),
      [['targetUsername', 'a,b@example.com']],
    );
    assert.equal(fieldPivot(event, 'clusterName')?.value, 'Cluster,0');
    assert.equal(fieldPivot(event, 'username')?.value, 'comma,user@example.com');
    assert.equal(isFilterableValue('CN=Alice,OU=Eng,DC=example,DC=com'), true);
    assert.equal(isFilterableValue('DOMAIN\\user'), true);
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
