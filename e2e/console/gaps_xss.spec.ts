// Agent text on a page, and the gaps across sessions.
import { test, expect } from './fixtures';
import { xssNote } from './seed';

test('agent notes render as Markdown and run nothing', async ({ page, seed }) => {
  const s = seed['xss-notes'];
  page.on('dialog', (d) => {
    throw new Error(`a dialog opened: ${d.message()}`);
  });
  for (const path of [`/sessions/${s.sessionId}`, `/sessions/${s.sessionId}/runs/${s.runId}?node=node_1`]) {
    await page.goto(path);
    // The session page shows the note twice (the active run's last notes
    // and the session's notes), the run page in the panel of the row it
    // was written for: every copy is rendered the same way.
    const notes = page.locator('.note-body').filter({ hasText: 'Checked.' });
    await expect(notes.first()).toBeVisible();
    for (const note of await notes.all()) {
      await expect(note.locator('strong')).toHaveText('Checked.');
      await expect(note.locator('script, img, [onerror]')).toHaveCount(0);
      await expect(note.locator('a[href^="javascript"]')).toHaveCount(0);
      await expect(note).toContainText('<script>window.__xss = 1</script>');
    }
    expect(await page.evaluate(() => (window as unknown as { __xss?: number }).__xss)).toBeUndefined();
  }
  expect(xssNote).toContain('<script>');
});

test('lists open gaps across sessions, filtered by severity, linked to their session by its title', async ({ page, seed }) => {
  const s = seed['gappy'];
  await page.goto('/');
  await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Open gaps' }).click();
  await expect(page.getByRole('heading', { name: 'Open gaps' })).toBeVisible();
  const gaps = page.locator('[data-gap]');
  await expect(gaps.first()).toBeVisible();
  await expect(gaps.filter({ hasText: 'critical' }).first()).toBeVisible();
  await page.getByLabel('Severity').selectOption('warning');
  await page.getByRole('button', { name: 'Filter' }).click();
  await expect(page).toHaveURL(/severity=warning/);
  await expect(page.locator('[data-gap]').filter({ hasText: 'critical' })).toHaveCount(0);
  await page.getByLabel('Severity').selectOption('critical');
  await page.getByRole('button', { name: 'Filter' }).click();
  // A gap names its session by title, linked to the session.
  await page.locator(`[data-gap] a[href="/sessions/${s.sessionId}"]`).first().click();
  await expect(page.getByRole('heading', { level: 2 })).toContainText(s.sessionId);
  await expect(page.getByRole('heading', { name: 'Gaps' })).toBeVisible();
});
