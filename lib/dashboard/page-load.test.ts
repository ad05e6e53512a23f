import assert from 'node:assert/strict';
import { describe, test } from 'node:test';
import { automaticReloadHrefs, pageLoadUse } from './page-load';

/**
 * The fetch metadata /usr/bin/chromium (156) sent for each kind of page load
 * to a node:http server, driven by Playwright: the meta refresh is the one
 * navigation without Sec-Fetch-User (unless the page had a user gesture in
 * the 5 s before it: then Chromium sends ?1, as for the user's).
 */
const TYPED = {
  'sec-fetch-site': 'none',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-user': '?1',
  'sec-fetch-dest': 'document',
};
const RELOAD_BUTTON = { ...TYPED, 'cache-control': 'max-age=0' };
const CLICKED = { ...TYPED, 'sec-fetch-site': 'same-origin' };
const META_REFRESH = {
  'cache-control': 'max-age=0',
  'sec-fetch-site': 'same-origin',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-dest': 'document',
};
/** Safari sends the others, never Sec-Fetch-User (MDN's compatibility data). */
const SAFARI = {
  'sec-fetch-site': 'same-origin',
  'sec-fetch-mode': 'navigate',
  'sec-fetch-dest': 'document',
};

const use = (headers: Record<string, string>, target: string | undefined) =>
  pageLoadUse(new Headers(headers), target);

describe('page loads: whose activity', () => {
  const marked = '/orgs/o/events?size=25&reload=auto';
  const plain = '/orgs/o/events?size=25';

  test("the outage page's automatic reload is background, in Chromium and in Safari", () => {
    assert.equal(use(META_REFRESH, marked), 'background');
    assert.equal(use(SAFARI, marked), 'background');
    assert.equal(use({}, marked), 'background', 'a browser without fetch metadata');
  });

  test("a load of the marked address the browser says is the user's is activity", () => {
    assert.equal(use(RELOAD_BUTTON, marked), 'activity');
    assert.equal(use(TYPED, marked), 'activity');
    assert.equal(use(CLICKED, marked), 'activity');
  });

  test('an unmarked load is activity however it was made; a prefetch is background', () => {
    for (const headers of [TYPED, RELOAD_BUTTON, CLICKED, META_REFRESH, SAFARI, {}]) {
      assert.equal(use(headers, plain), 'activity');
    }
    assert.equal(
      use({}, undefined),
      'activity',
      'no wire facts (a request that came while next start was booting)',
    );
    assert.equal(use({ 'next-router-prefetch': '1' }, plain), 'background');
    assert.equal(use({ 'next-router-segment-prefetch': '/_tree' }, plain), 'background');
  });

  test("the router's fetch of a marked address, a click on a link that kept the marker, is activity", () => {
    // What Next's client navigation sends: a fetch, never Sec-Fetch-User.
    const routerFetch = {
      rsc: '1',
      'sec-fetch-site': 'same-origin',
      'sec-fetch-mode': 'cors',
      'sec-fetch-dest': 'empty',
    };
    assert.equal(use(routerFetch, `${marked}&_rsc=1x2y3`), 'activity');
    assert.equal(use({ rsc: '1' }, marked), 'activity', 'a browser without fetch metadata');
    assert.equal(use({ ...SAFARI, 'sec-fetch-mode': 'cors' }, marked), 'activity', 'a fetch');
  });

  test('only the marker names an automatic reload: another value, or the word elsewhere, does not', () => {
    assert.equal(use(SAFARI, '/orgs/o/events?reload=now'), 'activity');
    assert.equal(use(SAFARI, '/orgs/o/events?q=reload%3Dauto'), 'activity');
    assert.equal(use(SAFARI, '/orgs/o/events?q=1#reload=auto'), 'activity');
  });
});

describe('the outage page: where it reloads to, and where "Try again" goes', () => {
  test('the same address marked, and the same address unmarked', () => {
    assert.deepEqual(automaticReloadHrefs('/orgs/o/events?size=25'), {
      reload: '/orgs/o/events?size=25&reload=auto',
      retry: '/orgs/o/events?size=25',
    });
    assert.deepEqual(automaticReloadHrefs('/orgs/o/events?size=25&reload=auto'), {
      reload: '/orgs/o/events?size=25&reload=auto',
      retry: '/orgs/o/events?size=25',
    });
    assert.deepEqual(automaticReloadHrefs('/orgs'), {
      reload: '/orgs?reload=auto',
      retry: '/orgs',
    });
  });

  test("from a proxy's absolute form, and a client navigation's _rsc dropped", () => {
    assert.deepEqual(automaticReloadHrefs('http://example.test/orgs?x=1'), {
      reload: '/orgs?x=1&reload=auto',
      retry: '/orgs?x=1',
    });
    assert.deepEqual(automaticReloadHrefs('/orgs/o/events?size=25&_rsc=1abcd'), {
      reload: '/orgs/o/events?size=25&reload=auto',
      retry: '/orgs/o/events?size=25',
    });
  });

  test('no address (no wire facts), or one off the site: the page reloads itself as it is', () => {
    const itself = { reload: undefined, retry: '' };
    assert.deepEqual(automaticReloadHrefs(undefined), itself);
    assert.deepEqual(automaticReloadHrefs('//evil.test/orgs'), itself);
    assert.deepEqual(automaticReloadHrefs('/\\evil.test/orgs'), itself);
    assert.deepEqual(automaticReloadHrefs('/./\\evil.test/orgs'), itself);
  });

  test('a query not as a browser encodes it is not written into the refresh: the page reloads itself', () => {
    const itself = { reload: undefined, retry: '' };
    assert.deepEqual(automaticReloadHrefs('/orgs/o/events?q="x"'), itself);
    assert.deepEqual(automaticReloadHrefs('/orgs/o/events?q=日本'), itself);
    assert.deepEqual(automaticReloadHrefs('/orgs/o/events?q=%22x%22'), {
      reload: '/orgs/o/events?q=%22x%22&reload=auto',
      retry: '/orgs/o/events?q=%22x%22',
    });
  });
});
