import assert from 'node:assert/strict';
import { test } from 'node:test';
import { parseJsonSource } from '@/lib/domain/json-text';
import { compareDocuments } from './compare';

test('aligns fields by path and marks the ones that differ or are missing', () => {
  const rows = compareDocuments(
    parseJsonSource(
      JSON.stringify({
        id: 'a',
        eventTypeName: 'JOINED_ORG',
        currentValue: { number: 5, units: 'RAW' },
        raw: { seq: 1 },
      }),
    ),
    parseJsonSource(
      JSON.stringify({
        id: 'b',
        eventTypeName: 'JOINED_ORG',
        currentValue: { number: 7, units: 'RAW' },
        userId: 'u',
      }),
    ),
  );
  assert.deepEqual(rows, [
    { path: 'id', left: '"a"', right: '"b"', differs: true },
    { path: 'eventTypeName', left: '"JOINED_ORG"', right: '"JOINED_ORG"', differs: false },
    { path: 'currentValue.number', left: '5', right: '7', differs: true },
    { path: 'currentValue.units', left: '"RAW"', right: '"RAW"', differs: false },
    { path: 'raw.seq', left: '1', right: null, differs: true },
    { path: 'userId', left: null, right: '"u"', differs: true },
  ]);
});

test('compares numbers as written and strings by their value', () => {
  const rows = compareDocuments(
    parseJsonSource('{"raw":{"accountId":9007199254740993,"one":1.0,"name":"\\u00e9"}}'),
    parseJsonSource('{"raw":{"accountId":9007199254740992,"one":1.0,"name":"é"}}'),
  );
  assert.deepEqual(rows, [
    { path: 'raw.accountId', left: '9007199254740993', right: '9007199254740992', differs: true },
    { path: 'raw.one', left: '1.0', right: '1.0', differs: false },
    { path: 'raw.name', left: '"é"', right: '"é"', differs: false },
  ]);
});

test('a repeated key is compared by its last value, as JSON.parse reads it', () => {
  const rows = compareDocuments(
    parseJsonSource('{"raw":{"a":{"x":1},"a":2}}'),
    parseJsonSource('{"raw":{"a":2}}'),
  );
  assert.deepEqual(rows, [{ path: 'raw.a', left: '2', right: '2', differs: false }]);
});
