import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  countsOrgEvents,
  eventQueryKey,
  eventSourceQueryOptions,
  eventTypesQueryOptions,
  eventsListQueryKey,
  facetsQueryKey,
  histogramQueryKey,
  sameFilters,
} from './api-client';
import { DEFAULT_VIEW, listParams } from './url-state';

test('new events make every count of the org stale, never a single event', () => {
  const params = listParams('org1', DEFAULT_VIEW);
  const { page: _page, size: _size, ...filters } = params;
  assert.ok(countsOrgEvents('org1', eventsListQueryKey(params)));
  assert.ok(countsOrgEvents('org1', facetsQueryKey(filters, ['eventTypeName'])));
  assert.ok(countsOrgEvents('org1', histogramQueryKey(filters)));
  assert.ok(countsOrgEvents('org1', eventTypesQueryOptions('org1').queryKey));
  assert.ok(!countsOrgEvents('org1', eventQueryKey('org1', 'a'.repeat(24), true)));
  assert.ok(!countsOrgEvents('org1', eventSourceQueryOptions('org1', 'a'.repeat(24)).queryKey));
  assert.ok(!countsOrgEvents('org1', ['orgs', 'org1', 'views']));
  assert.ok(!countsOrgEvents('org2', histogramQueryKey(filters)));
});

test('two lists are the same when their filters and dates are, whatever their page, size or open event', () => {
  const view = { ...DEFAULT_VIEW, types: ['JOINED_ORG', 'API_KEY_CREATED'], range: '7d' as const };
  const list = listParams('org1', view);
  assert.ok(
    sameFilters(list, listParams('org1', { ...view, page: 4, size: 25, event: 'a'.repeat(24) })),
  );
  // Types in another order are the same list.
  assert.ok(
    sameFilters(list, listParams('org1', { ...view, types: ['API_KEY_CREATED', 'JOINED_ORG'] })),
  );
  assert.ok(!sameFilters(list, listParams('org1', { ...view, types: ['JOINED_ORG'] })));
  assert.ok(!sameFilters(list, listParams('org1', { ...view, range: '24h' })));
  assert.ok(!sameFilters(list, listParams('org1', { ...view, q: 'alice' })));
  assert.ok(!sameFilters(list, listParams('org1', { ...view, fields: { clusterName: ['c1'] } })));
});
