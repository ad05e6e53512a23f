import {
  DASHBOARD_HEADERS,
  eventsUrl,
  expect,
  rows,
  signIn,
  signInWithForm,
  test,
} from './support/fixtures';

test.describe('signing in and out', () => {
  test('signs in with an API key and lands on the only organization it can read', async ({
    page,
    state,
    context,
  }) => {
    await signInWithForm(page, state.keys.member);
    await expect(page).toHaveURL(new RegExp(`/orgs/${state.orgId}/events$`));
    await expect(page.getByRole('heading', { name: 'Events', level: 1 })).toBeVisible();
    await expect(rows(page).first()).toBeVisible();
    await expect(page.getByText(`Signed in as ${state.keys.member.publicKey}`)).toBeVisible();

    // The cookie is sealed, HttpOnly and SameSite=Strict, and holds no private key.
    const cookie = (await context.cookies()).find((c) => c.name === 'org_events_session');
    expect(cookie).toBeDefined();
    expect(cookie!.httpOnly).toBe(true);
    expect(cookie!.sameSite).toBe('Strict');
    expect(cookie!.expires).toBeGreaterThan(Date.now() / 1000);
    expect(cookie!.value).not.toContain(state.keys.member.privateKey);
    expect(await page.evaluate(() => document.cookie)).not.toContain('org_events_session');
    expect(
      await page.evaluate(
        () => JSON.stringify({ ...localStorage }) + JSON.stringify({ ...sessionStorage }),
      ),
    ).not.toContain(state.keys.member.privateKey);
  });

  test('without JavaScript the form posts itself as a form (the one body besides JSON sign-in reads) and signs in', async ({
    browser,
    state,
  }) => {
    const context = await browser.newContext({ javaScriptEnabled: false, baseURL: state.baseUrl });
    const page = await context.newPage();
    const posted = page.waitForRequest((r) => r.url().endsWith('/api/session'));
    await signInWithForm(page, state.keys.member);
    expect((await posted).headers()['content-type']).toBe('application/x-www-form-urlencoded');
    await expect(page).toHaveURL(new RegExp(`/orgs/${state.orgId}/events$`));
    expect((await context.cookies()).some((c) => c.name === 'org_events_session')).toBe(true);
    await context.close();
  });

  test('a wrong key shows a clear error and no session', async ({ page, state, context }) => {
    await signInWithForm(page, { ...state.keys.member, privateKey: 'not-the-private-key' });
    await expect(page.locator('main').getByRole('alert')).toHaveText(
      'The public key or private key is not correct.',
    );
    await expect(page).toHaveURL(/\/sign-in/);
    expect((await context.cookies()).some((c) => c.name === 'org_events_session')).toBe(false);
  });

  test('repeated wrong keys are throttled', async ({ page, state }) => {
    const key = state.keys.spare[0]!;
    await page.goto('/sign-in');
    for (let attempt = 0; attempt < 10; attempt++) {
      await page.getByLabel('Public key').fill(key.publicKey);
      await page.getByLabel('Private key').fill(`wrong-${attempt}`);
      await page.getByRole('button', { name: 'Sign in' }).click();
      await expect(page.locator('main').getByRole('alert')).toContainText('not correct');
    }
    // Blocked now, even with the right private key.
    await page.getByLabel('Private key').fill(key.privateKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page.locator('main').getByRole('alert')).toContainText(
      'Too many failed sign-in attempts',
    );
    await expect(page).toHaveURL(/\/sign-in/);
  });

  test('signs out: the session ends and pages ask to sign in again', async ({ page, state }) => {
    await signIn(page, state.keys.member);
    await page.goto(eventsUrl(state.orgId));
    await expect(rows(page).first()).toBeVisible();
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/sign-in$/);

    await page.goto(eventsUrl(state.orgId, 'page=2'));
    await expect(page).toHaveURL(/\/sign-in\?next=/);
    await expect(page.getByRole('heading', { name: 'Sign in to Org Events' })).toBeVisible();
    const api = await page.request.get(`/api/public/v1.0/orgs/${state.orgId}/events`, {
      headers: DASHBOARD_HEADERS,
    });
    expect(api.status()).toBe(401);
    expect(api.headers()['www-authenticate']).toBeUndefined();
  });

  test('signing out asks the API nothing more once the session has ended', async ({
    page,
    state,
  }) => {
    await signIn(page, state.keys.member);
    await page.goto(eventsUrl(state.orgId));
    await expect(rows(page).first()).toBeVisible();
    await expect(page.getByTestId('histogram')).not.toHaveAttribute('data-buckets', '0');
    let sessionEnded = false;
    const afterEnd: string[] = [];
    page.on('response', (response) => {
      if (response.url().endsWith('/api/session') && response.request().method() === 'DELETE') {
        sessionEnded = true;
      }
    });
    page.on('request', (request) => {
      const url = new URL(request.url());
      if (sessionEnded && url.pathname.startsWith('/api/public/')) afterEnd.push(url.pathname);
    });
    await page.getByRole('button', { name: 'Sign out' }).click();
    await expect(page).toHaveURL(/\/sign-in$/);
    await expect(page.getByRole('heading', { name: 'Sign in to Org Events' })).toBeVisible();
    expect(sessionEnded).toBe(true);
    // The event types, the list, the facets and the histogram were asked
    // again as the cache was emptied: four 401s on the way out.
    expect(afterEnd).toEqual([]);
  });

  test('signing in from a deep link comes back to it', async ({ page, state }) => {
    await page.goto(eventsUrl(state.orgId, 'page=3&size=25'));
    await expect(page).toHaveURL(/\/sign-in\?next=/);
    await page.getByLabel('Public key').fill(state.keys.member.publicKey);
    await page.getByLabel('Private key').fill(state.keys.member.privateKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(new RegExp(`/orgs/${state.orgId}/events\\?page=3&size=25$`));
    await expect(page.getByRole('button', { name: 'Page 3' })).toHaveAttribute(
      'aria-current',
      'page',
    );
  });

  test('an expired session says so on sign-in and comes back to the view', async ({
    page,
    context,
    state,
  }) => {
    await signIn(page, state.keys.member);
    // The page warms the next page when the browser is idle; on a busy machine
    // that can come after the cookie dies and end the session before the click.
    const nextPageWarmed = page.waitForResponse(
      (response) => response.url().includes('/events?') && response.url().includes('pageNum=2'),
    );
    await page.goto(eventsUrl(state.orgId, 'size=25'));
    await expect(rows(page).first()).toBeVisible();
    await nextPageWarmed;
    // The cookie stops opening (as an expired one does): the next load is refused.
    const cookie = (await context.cookies()).find((c) => c.name === 'org_events_session')!;
    await context.addCookies([{ ...cookie, value: `${cookie.value.slice(0, -4)}AAAA` }]);
    await page.getByRole('button', { name: 'Last 24 hours' }).click();
    await expect(page).toHaveURL(/\/sign-in\?reason=expired&next=/);
    await expect(page.getByTestId('session-expired')).toHaveText(/Your session has expired/);
    await page.getByLabel('Public key').fill(state.keys.member.publicKey);
    await page.getByLabel('Private key').fill(state.keys.member.privateKey);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await expect(page).toHaveURL(new RegExp(`/orgs/${state.orgId}/events\\?range=24h&size=25$`));
    await expect(page.getByRole('button', { name: 'Last 24 hours' })).toHaveAttribute(
      'aria-pressed',
      'true',
    );

    // A page load with a dead cookie says the same; without a cookie it does not.
    await page.goto('about:blank');
    await context.addCookies([{ ...cookie, value: 'not-a-session' }]);
    await page.goto(eventsUrl(state.orgId, 'page=3'));
    await expect(page).toHaveURL(/\/sign-in\?reason=expired&next=/);
    await expect(page.getByTestId('session-expired')).toBeVisible();
    await context.clearCookies();
    await page.goto(eventsUrl(state.orgId, 'page=3'));
    await expect(page).toHaveURL(/\/sign-in\?next=/);
    await expect(page.getByTestId('session-expired')).toHaveCount(0);
  });

  test('past the last page, the summary says so and the last page is one click away', async ({
    page,
    state,
  }) => {
    const last = Math.ceil(state.events.length / 50);
    await signIn(page, state.keys.member);
    await page.goto(eventsUrl(state.orgId, 'page=9999'));
    const pagination = page.getByRole('navigation', { name: 'Pagination' });
    await expect(pagination.getByTestId('page-summary')).toContainText(
      `No events on page 9,999; the last page is ${last}`,
    );
    await expect(pagination.getByRole('button', { name: 'Last page' })).toBeEnabled();
    await pagination.getByRole('button', { name: 'Last page' }).click();
    await expect(page).toHaveURL(new RegExp(`page=${last}$`));
    await expect(rows(page).first()).toBeVisible();
    await expect(pagination.getByRole('button', { name: 'Last page' })).toBeDisabled();
  });

  test("another organization's URL is refused, in the page (403) and in the API", async ({
    page,
    state,
  }) => {
    await signIn(page, state.keys.member);
    // Its own organization's list is titled by the organization's name.
    await page.goto(eventsUrl(state.orgId));
    await expect(page).toHaveTitle(/^Events · \S.* · Org Events$/);
    const list = await page.goto(eventsUrl(state.otherOrgId));
    expect(list!.status()).toBe(403);
    await expect(page).toHaveTitle('No access · Org Events');
    await expect(
      page.getByRole('heading', { name: 'You don’t have access to this organization' }),
    ).toBeVisible();
    await expect(page.getByRole('main')).toContainText(`organization ${state.otherOrgId}`);
    await expect(page.getByText(`Signed in as ${state.keys.member.publicKey}`)).toBeVisible();
    await expect(page.locator('table.events')).toHaveCount(0);

    const event = await page.goto(`/orgs/${state.otherOrgId}/events/${state.events[0]!.id}`);
    expect(event!.status()).toBe(403);
    await expect(
      page.getByRole('heading', { name: 'You don’t have access to this organization' }),
    ).toBeVisible();

    const api = await page.request.get(`/api/public/v1.0/orgs/${state.otherOrgId}/events`, {
      headers: DASHBOARD_HEADERS,
    });
    // README: a key without a reader role in the org gets 401 USER_UNAUTHORIZED
    // (and the dashboard's 401 carries no WWW-Authenticate).
    expect(api.status()).toBe(401);
    expect(api.headers()['www-authenticate']).toBeUndefined();
    const body = await api.text();
    expect((JSON.parse(body) as { errorCode: string }).errorCode).toBe('USER_UNAUTHORIZED');
    expect(body).not.toContain('"results"');

    // The org picker lists only what the key can read.
    await page.goto('/orgs');
    await expect(page.getByRole('list', { name: 'Organizations' }).getByRole('link')).toHaveCount(
      1,
    );
  });

  test('an unknown or malformed organization id is answered 404 with the same page', async ({
    page,
    state,
  }) => {
    await signIn(page, state.keys.member);
    // The API answers these 404 ORG_NOT_FOUND and 400, where another org is its 401.
    for (const orgId of ['0123456789abcdef01234567', 'not-an-org-id']) {
      const response = await page.goto(eventsUrl(orgId));
      expect(response!.status()).toBe(404);
      await expect(page).toHaveTitle('No access · Org Events');
      await expect(
        page.getByRole('heading', { name: 'You don’t have access to this organization' }),
      ).toBeVisible();
      await expect(page.getByRole('main')).toContainText(`organization ${orgId}`);
    }
  });

  test('another site cannot show the dashboard in a frame', async ({ page, state, baseURL }) => {
    await signIn(page, state.keys.member);
    // A page of no origin of ours (about:blank) framing the sign-in form and
    // the events: a clickjacking page would lay its own buttons over them.
    for (const path of ['/sign-in', eventsUrl(state.orgId)]) {
      await page.setContent(`<iframe src="${baseURL}${path}" width="800" height="600"></iframe>`, {
        waitUntil: 'load',
      });
      expect(page.frames(), path).toHaveLength(2);
      // Nothing of the page shows: Chromium puts its own error page in the frame.
      await expect(page.frameLocator('iframe').locator('main'), path).toHaveCount(0);
    }
  });

  test('a cross-site sign-in post is refused', async ({ page, state }) => {
    const response = await page.request.post('/api/session', {
      data: { publicKey: state.keys.member.publicKey, privateKey: state.keys.member.privateKey },
      headers: { Origin: 'https://attacker.example' },
    });
    expect(response.status()).toBe(403);
    expect((await response.json()) as { errorCode: string }).toMatchObject({
      errorCode: 'CROSS_SITE_REQUEST',
    });
  });
});
