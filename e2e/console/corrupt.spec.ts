// A session damaged on disk: global setup stopped the daemon, flipped one
// bit in the corrupt shape's last note (corrupt/main.go) and started the
// daemon again. The Console lists the session with what is wrong, and its
// pages still open and show what could be read before the damage. The
// fixture fails each test on any console error.
import { test, expect } from './fixtures';
import { corruptFirstNote, corruptLastNote } from './seed';

test('a corrupt session is listed with its damage', async ({ page, seed }) => {
  const c = seed['corrupt'];
  expect(c.damagedAt, 'global setup damaged an event').toBeGreaterThan(1);
  await page.goto('/');
  const row = page.locator(`tr[data-testid="session-row"][data-session="${c.sessionId}"]`);
  await expect(row.getByTestId('health')).toHaveText(`corrupt tail at event ${c.damagedAt}`);
  await expect(row.getByTestId('health')).toHaveClass(/\bhealth-corrupt_tail\b/);
  // The daemon's status counts it among the sessions it has read.
  const summary = page.getByRole('region', { name: 'Daemon' }).getByTestId('health-summary');
  await expect(summary).toContainText('1 corrupt tail');
  await expect(summary).toContainText(/\d+ healthy/);
  // Its neighbours are healthy: the damage is the session's own.
  for (const k of ['live', 'loop']) {
    await expect(page.locator(`tr[data-session="${seed[k].sessionId}"]`).getByTestId('health')).toHaveText('healthy');
  }
});

test('a corrupt session\'s page opens, states the damage and shows what could be read', async ({ page, seed }) => {
  const c = seed['corrupt'];
  const r = await page.goto('/');
  expect(r?.status()).toBe(200);
  await page.locator(`tr[data-session="${c.sessionId}"]`).locator('a.row-link').click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${c.sessionId}$`));
  await expect(page.getByRole('heading', { level: 2 })).toContainText(c.sessionId);
  await expect(page.getByTestId('health')).toHaveText(`corrupt tail at event ${c.damagedAt}`);
  // The run, its timeline up to the last good event, and the note written
  // before the damage; the damaged note is not shown.
  await expect(page.getByRole('navigation', { name: 'Runs' }).getByRole('link')).toHaveCount(1);
  await expect(page.getByTestId('timeline').locator('li.stretch .meta')).toHaveText(new RegExp(`^(just now|\\d+ min ago)( · took \\d+ (ms|s))? · events 2–${c.damagedAt! - 1}\\b`));
  const notes = page.getByRole('region', { name: 'Session notes' });
  await expect(notes.locator('.note-body')).toHaveText([corruptFirstNote]);
  await expect(page.getByText(corruptLastNote)).toHaveCount(0);

  // The run's graph opens too, from what could be read.
  await page.getByTestId('open-graph').click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${c.sessionId}/runs/${c.runId}$`));
  await expect(page.getByTestId('row').first()).toBeVisible();
  await expect(page.getByTestId('run-header')).toContainText('pinned to version');
});
