import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { listEventsParameters, pagingParameters } from './query';

/** The first issue's parameter and rule, as the API's 400 quotes them; null when accepted. */
function firstIssue(schema: typeof pagingParameters | typeof listEventsParameters, input: object) {
  const result = schema.safeParse(input);
  if (result.success) return null;
  const issue = result.error.issues[0]!;
  return { parameter: String(issue.path[0]), rule: issue.message };
}

describe('pageNum', () => {
  test('a well-formed integer past every safe integer is a page beyond any possible result', () => {
    const beyond = { parameter: 'pageNum', rule: 'page is beyond any possible result' };
    for (const pageNum of [
      '9007199254740991', // the largest safe integer: out of reach at 500 a page
      '9007199254740992',
      '9007199254740993', // read as ...992 by Number: not an exact page number
      '99999999999999999999',
      '9'.repeat(400), // Infinity as a double
    ]) {
      assert.deepEqual(firstIssue(pagingParameters, { pageNum, itemsPerPage: '500' }), beyond);
      assert.deepEqual(firstIssue(listEventsParameters, { pageNum, itemsPerPage: '500' }), beyond);
    }
    // One a page, the largest safe integer is still an addressable offset.
    assert.equal(
      firstIssue(pagingParameters, { pageNum: '9007199254740991', itemsPerPage: '1' }),
      null,
    );
    assert.deepEqual(
      firstIssue(pagingParameters, { pageNum: '9007199254740993', itemsPerPage: '1' }),
      beyond,
    );
  });

  test('what is no integer of at least 1 keeps its rule; leading zeros of any length are read', () => {
    const rule = { parameter: 'pageNum', rule: 'must be an integer of at least 1' };
    for (const pageNum of ['0', '-1', '1e300', '9007199254740993.0', `-${'9'.repeat(20)}`]) {
      assert.deepEqual(firstIssue(pagingParameters, { pageNum }), rule, pageNum);
    }
    assert.equal(pagingParameters.parse({ pageNum: `${'0'.repeat(30)}7` }).pageNum, 7);
  });

  test('bounded integers quote their range for any value above it', () => {
    for (const itemsPerPage of ['501', '9007199254740993', '9'.repeat(400)]) {
      assert.deepEqual(firstIssue(pagingParameters, { itemsPerPage }), {
        parameter: 'itemsPerPage',
        rule: 'must be an integer from 1 to 500',
      });
    }
  });
});

describe('filter value lists', () => {
  test('`\\,` is a literal comma and `\\\\` a backslash; other backslashes are literal', () => {
    const fields = (input: Record<string, string[]>) => {
      const result = listEventsParameters.safeParse(input);
      assert.ok(result.success, JSON.stringify(result.error?.issues));
      return result.data;
    };
    assert.deepEqual(fields({ collection: ['orders\\,2024'] }).collection, ['orders,2024']);
    assert.deepEqual(fields({ collection: ['orders,2024'] }).collection, ['orders', '2024']);
    assert.deepEqual(fields({ username: ['CN=Alice\\,OU=Eng', ' bob '] }).username, [
      'CN=Alice,OU=Eng',
      'bob',
    ]);
    assert.deepEqual(fields({ actor: ['DOMAIN\\user,a\\\\,b\\'] }).actor, [
      'DOMAIN\\user',
      'a\\',
      'b\\',
    ]);
    assert.equal(
      firstIssue(listEventsParameters, { collection: ['a\\,,'] })?.parameter,
      'collection',
    );
  });
});
