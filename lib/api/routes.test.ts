import assert from 'node:assert/strict';
import fs from 'node:fs';
import path from 'node:path';
import { test } from 'node:test';
import { isApiTarget, matchRoute, OPERATIONS, OPERATION_NAMES } from './routes';
import { splitTarget } from '@/lib/http/request-target';

const P = '/api/public/v1.0';

test('matchRoute knows every operation and nothing else', () => {
  assert.deepEqual(matchRoute(`${P}/openapi.json`), {
    operation: 'getOpenApiDocument',
    params: {},
  });
  assert.deepEqual(matchRoute(`${P}/orgs`), { operation: 'listOrgs', params: {} });
  assert.deepEqual(matchRoute(`${P}/orgs/`), { operation: 'listOrgs', params: {} });
  assert.deepEqual(matchRoute(`${P}/orgs/abc`), { operation: 'getOrg', params: { orgId: 'abc' } });
  assert.deepEqual(matchRoute(`${P}/orgs/abc/events`), {
    operation: 'listOrgEvents',
    params: { orgId: 'abc' },
  });
  assert.deepEqual(matchRoute(`${P}/orgs/abc/events/def/`), {
    operation: 'getOrgEvent',
    params: { orgId: 'abc', eventId: 'def' },
  });
  assert.deepEqual(matchRoute(`${P}/orgs/a%62c/eventTypes`), {
    operation: 'listOrgEventTypes',
    params: { orgId: 'abc' },
  });
  // Literal segments are compared decoded too; an encoded slash stays inside its segment.
  assert.deepEqual(matchRoute(`${P}/%6Frgs/a%2Fb/events`), {
    operation: 'listOrgEvents',
    params: { orgId: 'a/b' },
  });
  assert.deepEqual(matchRoute(`${P}/orgs//events`), {
    operation: 'listOrgEvents',
    params: { orgId: '' },
  });
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

test('every operation path matches itself, with its {names} bound', () => {
  for (const name of OPERATION_NAMES) {
    const pattern = OPERATIONS[name].path;
    const match = matchRoute(`${P}${pattern.replace(/\{(\w+)\}/g, 'v-$1')}`);
    const names = [...pattern.matchAll(/\{(\w+)\}/g)].map((m) => m[1]!);
    assert.deepEqual(match, {
      operation: name,
      params: Object.fromEntries(names.map((n) => [n, `v-${n}`])),
    });
  }
});

test('each Next route file names the operation of its folder, and every operation has a file', () => {
  const root = path.resolve(__dirname, '..', '..', 'app', 'api', 'public', 'v1.0');
  const declared = new Map<string, string>();
  const walk = (dir: string) => {
    for (const entry of fs.readdirSync(dir, { withFileTypes: true })) {
      const full = path.join(dir, entry.name);
      if (entry.isDirectory()) walk(full);
      else if (entry.name === 'route.ts') {
        const source = fs.readFileSync(full, 'utf8');
        const call = /=\s*nextRouteHandlers\('(\w+)'\)/.exec(source);
        assert.ok(call, `${full} exports nextRouteHandlers(<operation>)`);
        assert.match(
          source,
          /export const \{ GET, HEAD, POST, PUT, PATCH, DELETE, OPTIONS \} =/,
          `${full} exports every method, so non-GET requests get the API's JSON 405`,
        );
        // The folder path in the table's notation: [orgId] -> {orgId}.
        const folder = `/${path.relative(root, dir).split(path.sep).join('/')}`.replace(
          /\[(\w+)\]/g,
          '{$1}',
        );
        declared.set(folder, call[1]!);
      }
    }
  };
  walk(root);
  assert.equal(declared.get('/[[...path]]'), 'unmatched');
  declared.delete('/[[...path]]');
  const expected = new Map(OPERATION_NAMES.map((name) => [OPERATIONS[name].path, name]));
  assert.deepEqual(new Map([...declared].sort()), new Map([...expected].sort()));
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
