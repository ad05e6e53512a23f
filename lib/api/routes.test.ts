import assert from 'node:assert/strict';
import { test } from 'node:test';
import { isApiTarget, matchRoute, splitTarget } from './routes';

const P = '/api/public/v1.0';

test('matchRoute knows every resource and nothing else', () => {
  assert.deepEqual(matchRoute(`${P}/openapi.json`), { kind: 'openapi' });
  assert.deepEqual(matchRoute(`${P}/orgs`), { kind: 'orgs' });
  assert.deepEqual(matchRoute(`${P}/orgs/`), { kind: 'orgs' });
  assert.deepEqual(matchRoute(`${P}/orgs/abc`), { kind: 'org', orgId: 'abc' });
  assert.deepEqual(matchRoute(`${P}/orgs/abc/events`), { kind: 'events', orgId: 'abc' });
  assert.deepEqual(matchRoute(`${P}/orgs/abc/events/def/`), {
    kind: 'event',
    orgId: 'abc',
    eventId: 'def',
  });
  assert.deepEqual(matchRoute(`${P}/orgs/a%62c/eventTypes`), { kind: 'eventTypes', orgId: 'abc' });
  assert.deepEqual(matchRoute(`${P}/orgs//events`), { kind: 'events', orgId: '' });
  for (const path of [
    P,
    `${P}/`,
    `${P}/groups/x/events`,
    `${P}/orgs/abc/events/def/more`,
    `${P}/orgs/abc/eventTypes/x`,
    `${P}/orgs/abc/users`,
    `${P}/openapi.json/x`,
    `${P}/orgs/%zz/events`,
    '/api/public/v1.00/orgs',
    '/other',
  ]) {
    assert.equal(matchRoute(path), null, path);
  }
});

test('splitTarget and isApiTarget', () => {
  assert.deepEqual(splitTarget('/a/b?x=1&y'), { path: '/a/b', search: 'x=1&y' });
  assert.deepEqual(splitTarget('http://h:1/a?x#f'), { path: '/a', search: 'x' });
  assert.deepEqual(splitTarget('http://h'), { path: '/', search: '' });
  assert.equal(isApiTarget(`${P}/orgs?x=1`), true);
  assert.equal(isApiTarget(P), true);
  assert.equal(isApiTarget(`http://h${P}/orgs`), true);
  assert.equal(isApiTarget('/api/public/v1.0x'), false);
  assert.equal(isApiTarget('/events'), false);
  assert.equal(isApiTarget(undefined), false);
});
