// Live updates: every page polls GET /changes?since=<cursor> every 2 s
// (#live). The daemon answers 204 while nothing changed; otherwise 200,
// a new poller and HX-Trigger: wr-changed, on which each live panel
// fetches its own URL and idiomorph morphs it in place, keeping focus; a
// changed summary is read out in the polite #announce region. A hidden
// tab does not poll, and polls at once when shown again (console.js).
// Specs that need a run to advance either own a seeded one (live) or
// start their own, so that the other specs' sessions stay as seeded.
import type { Page } from '@playwright/test';
import { test, expect, htmxCounts, htmxIdle, livePanels, pauseClock, pollOnce, requestsOf } from './fixtures';
import { Run } from './seed';

test('a run page shows the step an agent took on the next poll, keeping focus, and announces it', async ({ page, seed, agent }) => {
  const s = seed['live'];
  const url = `/sessions/${s.sessionId}/runs/${s.runId}`;
  await pauseClock(page);
  await page.goto(url);
  const rows = page.getByTestId('row');
  await expect(rows).toHaveCount(2);
  const header = page.getByTestId('run-header');
  await expect(header).toContainText('next: Look around the workspace');
  await expect(page.locator('#announce')).toBeEmpty();
  await htmxIdle(page);
  // The reader is on the first row's link when the update comes.
  const first = page.locator('[data-testid="row"][data-node="node_1"]').getByTestId('row-step');
  await first.focus();
  await expect(first).toBeFocused();
  const panels = await livePanels(page);
  expect(panels).toContain(url);
  const sent = requestsOf(page);

  const reply = await Run.resume(agent, s).advance('Listed: README.md, cmd/, engine/ (live).');
  expect(reply.kind).toBe('step');
  expect(reply.structured.pending.stepId).toBe('wrap-up');

  const r = await pollOnce(page);
  expect(r.status()).toBe(200);
  expect(r.headers()['hx-trigger']).toBe('wr-changed');
  // One poll, then each live panel (the run's) fetching its own URL: no
  // page load; the morphed-in drawing has a new URL, so it is fetched anew.
  expect(sent[0]).toMatch(/^\/changes\?since=\d+\.\d+$/);
  const drawings = sent.filter((u) => u.includes('/graph.svg'));
  expect(sent.slice(1).filter((u) => !drawings.includes(u)).sort()).toEqual(panels);
  expect(drawings, 'the new drawing').toEqual([expect.stringMatching(/\/graph\.svg\?at=\d+$/)]);
  await expect(rows).toHaveCount(3);
  // The step done is on the row it was pending at; the next one is the tip.
  await expect(page.locator('[data-testid="row"][data-node="node_2"]')).toContainText('Look around the workspace');
  await expect(page.locator('[data-testid="row"][data-node="node_3"]')).toContainText('Wrap up');
  await expect(page.locator('[data-testid="row"][data-node="node_3"]').getByTestId('tip')).toBeVisible();
  await expect(header).toContainText('next: Wrap up');
  await expect(first, 'focus survives the morph').toBeFocused();
  await expect(page.locator('#announce')).toHaveText(`${s.runId} ▶ in progress at Wrap up, 1 branch`);
  // The new poller asks from the new cursor.
  expect((await pollOnce(page)).status()).toBe(204);
});

test('a session page shows the step an agent took on the next poll', async ({ page, agent }) => {
  // A session of its own, so that no other spec's rows change.
  const run = await Run.start(agent, { workflowId: 'wr.hello' });
  await run.advance('Said hello (session page).');
  const s = run.seeded('session-live');
  await pauseClock(page);
  await page.goto(`/sessions/${s.sessionId}`);
  const active = page.getByTestId('active-run');
  await expect(active).toContainText('next: Look around the workspace');
  await expect(page.getByTestId('timeline').locator('li.stretch')).toContainText('greet → look-around');
  await htmxIdle(page);
  const panels = await livePanels(page);
  expect(panels).toContain(`/sessions/${s.sessionId}`);
  const sent = requestsOf(page);

  await run.advance('Listed: README.md (session page).');
  expect((await pollOnce(page)).status()).toBe(200);
  expect(sent.filter((u) => !u.startsWith('/changes?')).sort()).toEqual(panels);
  await expect(active).toContainText('next: Wrap up');
  await expect(page.getByTestId('timeline').locator('li.stretch')).toContainText('greet → look-around → wrap-up');
  await expect(page.getByRole('region', { name: 'Session notes' }).locator('.note-body')).toHaveText([
    'Said hello (session page).', 'Listed: README.md (session page).',
  ]);
  await expect(page.locator('#announce')).toHaveText(`${s.runId} ▶ in progress at Wrap up`);
});

