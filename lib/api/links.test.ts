import assert from 'node:assert/strict';
import { afterEach, describe, test } from 'node:test';
import { getConfig, setConfigForTesting } from '@/lib/config';
import { baseUrl, pageLinks, selfLink } from './links';
import { parseQuery } from './params';

const headers = (values: Record<string, string>) => ({
  get: (name: string) => values[name.toLowerCase()] ?? null,
});
const defaults = { ...getConfig() };

describe('baseUrl', () => {
  afterEach(() => setConfigForTesting(defaults));

  test('PUBLIC_BASE_URL wins', () => {
    setConfigForTesting({ PUBLIC_BASE_URL: 'https://ops.example.com:8443' });
    assert.equal(
      baseUrl({ headers: headers({ host: 'evil.example' }) }),
      'https://ops.example.com:8443',
    );
  });

  test('otherwise the Host header; forwarded headers only with TRUST_PROXY', () => {
    setConfigForTesting({ PUBLIC_BASE_URL: undefined, TRUST_PROXY: false });
    const forwarded = headers({
      host: '127.0.0.1:3000',
      'x-forwarded-host': 'events.example.com',
      'x-forwarded-proto': 'https',
    });
    assert.equal(baseUrl({ headers: forwarded }), 'http://127.0.0.1:3000');
    setConfigForTesting({ PUBLIC_BASE_URL: undefined, TRUST_PROXY: true });
    assert.equal(baseUrl({ headers: forwarded }), 'https://events.example.com');
    // A proxy that appends keeps what the client sent on the left: its own entry is the right-most.
    const appended = headers({
      host: '127.0.0.1:3000',
      'x-forwarded-host': 'attacker.example, events.example.com',
      'x-forwarded-proto': 'http, https',
    });
    assert.equal(baseUrl({ headers: appended }), 'https://events.example.com');
  });

  test('a missing or malformed Host becomes localhost', () => {
    setConfigForTesting({ PUBLIC_BASE_URL: undefined, TRUST_PROXY: false });
    assert.equal(baseUrl({ headers: headers({}) }), 'http://localhost');
    assert.equal(baseUrl({ headers: headers({ host: 'a.example/"><x' }) }), 'http://localhost');
    assert.equal(baseUrl({ headers: headers({ host: '[::1]:3000' }) }), 'http://[::1]:3000');
  });
});

describe('pageLinks', () => {
  const url = 'http://h/api/public/v1.0/orgs/o/events';

  test('self keeps the other parameters in order, URL-encoded, then pageNum&itemsPerPage', () => {
    const params = parseQuery(
      'includeCount=false&pageNum=1&minDate=2026-08-09T03%3A06%3A48Z&eventType=A&eventType=B',
    );
    assert.deepEqual(pageLinks(url, params, { pageNum: 1, itemsPerPage: 100, hasNext: false }), [
      {
        href: `${url}?includeCount=false&minDate=2026-08-09T03%3A06%3A48Z&eventType=A&eventType=B&pageNum=1&itemsPerPage=100`,
        rel: 'self',
      },
    ]);
  });

  test('previous and next swap the order of the paging parameters, like the real service', () => {
    const links = pageLinks(url, parseQuery('itemsPerPage=2&pageNum=2'), {
      pageNum: 2,
      itemsPerPage: 2,
      hasNext: true,
    });
    assert.deepEqual(links, [
      { href: `${url}?itemsPerPage=2&pageNum=1`, rel: 'previous' },
      { href: `${url}?pageNum=2&itemsPerPage=2`, rel: 'self' },
      { href: `${url}?itemsPerPage=2&pageNum=3`, rel: 'next' },
    ]);
  });

  test('selfLink of a single resource', () => {
    assert.deepEqual(selfLink('u', []), [{ href: 'u', rel: 'self' }]);
    assert.deepEqual(selfLink('u', parseQuery('pretty=true')), [
      { href: 'u?pretty=true', rel: 'self' },
    ]);
  });
});
