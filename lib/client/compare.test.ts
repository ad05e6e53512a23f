import assert from 'node:assert/strict';
import { test } from 'node:test';
import { compareDocuments } from './compare';

test('aligns fields by path and marks the ones that differ or are missing', () => {
  const rows = compareDocuments(
    {
      id: 'a',
      eventTypeName: 'JOINED_ORG',
      currentValue: { number: 5, units: 'RAW' },
      raw: { seq: 1 },
    },
    {
      id: 'b',
      eventTypeName: 'JOINED_ORG',
      currentValue: { number: 7, units: 'RAW' },
      userId: 'u',
    },
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
