import assert from 'node:assert/strict';
import { test } from 'node:test';
import {
  ApiError,
  CHALLENGE_BODY,
  errorJson,
  errorMessage,
  errorObject,
  eventNotFound,
  invalidQueryParameter,
  orgNotFound,
  rateLimited,
  toApiError,
} from './errors';

test('error bodies are the real shape, keys alphabetical', () => {
  assert.equal(
    JSON.stringify(errorObject(orgNotFound('5f0000000000000000000001'))),
    '{"detail":"No organization with ID 5f0000000000000000000001 exists.","error":404,"errorCode":"ORG_NOT_FOUND","parameters":["5f0000000000000000000001"],"reason":"Not Found"}',
  );
  const notFound = errorObject(eventNotFound('6a0000000000000000000001'));
  assert.equal(notFound.errorCode, 'RESOURCE_NOT_FOUND');
  assert.equal(notFound.detail, 'Cannot find resource Event with id 6a0000000000000000000001.');
  const bad = invalidQueryParameter('itemsPerPage', '501', 'must be an integer from 1 to 500');
  assert.equal(bad.status, 400);
  assert.deepEqual(errorObject(bad).parameters, ['itemsPerPage', '501']);
  assert.deepEqual(rateLimited(42).headers, [['Retry-After', '42']]);
  assert.equal(rateLimited(42).status, 429);
});

test('the challenge body is the real one, byte for byte (142 bytes)', () => {
  assert.equal(Buffer.byteLength(CHALLENGE_BODY), 142);
  assert.deepEqual(JSON.parse(CHALLENGE_BODY), {
    error: 401,
    reason: 'Unauthorized',
    detail: 'You are not authorized for this resource.',
    errorCode: 'UNEXPECTED_ERROR',
  });
});

test('unexpected errors become a bare 500 that tells the client nothing of the cause', () => {
  const error = toApiError(new Error('connection refused to 10.0.0.5 as admin'));
  assert.equal(error.status, 500);
  assert.equal(error.code, 'UNEXPECTED_ERROR');
  assert.equal(error.detail, 'Unexpected error.');
  assert.doesNotMatch(errorJson(error), /10\.0\.0\.5|admin|refused/);
  const known = orgNotFound('x');
  assert.equal(toApiError(known), known, 'API errors pass through');
  assert.ok(toApiError('weird') instanceof ApiError);
});

test("the store's StoreUnavailableError (by name: no import of lib/store) is a 503 with Retry-After", () => {
  const outage = Object.assign(new Error('connect ECONNREFUSED'), {
    name: 'StoreUnavailableError',
    retryAfterSeconds: 3,
  });
  const error = toApiError(outage);
  assert.equal(error.status, 503);
  assert.equal(error.code, 'SERVICE_UNAVAILABLE');
  assert.deepEqual(error.headers, [['Retry-After', '3']]);
  assert.doesNotMatch(error.detail, /ECONNREFUSED/, "the engine's message stays in the log");
});

test('errorMessage: an Error, a thrown object with a message (as from another thread), anything else', () => {
  assert.equal(errorMessage(new TypeError('bad input')), 'bad input');
  assert.equal(
    errorMessage({ code: 'SQLITE_FULL', message: 'database or disk is full' }),
    'database or disk is full',
  );
  assert.equal(errorMessage('plain text'), 'plain text');
  assert.equal(errorMessage(null), 'null');
});
