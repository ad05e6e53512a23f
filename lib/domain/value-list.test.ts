import assert from 'node:assert/strict';
import { describe, it } from 'node:test';
import { escapeValue, joinValueList, splitValueList } from './value-list';

describe('lib/domain/value-list: commas separate, \\, and \\\\ escape', () => {
  it('reads escapes, and leaves any other backslash literal', () => {
    assert.deepEqual(splitValueList('orders,2024'), ['orders', '2024']);
    assert.deepEqual(splitValueList('orders\\,2024'), ['orders,2024']);
    assert.deepEqual(splitValueList('a\\\\,b'), ['a\\', 'b']);
    assert.deepEqual(splitValueList('a\\\\\\,b'), ['a\\,b']);
    assert.deepEqual(splitValueList('DOMAIN\\user'), ['DOMAIN\\user']);
    assert.deepEqual(splitValueList('a\\'), ['a\\']);
    assert.deepEqual(splitValueList('a\\\\'), ['a\\']);
    assert.deepEqual(splitValueList('CN=Alice\\,OU=Eng\\,DC=example\\,DC=com,bob'), [
      'CN=Alice,OU=Eng,DC=example,DC=com',
      'bob',
    ]);
  });

  it('trims each value around its unescaped text, and keeps empty items for callers to judge', () => {
    assert.deepEqual(splitValueList(' a , b '), ['a', 'b']);
    assert.deepEqual(splitValueList(' \\, '), [',']);
    assert.deepEqual(splitValueList('a,,b,'), ['a', '', 'b', '']);
    assert.deepEqual(splitValueList(''), ['']);
  });

  it('escapes only what needs it', () => {
    assert.equal(escapeValue('orders,2024'), 'orders\\,2024');
    assert.equal(escapeValue('DOMAIN\\user'), 'DOMAIN\\user');
    assert.equal(escapeValue('a\\'), 'a\\\\');
    assert.equal(escapeValue('a\\,b'), 'a\\\\\\,b');
    assert.equal(escapeValue('a\\\\b'), 'a\\\\\\b');
    assert.equal(joinValueList(['a\\', 'b']), 'a\\\\,b');
  });

  it('round-trips any list of values without surrounding whitespace', () => {
    const cases: string[][] = [
      ['a,b'],
      ['a\\,b'],
      ['a\\', 'b'],
      ['DOMAIN\\user'],
      ['\\'],
      ['\\\\'],
      [','],
      ['x\\', '\\y', ',', 'CN=Alice,OU=Eng'],
    ];
    // Every list of up to three values over the characters that matter.
    const alphabet = ['a', ',', '\\', ' '];
    const strings = [''];
    for (let length = 1; length <= 4; length += 1) {
      for (const s of strings.filter((t) => t.length === length - 1))
        for (const c of alphabet) strings.push(s + c);
    }
    const values = strings.filter((s) => s !== '' && s.trim() === s);
    for (const a of values) for (const b of values.slice(0, 40)) cases.push([a, b]);
    for (const list of cases) {
      assert.deepEqual(splitValueList(joinValueList(list)), list, JSON.stringify(list));
    }
  });
});
