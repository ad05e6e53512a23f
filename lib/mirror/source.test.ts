import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseListing } from './source';

const RECORD =
  '{"created":"2026-10-01T00:00:28Z","eventTypeName":"JOINED_ORG","id":"6abda29c0000000000000004","orgId":"5f0000000000000000000001","raw":{"big":9007199254740993,"f":1.0,"e":"\\u00e9"}}';

test("a page's records come with their own texts, as served", () => {
  assert.deepEqual(parseListing(`{"links":[],"results":[${RECORD},${RECORD}]}`), [
    { value: JSON.parse(RECORD) as unknown, text: RECORD },
    { value: JSON.parse(RECORD) as unknown, text: RECORD },
  ]);
});

test('a page holding a content.results list besides results, in either order, is refused, never read without its texts', () => {
  for (const body of [
    `{"content":{"results":[]},"results":[${RECORD}]}`,
    `{"results":[${RECORD}],"content":{"results":[]}}`,
  ]) {
    assert.equal(
      parseListing(body),
      'is no one list of events: the object holds both a "results" list and a "content.results" list: which list of records is meant is unclear',
      body,
    );
  }
});

test('a page that is one event with a results field is refused, never read without its texts', () => {
  assert.equal(
    parseListing(`{"eventTypeName":"X","results":[${RECORD}]}`),
    'is one event (it has an "id" or "eventTypeName"), not a list of events',
  );
});

test('a page naming results twice is refused, not thrown', () => {
  assert.equal(
    parseListing(`{"results":[],"results":[${RECORD}]}`),
    'is no one list of events: "results" appears twice in one object: which list of records is meant is unclear',
  );
});

test('a page opening with a byte order mark is read as without it', () => {
  assert.deepEqual(parseListing(`\ufeff{"links":[],"results":[${RECORD}]}`), [
    { value: JSON.parse(RECORD) as unknown, text: RECORD },
  ]);
});