/** drawing is the run graph's image: its drawn (natural) height and the height the page gives it. */
function drawing(page: Page) {
  return page.locator('.graph img').evaluate((img: HTMLImageElement) => ({
    loaded: img.complete && img.naturalHeight > 0,
    drawn: img.naturalHeight,
    laidOut: Number(img.getAttribute('height')),
  }));
}

test('the run\'s drawing follows a live update', async ({ page, agent }) => {
  // A run of its own, so that no other spec's rows change.
  const run = await Run.start(agent, { workflowId: 'wr.hello' });
  await run.advance('Said hello (drawing).');
  const s = run.seeded('drawing');
  await pauseClock(page);
  await page.goto(`/sessions/${s.sessionId}/runs/${s.runId}`);
  await expect(page.getByTestId('row')).toHaveCount(2);
  await expect.poll(() => drawing(page)).toMatchObject({ loaded: true });
  const before = await drawing(page);
  expect(before.drawn, 'the drawing is as tall as its rows').toBe(before.laidOut);

  await run.advance('Listed: README.md (drawing).');
  expect((await pollOnce(page)).status()).toBe(200);
  await expect(page.getByTestId('row')).toHaveCount(3);
  const after = await drawing(page);
  expect(after.laidOut).toBeGreaterThan(before.laidOut);
  await expect.poll(async () => (await drawing(page)).drawn, { message: 'the drawing was fetched again', timeout: 3_000 }).toBe(after.laidOut);
});

test('a page where nothing changed polls, gets 204 and asks for nothing else', async ({ page, seed }) => {
  const s = seed['completed'];
  await pauseClock(page);
  await page.goto(`/sessions/${s.sessionId}/runs/${s.runId}`);
  await htmxIdle(page);
  const sent = requestsOf(page);
  const html = await page.locator('#run').innerHTML();
  for (let i = 0; i < 2; i++) {
    const r = await pollOnce(page);
    expect(r.status()).toBe(204);
    expect(await r.text()).toBe('');
  }
  expect(sent).toEqual([expect.stringMatching(/^\/changes\?since=\d+\.\d+$/), expect.stringMatching(/^\/changes\?since=\d+\.\d+$/)]);
  expect(await htmxCounts(page)).toMatchObject({ sent: 2, done: 2, inFlight: 0 });
  expect(await page.locator('#run').innerHTML(), 'the panel is untouched').toBe(html);
  await expect(page.locator('#announce')).toBeEmpty();
});

/** hideable lets the test say whether the page's tab is hidden: it overrides document.hidden and visibilityState. */
function hideable() {
  (window as any).__wrHidden = false;
  Object.defineProperty(document, 'hidden', { configurable: true, get: () => (window as any).__wrHidden === true });
  Object.defineProperty(document, 'visibilityState', { configurable: true, get: () => ((window as any).__wrHidden ? 'hidden' : 'visible') });
}

/** setHidden hides or shows the page's tab, as switching tabs does. */
async function setHidden(page: Page, hidden: boolean) {
  await page.evaluate((h) => {
    (window as any).__wrHidden = h;
    document.dispatchEvent(new Event('visibilitychange'));
  }, hidden);
}

test('a hidden tab does not poll, and polls at once when shown again', async ({ page, seed }) => {
  const s = seed['forked'];
  await page.addInitScript(hideable);
  await pauseClock(page);
  await page.goto(`/sessions/${s.sessionId}`);
  await htmxIdle(page);
  const polls: string[] = [];
  page.on('request', (r) => {
    if (new URL(r.url()).pathname === '/changes') polls.push(r.url());
  });

  // Visible, the page polls every 2 s.
  expect((await pollOnce(page)).status()).toBe(204);
  expect(polls).toHaveLength(1);

  await setHidden(page, true);
  expect(await page.evaluate(() => document.hidden)).toBe(true);
  await page.clock.runFor(10_000);
  await htmxIdle(page);
  expect(polls, 'requests while hidden for 10 s').toHaveLength(1);

  // Shown again, it asks at once, without waiting for its timer...
  const woke = page.waitForRequest((r) => new URL(r.url()).pathname === '/changes');
  await setHidden(page, false);
  expect((await (await woke).response())?.status()).toBe(204);
  expect(polls).toHaveLength(2);
  // ...and goes on polling every 2 s.
  expect((await pollOnce(page)).status()).toBe(204);
  expect(polls).toHaveLength(3);
});
