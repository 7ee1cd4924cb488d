// When things happened, who did them, and in which order sessions were
// last active: every time on a page is a <time> with relative text and the
// absolute time in its title; sessions are listed the most recently
// written first; a node the Console forked says so, from the origin its
// events record; the event history lists the log, each event's JSON on
// demand (without a script too), and events.json holds the whole log with
// each event's time.
import { test, expect, expectNoSidewaysScroll, htmxIdle, shootPhoneAndDesktop } from './fixtures';
import { Run } from './seed';

const iso = /^\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d\.\d{3}Z$/;

test('times on the sessions list, the session page and the run page', async ({ page, seed }, info) => {
  const s = seed['completed'];
  await page.goto('/');
  const row = page.locator(`[data-testid="session-row"][data-session="${s.sessionId}"]`);
  for (const time of [row.getByTestId('last-activity').locator('time'), row.locator('td[data-label="Session"] time')]) {
    await expect(time).toHaveAttribute('datetime', iso);
    await expect(time).toHaveAttribute('title', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    await expect(time).toHaveText(/^(just now|\d+ min ago|\d+ h ago)$/);
  }

  await page.goto(`/sessions/${s.sessionId}`);
  await expect(page.locator('p.meta').first().locator('time')).toHaveCount(2); // started, last activity

  await page.goto(`/sessions/${s.sessionId}/runs/${s.runId}`);
  const times = page.getByTestId('run-times');
  await expect(times).toContainText('started');
  await expect(times).toContainText('finished');
  await expect(times.getByTestId('took')).toHaveAttribute('datetime', /^PT[\d.]+S$/);
  await expect(page.getByTestId('row-time').first().locator('time').first()).toHaveAttribute('datetime', iso);
  await shootPhoneAndDesktop(page, 'run-times', (f) => info.outputPath(f));
});

test("times on the session page's gaps, timeline and notes", async ({ page, seed }, info) => {
  const s = seed['gappy'];
  await page.goto(`/sessions/${s.sessionId}`);
  const expectTime = async (time: ReturnType<typeof page.locator>) => {
    await expect(time).toHaveAttribute('datetime', iso);
    await expect(time).toHaveAttribute('title', /^\d{4}-\d\d-\d\d \d\d:\d\d:\d\d UTC$/);
    await expect(time).toHaveText(/^(just now|\d+ min ago|\d+ h ago)$/);
  };
  // Each gap says when it was recorded.
  const gaps = page.locator('section[aria-labelledby="gaps-h"] li[data-gap]');
  await expect(gaps).not.toHaveCount(0);
  for (const gap of await gaps.all()) {
    await expect(gap).toContainText('recorded');
    await expectTime(gap.locator('time'));
  }
  // Each stretch of the timeline says when it ended.
  const stretches = page.getByTestId('timeline').locator('li');
  await expect(stretches).not.toHaveCount(0);
  for (const stretch of await stretches.all()) await expectTime(stretch.locator('.meta time').first());
  // Each note (a checkpoint's too) says when it was recorded.
  const heads = page.locator('section[aria-labelledby="notes-h"] .note-head');
  await expect(heads).not.toHaveCount(0);
  for (const head of await heads.all()) await expectTime(head.locator('time'));
  await shootPhoneAndDesktop(page, 'session-times', (f) => info.outputPath(f));
});

test('sessions are listed the most recently written first', async ({ page, agent }) => {
  const older = await Run.start(agent, { workflowId: 'wr.hello' });
  const newer = await Run.start(agent, { workflowId: 'wr.hello' });
  const first = async () => page.getByTestId('session-row').first().getAttribute('data-session');
  await page.goto('/');
  expect(await first()).toBe(newer.seeded('newer').sessionId);
  // The older session is written to again: it comes first, though its id is lower.
  await older.advance('Greeted, later than the other.');
  await page.goto('/');
  expect(await first()).toBe(older.seeded('older').sessionId);
  const rows = await page.getByTestId('session-row').evaluateAll((trs) => trs.map((tr) => tr.getAttribute('data-session')));
  expect(rows.indexOf(newer.seeded('newer').sessionId)).toBe(1);
});

test.describe('a Console fork', () => {
  test('says it was made in the Console and which context keys it changed, and its events say so', async ({ page, agent }) => {
    const run = await Run.start(agent, { workflowId: 'wr.hello' });
    await run.advance('Greeted.');
    const { sessionId, runId } = run.history[0].structured.session;
    // The greeting's row: done at node_1, a fork of it redoes it.
    await page.goto(`/sessions/${sessionId}/runs/${runId}?node=node_1`);
    await expect(page.getByTestId('node-panel').getByTestId('origin')).toHaveCount(0);
    await page.getByTestId('node-panel').getByTestId('fork-here').click();
    const context = page.getByLabel('Context (a JSON object)');
    const edited = { ...JSON.parse(await context.inputValue()), audience: 'the team' };
    await context.fill(JSON.stringify(edited));
    await page.getByTestId('fork-submit').click();
    await page.getByTestId('node-link').click();
    await expect(page.getByTestId('node-panel').getByTestId('origin')).toContainText('forked in the Console, context changed: audience');
    await expect(page.getByTestId('node-panel').getByTestId('panel-state')).toContainText('reached');

    await page.goto(`/sessions/${sessionId}/events`);
    const marked = page.locator('[data-testid="event-row"]').filter({ has: page.getByTestId('origin') });
    await expect(marked.first()).toBeVisible();
    expect(await marked.count()).toBeGreaterThanOrEqual(3); // the attempt, the node and its edge at least
    await expect(page.locator('[data-testid="event-row"]').first().getByTestId('origin')).toHaveCount(0);
  });
});

test('the event history: a page of the log, JSON on demand, and the whole log as JSON', async ({ page, seed }, info) => {
  const s = seed['forked'];
  await page.goto(`/sessions/${s.sessionId}`);
  await page.getByTestId('events-link').click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${s.sessionId}/events$`));
  await htmxIdle(page);
  const rows = page.getByTestId('event-row');
  await expect(rows.first()).toHaveAttribute('data-index', '1');
  await expect(rows.first().getByTestId('event-summary')).toHaveText(/^session started/);
  await expect(rows.first().locator('time')).toHaveAttribute('datetime', iso);
  const json = rows.first().locator('details pre');
  await expect(json).toBeHidden();
  await rows.first().locator('details summary').click();
  await expect(json).toContainText('"kind":"session_created"');
  await expect(json).toContainText('"appendedAt":');

  const r = await page.request.get(`/sessions/${s.sessionId}/events.json`);
  expect(r.status()).toBe(200);
  const body = await r.json();
  expect(body.sessionId).toBe(s.sessionId);
  expect(body.events.length).toBe(await rows.count());
  for (const [i, e] of body.events.entries()) {
    expect(e.event.eventIndex).toBe(i + 1);
    expect(e.time).toMatch(iso);
  }
  await page.setViewportSize({ width: 390, height: 844 });
  await expectNoSidewaysScroll(page, 'the event history');
  await rows.nth(3).locator('details summary').click();
  await expectNoSidewaysScroll(page, 'the event history with an event open');
  await shootPhoneAndDesktop(page, 'events', (f) => info.outputPath(f));
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('an event\'s JSON opens', async ({ page, seed }) => {
    await page.goto(`/sessions/${seed['forked'].sessionId}/events`);
    const first = page.getByTestId('event-row').first();
    await first.locator('details summary').click();
    await expect(first.locator('details pre')).toContainText('"eventIndex":1');
  });
});
