// The Console is its owner's. Without a credential every page, fragment
// and form gets the login page, which says how to get in and nothing
// else; a one-time link from `workrail console --print` logs the browser
// in (an HttpOnly, SameSite=Strict session cookie) and is spent.
import { test, expect, pauseClock, pollMs, shootPhoneAndDesktop } from './fixtures';
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
    expect(cookies[0]).toMatchObject({ domain: '127.0.0.1', path: '/', httpOnly: true, sameSite: 'Strict', secure: false, expires: -1 });
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
