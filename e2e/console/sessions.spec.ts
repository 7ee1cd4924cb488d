// The sessions page (`/`): the table of sessions, kept live by an htmx poll
// of `/?since=<cursor>` every 5 s that the daemon answers 204 until
// something changed.
import type { Locator, Page } from '@playwright/test';
import { test, expect, htmxCounts, htmxIdle, htmxRequestsDone, htmxSettleMs } from './fixtures';
import { Run } from './seed';

/** cell is the cell of row under the column whose header is name. */
async function cell(page: Page, row: Locator, name: string): Promise<Locator> {
  const headers = (await page.getByRole('columnheader').allTextContents()).map((h) => h.trim().toLowerCase());
  const i = headers.indexOf(name.toLowerCase());
  expect(i, `a "${name}" column among ${headers.join(', ')}`).toBeGreaterThanOrEqual(0);
  return row.getByRole('cell').nth(i);
}

/**
 * pollOnce fires the page's 5 s poll on the paused clock, lets a swap
 * settle, waits for htmx to be idle and returns the poll's response.
 */
async function pollOnce(page: Page) {
  const response = page.waitForResponse((r) => new URL(r.url()).searchParams.has('since'));
  await page.clock.runFor(5_000);
  const r = await response;
  await htmxRequestsDone(page);
  await page.clock.runFor(htmxSettleMs);
  await htmxIdle(page);
  return r;
}

/** pauseClock freezes the page's timers (htmx's poll among them) until pollOnce. */
async function pauseClock(page: Page) {
  const t0 = Date.parse('2026-01-01T09:00:00Z');
  await page.clock.install({ time: t0 });
  await page.clock.pauseAt(t0 + 1_000);
}

test('lists the seeded sessions, newest first', async ({ page, seed }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Sessions' })).toBeVisible();
  const table = page.getByRole('table');
  await expect(table.getByRole('columnheader', { name: 'Session' })).toBeVisible();

  const seeded = Object.values(seed);
  for (const s of seeded) {
    const row = table.locator(`tr[data-session="${s.sessionId}"]`);
    await expect(row, `row of the ${s.shape} session`).toBeVisible();
    await expect(await cell(page, row, 'Session')).toHaveText(s.sessionId);
    await expect(await cell(page, row, 'Workflow')).toContainText(s.workflowId);
    await expect(await cell(page, row, 'Workflow')).toContainText(s.runId);
    await expect(await cell(page, row, 'Health')).toHaveText('healthy');
    await expect(await cell(page, row, 'Events')).toHaveText(/^\d+$/);
  }
  const order = await table.locator('tr[data-session]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-session')));
  const ids = seeded.map((s) => s.sessionId);
  expect(order.filter((id) => ids.includes(id!)), 'seeded sessions, newest first').toEqual([...ids].reverse());
});

test('carries the security headers on the page, its fragments and assets', async ({ page, request }) => {
  const assets: { url: string; headers: Record<string, string> }[] = [];
  page.on('response', (r) => {
    if (new URL(r.url()).pathname.startsWith('/static/')) assets.push({ url: r.url(), headers: r.headers() });
  });
  const res = await page.goto('/');
  expect(res?.status()).toBe(200);
  expectSecure('the page', res!.headers());

  const fragment = await request.get('/?since=0', { headers: { 'HX-Request': 'true' } });
  expect(fragment.status()).toBe(200);
  expectSecure('the polled fragment', fragment.headers());

  expect(assets.map((a) => new URL(a.url).pathname)).toEqual(
    expect.arrayContaining([expect.stringMatching(/\.css$/), expect.stringMatching(/htmx.*\.js$/)]),
  );
  for (const a of assets) {
    expect(a.headers['x-content-type-options'], a.url).toBe('nosniff');
  }
});

function expectSecure(what: string, h: Record<string, string>) {
  const csp = h['content-security-policy'] ?? '';
  const directives = new Map(
    csp.split(';').map((d) => d.trim().split(/\s+/)).filter((d) => d[0]).map(([name, ...values]) => [name, values]),
  );
  const scripts = directives.get('script-src');
  expect(scripts, `${what}: CSP script-src in "${csp}"`).toContain("'self'");
  expect(scripts, `${what}: script-src`).not.toContain("'unsafe-inline'");
  expect(scripts, `${what}: script-src`).not.toContain("'unsafe-eval'");
  expect(h['x-content-type-options'], `${what}: X-Content-Type-Options`).toBe('nosniff');
}

/** loadAndPoll opens the page on a paused clock and lets its poll fire once. */
async function loadAndPoll(page: Page) {
  await pauseClock(page);
  await page.goto('/');
  await expect(page.getByRole('table')).toBeVisible();
  await htmxIdle(page);
  expect((await pollOnce(page)).status()).toBe(204);
  expect(await htmxCounts(page)).toMatchObject({ sent: 1, done: 1 });
}

// htmx's own indicator <style> would be refused by the CSP and a missing
// favicon would be a 404: the layout turns the first off and names an
// empty icon, so a page and its polls log nothing.
test('logs no console errors at all', async ({ page, consoleErrors }) => {
  await loadAndPoll(page);
  expect(consoleErrors).toEqual([]);
});

test('shows a step an agent took on its next poll', async ({ page, seed, agent }) => {
  const s = seed['in-progress'];
  await pauseClock(page);
  await page.goto('/');
  const row = page.locator(`tr[data-session="${s.sessionId}"]`);
  const events = await cell(page, row, 'Events');
  const before = Number(await events.textContent());
  await htmxIdle(page);

  // Nothing changed: the daemon answers 204 and htmx keeps the table.
  expect((await pollOnce(page)).status()).toBe(204);
  await expect(events).toHaveText(String(before));

  // An agent does the pending step.
  const reply = await Run.resume(agent, s).advance('Listed: README.md, cmd/, engine/, web/.');
  expect(reply.kind).toBe('step');

  const r = await pollOnce(page);
  expect(r.status()).toBe(200);
  await expect.poll(async () => Number(await events.textContent()), { message: 'events after the agent advanced' }).toBeGreaterThan(before);
  // The swapped-in fragment polls on with the new cursor: nothing more changed, so 204 again.
  expect((await pollOnce(page)).status()).toBe(204);
});

test.describe('on a 390 px wide phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  // The table scrolls inside its own box; the page never does.
  test('does not scroll the page sideways', async ({ page }) => {
    await page.goto('/');
    await expect(page.getByRole('table')).toBeVisible();
    const { scrollWidth, clientWidth } = await page.evaluate(() => ({
      scrollWidth: document.documentElement.scrollWidth,
      clientWidth: document.documentElement.clientWidth,
    }));
    expect(scrollWidth, 'page width at a 390 px viewport').toBeLessThanOrEqual(clientWidth);
  });
});

test('screenshots in light and dark', async ({ page }, testInfo) => {
  await page.goto('/');
  await expect(page.getByRole('table')).toBeVisible();
  await htmxIdle(page);
  for (const colorScheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme });
    expect(await page.evaluate((s) => matchMedia(`(prefers-color-scheme: ${s})`).matches, colorScheme)).toBe(true);
    await page.screenshot({ path: testInfo.outputPath(`sessions-${colorScheme}.png`), fullPage: true });
  }
});
