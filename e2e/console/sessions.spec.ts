// The sessions page (`/`): a searchable table of sessions, kept live by
// the one change-cursor poll every page carries (`/changes?since=<cursor>`
// every 2 s, 204 until something changed; then HX-Trigger: wr-changed and
// the #sessions panel fetches itself again and is morphed in place). Rows
// stay where the reader saw them; newer sessions show as an "N new" pill.
import type { Locator, Page } from '@playwright/test';
import {
  test, expect, htmxCounts, htmxIdle, livePanels, markWindow, pauseClock, pollOnce, requestsOf, settle, windowMarked,
} from './fixtures';
import { Run, type SeededSession } from './seed';

/**
 * columnsOf reads the table's column headers once and returns cell,
 * which finds a row's cell under the column whose header is name.
 */
async function columnsOf(page: Page): Promise<(row: Locator, name: string) => Locator> {
  const headers = (await page.getByRole('columnheader').allTextContents()).map((h) => h.trim().toLowerCase());
  return (row, name) => {
    const i = headers.indexOf(name.toLowerCase());
    expect(i, `a "${name}" column among ${headers.join(', ')}`).toBeGreaterThanOrEqual(0);
    return row.getByRole('cell').nth(i);
  };
}

/** statusOf is the Status column's text for a seeded run's last reply
 * (the seeded blocked runs wait on what only the user can give). */
function statusOf(s: SeededSession): string {
  return { step: '▶ in progress', blocked: '☎ needs you', complete: '✓ complete' }[s.kind] ?? `(unknown kind ${s.kind})`;
}

/** rowOf is the sessions table's row of session id. */
function rowOf(page: Page, id: string): Locator {
  return page.locator(`tr[data-testid="session-row"][data-session="${id}"]`);
}

/** shownSessions are the session ids of the table's rows, top to bottom. */
function shownSessions(page: Page): Promise<string[]> {
  return page.getByTestId('session-row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-session')!));
}

test('lists the seeded sessions, the most recently active first, with their columns', async ({ page, seed }) => {
  await page.goto('/');
  await expect(page.getByRole('heading', { name: 'Sessions', exact: true })).toBeVisible();
  const count = Number(await page.getByTestId('session-count').textContent());
  expect(count, 'Sessions in the status section').toBeGreaterThanOrEqual(Object.keys(seed).length);
  const table = page.getByRole('table');
  for (const name of ['Session', 'Workflows', 'Runs', 'Status', 'Open gaps', 'Last activity', 'Health']) {
    await expect(table.getByRole('columnheader', { name, exact: true })).toBeVisible();
  }

  const cell = await columnsOf(page);
  const seeded = Object.values(seed);
  for (const s of seeded) {
    const row = rowOf(page, s.sessionId);
    await expect(row, `row of the ${s.shape} session`).toBeVisible();
    const session = cell(row, 'Session');
    await expect(session.locator('a.row-link')).toHaveAttribute('href', `/sessions/${s.sessionId}`);
    await expect(session).toContainText(s.sessionId);
    await expect(cell(row, 'Workflows')).toHaveText(s.workflowId);
    await expect(cell(row, 'Runs')).toHaveText(['forked', 'review'].includes(s.shape) ? '1 run, 2 branches' : '1 run');
    await expect(cell(row, 'Last activity')).toHaveText(/ · event \d+$/);
    if (s.shape === 'corrupt') continue; // corrupt.spec.ts reads its row
    await expect(cell(row, 'Status').getByTestId('status')).toHaveText(statusOf(s));
    await expect(cell(row, 'Health').getByTestId('health')).toHaveText('healthy');
  }
  // The never-stop run that went past a user-only step has open gaps; of
  // the two the loop run's report listed, its review resolved one; a plain
  // tour has none.
  await expect(rowOf(page, seed['gappy'].sessionId).getByTestId('open-gaps')).toHaveText(/^(1 open gap|\d+ open gaps)$/);
  await expect(rowOf(page, seed['loop'].sessionId).getByTestId('open-gaps')).toHaveText('1 open gap');
  await expect(cell(rowOf(page, seed['completed'].sessionId), 'Open gaps')).toHaveText('none');
  // A session's title is what its agent first wrote.
  await expect(rowOf(page, seed['loop'].sessionId).locator('a.row-link')).toHaveText('Triaged: the parser drops a trailing comma.');

  // The most recently written first: by the store's write sequence, so
  // the times the rows show never go up down the list.
  const times = await page.getByTestId('last-activity').locator('time').evaluateAll((ts) => ts.map((t) => Date.parse(t.getAttribute('datetime')!)));
  expect(times.length).toBeGreaterThanOrEqual(seeded.length - 1); // the corrupt one's last good event may be older
  expect(times, 'sessions, the most recently active first').toEqual([...times].sort((a, b) => b - a));
});

