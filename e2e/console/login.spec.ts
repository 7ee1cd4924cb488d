// The Console is its owner's. Without a credential every page, fragment
// and form gets the login page, which says how to get in and nothing
// else; a one-time link from `workrail console --print` logs the browser
// in (an HttpOnly, SameSite=Strict login cookie) and is spent; Log out,
// in every page's header, ends that login.
import { request } from '@playwright/test';
import { test, expect, isPoll, pauseClock, pollMs, shootLightAndDark, shootPhoneAndDesktop } from './fixtures';
import { loginLink } from './daemon';

const link = () => loginLink({ root: '', bin: process.env.WORKRAIL_E2E_BIN!, home: process.env.WORKRAIL_E2E_HOME! });
const noCookies = { cookies: [], origins: [] };

test.describe('a browser that has not logged in', () => {
  test.use({ storageState: noCookies, allowConsoleErrors: true });

  test('gets the login page everywhere, and nothing else', async ({ page, request, seed, consoleErrors }, info) => {
    const s = Object.values(seed)[0];
    for (const url of ['/', `/sessions/${s.sessionId}`, `/sessions/${s.sessionId}/runs/${s.runId}`, `/sessions/${s.sessionId}/bundle`,
      '/gaps', '/workflows', '/workflows/new', '/config', '/import', '/search?q=hello', '/no-such-page']) {
      const res = await page.goto(url);
      expect(res!.status(), url).toBe(401);
      await expect(page.getByTestId('login')).toContainText('workrail console');
      const html = await page.content();
      expect(html, `${url} names the session`).not.toContain(s.sessionId);
      expect(html, `${url} holds a token`).not.toMatch(/csrf|[0-9a-f]{64}/i);
    }
    // The page is styled: the stylesheet is open, as every static asset is.
    expect(await page.locator('header').evaluate((h) => getComputedStyle(h).borderBottomStyle)).toBe('solid');
    await shootPhoneAndDesktop(page, 'login', (f) => info.outputPath(f));
    for (const [method, url] of [['GET', '/changes?since=0.0'], ['GET', '/?top=ses_1'], ['POST', '/config/restart'], ['POST', '/workflows/new']]) {
      const res = await request.fetch(url, { method, headers: { 'HX-Request': 'true' }, form: method === 'POST' ? { name: 'planted' } : undefined });
      expect(res.status(), `${method} ${url}`).toBe(401);
      expect(await res.text()).toContain('Log in to the Console');
      expect(res.headers()['hx-refresh'], `${method} ${url} reloads the page`).toBe(method === 'GET' ? 'true' : undefined);
    }
    expect(consoleErrors.filter((e) => !e.includes('status of 401'))).toEqual([]);
  });

  test('logs in once with a login link, which then is spent', async ({ page, browser, baseURL }) => {
    const url = link();
    await page.goto(url);
    await expect(page).toHaveURL(`${baseURL}/`); // the code left the address bar
    await expect(page.getByRole('heading', { name: 'Sessions', exact: true })).toBeVisible();
    const cookies = await page.context().cookies();
    expect(cookies).toHaveLength(1);
    expect(cookies[0].name).toMatch(/^workrail_console_\d+$/);
    expect(cookies[0]).toMatchObject({ domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Strict', secure: false });
    // The browser keeps it as long as a login lasts at most: 24 hours.
    expect(Math.abs(cookies[0].expires * 1000 - (Date.now() + 24 * 3_600_000)), 'the cookie lasts 24 hours').toBeLessThan(120_000);
    expect(await page.evaluate(() => document.cookie), 'no script can read the cookie').toBe('');

    const other = await browser.newContext({ baseURL, storageState: noCookies });
    const again = await other.newPage();
    expect((await again.goto(url))!.status()).toBe(401);
    await expect(again.getByTestId('login')).toContainText('used already');
    expect(await other.cookies()).toEqual([]);
    await other.close();
  });
});

test.describe('a page whose login is gone', () => {
  test.use({ allowConsoleErrors: true });

  test('reloads into the login page at its next poll', async ({ page, context }) => {
    await pauseClock(page);
    await page.goto('/');
    await expect(page.getByRole('heading', { name: 'Sessions', exact: true })).toBeVisible();
    await context.clearCookies();
    const reloaded = page.waitForResponse((r) => new URL(r.url()).pathname === '/' && r.status() === 401);
    await page.clock.runFor(pollMs);
    await reloaded;
    await expect(page.getByTestId('login')).toContainText('workrail console');
  });
});

test.describe('Log out', () => {
  // A login of this test's own: logging out the one the other specs share would end theirs.
  test.use({ storageState: noCookies, allowConsoleErrors: true });

  test('is in every page header at phone and desktop width, and ends this browser\'s login only', async ({ page, browser, baseURL, seed, consoleErrors }, info) => {
    await page.goto(link());
    await expect(page).toHaveURL(`${baseURL}/`);
    const s = Object.values(seed)[0];
    for (const url of ['/', `/sessions/${s.sessionId}`, '/workflows', '/workflows/new', '/config', '/no-such-page']) {
      await page.goto(url);
      await expect(page.locator('header').getByRole('button', { name: 'Log out' }), url).toBeVisible();
    }
    await page.goto('/');
    const logout = page.locator('header').getByRole('button', { name: 'Log out' });
    for (const width of [390, 1280]) {
      await page.setViewportSize({ width, height: 844 });
      await expect(logout, `Log out at ${width} px`).toBeInViewport({ ratio: 1 });
      const box = (await logout.boundingBox())!;
      expect(box.height, `Log out at ${width} px is big enough to press`).toBeGreaterThanOrEqual(24);
      await shootLightAndDark(page, (scheme) => info.outputPath(`logout-header-${width}-${scheme}.png`), { of: page.locator('header') });
    }
    await shootPhoneAndDesktop(page, 'logout', (f) => info.outputPath(f));

    // The owner's other browser, logged in on its own.
    const other = await browser.newContext({ baseURL, storageState: noCookies });
    const otherPage = await other.newPage();
    await otherPage.goto(link());
    const [mine] = await page.context().cookies();

    await logout.click();
    await expect(page.getByTestId('login')).toContainText('You are logged out of the Console in this browser.');
    expect(await page.context().cookies(), 'the cookie is gone from this browser').toEqual([]);
    await shootPhoneAndDesktop(page, 'logged-out', (f) => info.outputPath(f));
    expect((await page.goto('/'))!.status()).toBe(401);

    // The ended login's cookie, replayed from elsewhere, opens nothing.
    const replay = await request.newContext({ baseURL, storageState: { cookies: [mine], origins: [] } });
    const res = await replay.get('/');
    expect(res.status()).toBe(401);
    expect(await res.text()).toContain('Your login to this Console has ended');
    await replay.dispose();

    expect((await otherPage.goto('/'))!.status(), 'the other browser stays logged in').toBe(200);
    await other.close();
    // The not-found page and the pages after logging out answer 404 and 401; nothing else went wrong.
    expect(consoleErrors.filter((e) => !/status of (401|404)/.test(e))).toEqual([]);
  });

  // The race, made certain: a poll the page sent before Log out reaches
  // the daemon after Log out ended the login, and its answer (401, reload
  // the page) reaches the page before Log out's own. Unhandled, the page
  // reloads and says the login has ended instead of "You are logged out".
  test('says "You are logged out" when a poll the ended login refused is answered first', async ({ page }) => {
    await page.goto(link());
    await expect(page.getByRole('heading', { name: 'Sessions', exact: true })).toBeVisible();
    let endLogin!: () => void;
    const loginEnded = new Promise<void>((resolve) => (endLogin = resolve));
    await page.route((url) => isPoll(url.href), async (route) => {
      await loginEnded;
      await route.continue();
    });
    const refused = page.waitForResponse((r) => isPoll(r.url()) && r.status() === 401);
    await page.route((url) => url.pathname === '/logout', async (route) => {
      const answer = await route.fetch();
      endLogin();
      await refused;
      await route.fulfill({ response: answer });
    });
    const polled = page.waitForRequest((r) => isPoll(r.url()));
    await page.evaluate(() => (window as any).htmx.trigger(document.body, 'wr-wake'));
    await polled;

    await page.locator('header').getByRole('button', { name: 'Log out' }).click();
    await expect(page.getByTestId('login')).toContainText('You are logged out of the Console in this browser.');
    expect(await page.context().cookies(), 'the cookie is gone from this browser').toEqual([]);
  });
});
