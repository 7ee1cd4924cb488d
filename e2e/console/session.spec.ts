// A session's page: the runs sidebar with the active run marked, the
// active run in full, the timeline (one lane per run, one row per stretch
// of one run's events), the session's notes and its gaps, each linked to
// the node it belongs to. These seeded sessions have one run and one
// lane; session_runs.spec.ts has a session of two.
import { test, expect } from './fixtures';
import { loopIterations, loopResolution } from './seed';

test('the runs sidebar marks the active run, and its link selects it', async ({ page, seed }) => {
  const s = seed['loop'];
  await page.goto(`/sessions/${s.sessionId}`);
  await expect(page.getByRole('heading', { level: 2 })).toHaveText(`Triaged: the parser drops a trailing comma. ${s.sessionId}`);
  await expect(page.getByTestId('health')).toHaveText('healthy');
  const runs = page.getByRole('navigation', { name: 'Runs' });
  const link = runs.getByRole('link');
  await expect(link).toHaveCount(1);
  await expect(link).toHaveAttribute('aria-current', 'page');
  await expect(link).toContainText(s.workflowId);
  await expect(link).toContainText('Bug investigation');
  await expect(link.getByTestId('status')).toHaveText('✓ complete');
  // The steps done are the run's, as its timeline counts them.
  await expect(link).toContainText(`${s.runId} · ${3 + 2 * loopIterations + 4} steps done`);

  const active = page.getByTestId('active-run');
  await expect(active.getByRole('heading', { level: 3 })).toHaveText(`${s.workflowId} Bug investigation`);
  await expect(active).toContainText('✓ complete');
  await expect(active).toContainText('pinned to version 1.0.0');
  await expect(active.locator(`code[title="${s.workflowHash}"]`)).toBeVisible();
  await expect(active).toContainText('Guided; risk conservative');
  // Its last three notes, newest last.
  await expect(active.locator('.notes > li')).toHaveCount(3);
  await expect(active.locator('.notes > li').last()).toContainText('Reviewed; reran the fuzz corpus.');

  // Picking the run by its link: the URL names it, the mark stays on it,
  // and the live panel refreshes that choice.
  await link.click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${s.sessionId}\\?run=${s.runId}$`));
  await expect(runs.getByRole('link')).toHaveAttribute('aria-current', 'page');
  await expect(page.locator('#session')).toHaveAttribute('hx-get', `/sessions/${s.sessionId}?run=${s.runId}`);

  await active.getByTestId('open-graph').click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${s.sessionId}/runs/${s.runId}$`));
});

test('the timeline is one lane per run, a row per stretch of its events', async ({ page, seed }) => {
  const s = seed['loop'];
  await page.goto(`/sessions/${s.sessionId}`);
  const timeline = page.getByTestId('timeline');
  await expect(timeline).toHaveClass(/\blanes-1\b/);
  const stretches = timeline.locator('li.stretch');
  await expect(stretches).toHaveCount(1);
  await expect(stretches).toHaveAttribute('data-run', s.runId);
  await expect(stretches).toHaveClass(/\blane-1\b/);
  // 3 steps, the loop's 2 per iteration, root-cause, blast-radius, report, the review.
  const steps = 3 + 2 * loopIterations + 4;
  await expect(stretches).toContainText(`${s.runId} started ${s.workflowId}: triage → … → wr-final-review (${steps} steps)`);
  // When it ended, how long it took, its events and what they hold.
  await expect(stretches.locator('.meta')).toHaveText(/^(just now|\d+ min ago)( · took \d+ (ms|s))? · events 2–\d+ · \d+ notes, 2 gaps$/);
  // A stretch links to the last node it touched.
  await stretches.getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${s.sessionId}/runs/${s.runId}\\?node=node_\\d+$`));
  await expect(page.getByTestId('node-panel').getByTestId('panel-state')).toContainText('Done; the run completed here.');
});

test('notes link to the row of the step they were written for', async ({ page, seed }) => {
  const s = seed['loop'];
  await page.goto(`/sessions/${s.sessionId}`);
  const section = page.getByRole('region', { name: 'Session notes' });
  const notes = section.locator('.notes > li');
  await expect(notes).toHaveCount(3 + 2 * loopIterations + 4);
  // All but the latest three are folded under a count; unfold them.
  const earlier = section.getByTestId('note-earlier');
  await expect(earlier.locator('summary')).toHaveText(`${3 + 2 * loopIterations + 4 - 3} earlier notes`);
  await earlier.locator('summary').click();
  const first = notes.first();
  await expect(first.locator('.note-head')).toContainText('triage');
  await expect(first.locator('.note-body')).toHaveText('Triaged: the parser drops a trailing comma.');
  const node = (await first.getAttribute('data-node'))!;
  // The note was recorded on the node its step's advance made; the link
  // opens the row the step was pending at, the run's first.
  await first.getByRole('link', { name: `${s.runId} · ${node}` }).click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${s.sessionId}/runs/${s.runId}\\?node=node_1$`));
  const panel = page.getByTestId('node-panel');
  await expect(panel.getByRole('heading', { level: 3 })).toContainText('node_1');
  await expect(panel.getByTestId('attempt')).toContainText('Triaged: the parser drops a trailing comma.');
});

test('gaps say whether they are open or resolved and link to their node', async ({ page, seed }) => {
  const s = seed['loop'];
  await page.goto(`/sessions/${s.sessionId}`);
  const gaps = page.getByRole('region', { name: 'Gaps' }).locator('li[data-gap]');
  const open = gaps.filter({ hasText: 'Could not reproduce on Windows' });
  await expect(open).toContainText('○ open');
  await expect(open).toContainText('warning');
  const resolved = gaps.filter({ hasText: 'The fuzz corpus was not rerun.' });
  await expect(resolved).toContainText('✓ resolved');
  await expect(gaps.filter({ hasText: loopResolution })).toHaveCount(0);

  // The never-stop run's critical gap, opened from the session page.
  const g = seed['gappy'];
  await page.goto(`/sessions/${g.sessionId}`);
  const critical = page.getByRole('region', { name: 'Gaps' }).locator('li[data-gap]').filter({ hasText: 'critical' }).first();
  await expect(critical).toContainText('○ open');
  await expect(critical.getByRole('link')).toHaveText(new RegExp(`^${g.runId} · node_\\d+$`));
  const row = new URLSearchParams((await critical.getByRole('link').getAttribute('href'))!.split('?')[1]).get('node')!;
  await critical.getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${g.sessionId}/runs/${g.runId}\\?node=${row}$`));
  const panel = page.getByTestId('node-panel');
  await expect(panel.getByRole('heading', { level: 3 })).toContainText(row);
  await expect(panel.getByTestId('gap').filter({ hasText: 'critical' }).first()).toContainText('○ open');
});