test('carries the security headers on the page, its fragments and assets', async ({ page, request }) => {
  const assets: { url: string; headers: Record<string, string> }[] = [];
  page.on('response', (r) => {
    if (new URL(r.url()).pathname.startsWith('/static/')) assets.push({ url: r.url(), headers: r.headers() });
  });
  const res = await page.goto('/');
  expect(res?.status()).toBe(200);
  expectSecure('the page', res!.headers());

  // A poll from a cursor the store never had always finds a change.
  const changed = await request.get('/changes?since=stale', { headers: { 'HX-Request': 'true' } });
  expect(changed.status()).toBe(200);
  expect(changed.headers()['hx-trigger']).toBe('wr-changed');
  expect(await changed.text()).toMatch(/id="live" hx-get="\/changes\?since=\d+\.\d+"/);
  expectSecure('the poll', changed.headers());
  const panel = await request.get(await page.locator('#sessions').getAttribute('hx-get') ?? '/', { headers: { 'HX-Request': 'true' } });
  expect(panel.status()).toBe(200);
  expectSecure('the live panel', panel.headers());

  expect(assets.map((a) => new URL(a.url).pathname)).toEqual(
    expect.arrayContaining([expect.stringMatching(/\.css$/), expect.stringMatching(/htmx.*\.js$/), expect.stringMatching(/idiomorph.*\.js$/), expect.stringMatching(/console\.js$/)]),
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

// htmx's own indicator <style> would be refused by the CSP and a missing
// favicon would be a 404: the layout turns the first off and names an
// empty icon, so a page and its polls log nothing.
test('logs no console errors at all', async ({ page, consoleErrors }) => {
  await pauseClock(page);
  await page.goto('/');
  await expect(page.getByRole('table')).toBeVisible();
  await htmxIdle(page);
  expect((await pollOnce(page)).status()).toBe(204);
  expect(await htmxCounts(page)).toMatchObject({ sent: 1, done: 1 });
  expect(consoleErrors).toEqual([]);
});

test('shows a step an agent took on its next poll, in place', async ({ page, seed, agent }) => {
  const s = seed['in-progress'];
  await pauseClock(page);
  await page.goto('/');
  const row = rowOf(page, s.sessionId);
  const last = (await columnsOf(page))(row, 'Last activity');
  const eventOf = async () => Number(/event (\d+)$/.exec((await last.textContent()) ?? '')?.[1]);
  const before = await eventOf();
  const order = await shownSessions(page);
  await htmxIdle(page);
  const sent = requestsOf(page);

  // Nothing changed: the daemon answers 204 and nothing else is asked.
  expect((await pollOnce(page)).status()).toBe(204);
  expect(sent.filter((u) => !u.startsWith('/changes?'))).toEqual([]);

  // An agent does the pending step.
  const reply = await Run.resume(agent, s).advance('Listed: README.md, cmd/, engine/, web/.');
  expect(reply.kind).toBe('step');

  const panels = await livePanels(page);
  expect(panels.some((u) => /^\/\?top=\d+&newest=ses_\d+$/.test(u)), `the sessions panel refreshes keeping the latest write and session it showed: ${panels}`).toBe(true);
  const r = await pollOnce(page);
  expect(r.status()).toBe(200);
  expect(r.headers()['hx-trigger']).toBe('wr-changed');
  // Each live panel fetched itself once, and was morphed.
  expect(sent.filter((u) => !u.startsWith('/changes?')).sort()).toEqual(panels);
  await expect.poll(eventOf, { message: 'the last event after the agent advanced' }).toBeGreaterThan(before);
  await expect(last).toHaveText(/^just now\s+wrote notes · event \d+$/);
  expect(await shownSessions(page), 'the session written to comes first, the other rows stay as they were')
    .toEqual([s.sessionId, ...order.filter((id) => id !== s.sessionId)]);
  // The swapped-in poller asks from the new cursor: nothing more changed, so 204 again.
  expect((await pollOnce(page)).status()).toBe(204);
});

test('search typed into the box filters the rows and the URL without a page load', async ({ page, seed }) => {
  const bugs = ['gappy', 'blocked', 'loop', 'review'].map((k) => seed[k].sessionId);
  await page.goto('/');
  await markWindow(page);
  await page.getByRole('searchbox', { name: 'Search' }).fill('bug_investigation');
  await expect(page).toHaveURL(/[?&]q=bug_investigation(&|$)/);
  await htmxIdle(page);
  await expect.poll(() => shownSessions(page)).toEqual([...bugs].reverse());
  expect(await windowMarked(page), 'the same document: htmx swapped the panel').toBe(true);

  // The status select narrows the same search.
  await page.getByRole('combobox', { name: 'Status' }).selectOption('blocked');
  await expect(page).toHaveURL(/[?&]status=blocked(&|$)/);
  await expect(page).toHaveURL(/[?&]q=bug_investigation(&|$)/);
  await htmxIdle(page);
  await expect.poll(() => shownSessions(page)).toEqual([seed['blocked'].sessionId]);
  expect(await windowMarked(page)).toBe(true);

  // Words the sessions do not have: an empty result with a way back.
  await page.getByRole('searchbox', { name: 'Search' }).fill('no-such-session-anywhere');
  await expect(page.getByText('No session matches.')).toBeVisible();
  await page.getByRole('link', { name: 'Show all sessions' }).click();
  await expect(page.getByTestId('session-row').first()).toBeVisible();
});

test('the status select alone filters by status', async ({ page, seed }) => {
  await page.goto('/');
  await page.getByRole('combobox', { name: 'Status' }).selectOption('complete');
  await expect(page).toHaveURL(/[?&]status=complete(&|$)/);
  await htmxIdle(page);
  await expect(rowOf(page, seed['completed'].sessionId)).toBeVisible();
  await expect(rowOf(page, seed['in-progress'].sessionId)).toHaveCount(0);
  for (const status of await page.getByTestId('session-row').getByTestId('status').allTextContents()) {
    expect(status).toBe('✓ complete');
  }
  // The URL is the page: loaded afresh it shows the same choice.
  await page.reload();
  await expect(page.getByRole('combobox', { name: 'Status' })).toHaveValue('complete');
  await expect(rowOf(page, seed['completed'].sessionId)).toBeVisible();
  await expect(rowOf(page, seed['blocked'].sessionId)).toHaveCount(0);
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('the search form is a plain GET form', async ({ page, seed }) => {
    await page.goto('/');
    await page.getByRole('searchbox', { name: 'Search' }).fill('bug_investigation');
    await page.getByRole('combobox', { name: 'Status' }).selectOption('blocked');
    await page.getByRole('button', { name: 'Search' }).click();
    await expect(page).toHaveURL(/\/\?q=bug_investigation&status=blocked$/);
    await expect(page.getByTestId('session-row')).toHaveCount(1);
    await expect(rowOf(page, seed['blocked'].sessionId)).toBeVisible();
    await expect(page.getByRole('searchbox', { name: 'Search' })).toHaveValue('bug_investigation');
  });
});

test('a session started while the page is open shows as an "N new" pill, rows kept', async ({ page, agent }) => {
  await pauseClock(page);
  await page.goto('/');
  await htmxIdle(page);
  const order = await shownSessions(page);
  // The first row's element survives the morph: idiomorph keeps nodes.
  await page.getByTestId('session-row').first().evaluate((tr) => { (tr as any).__wrKept = true; });
  await expect(page.getByTestId('new-pill')).toHaveCount(0);

  const run = await Run.start(agent, { workflowId: 'wr.hello' });
  const fresh = run.seeded('new').sessionId;

  expect((await pollOnce(page)).status()).toBe(200);
  const pill = page.getByTestId('new-pill');
  await expect(pill).toHaveText('1 new session — show');
  await expect(pill).toHaveRole('link');
  expect(await shownSessions(page), 'rows stay where they were').toEqual(order);
  expect(await page.getByTestId('session-row').first().evaluate((tr) => (tr as any).__wrKept === true), 'the same row element').toBe(true);
  await expect(page.locator('#announce')).toHaveText('1 new session');

  await pill.click();
  await settle(page);
  await expect(page.getByTestId('new-pill')).toHaveCount(0);
  const now = await shownSessions(page);
  expect(now, 'the new session first, then the rows as they were').toEqual([fresh, ...order]);
  await expect(page).toHaveURL(/\/$/);
});
