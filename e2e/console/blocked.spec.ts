// A run the mode matrix blocked: the session says so, the run page's
// filter finds the node, and its panel says what blocks it and the fix.
import { test, expect } from './fixtures';

test('a blocked run shows its blocker and the fix', async ({ page, seed }) => {
  const s = seed['blocked'];
  await page.goto(`/sessions/${s.sessionId}`);
  await expect(page.getByRole('navigation', { name: 'Runs' }).locator(`li[data-run="${s.runId}"]`).getByTestId('status')).toHaveText('■ blocked');
  await expect(page.getByTestId('active-run')).toContainText('■ blocked');
  await page.goto(`/sessions/${s.sessionId}/runs/${s.runId}?filter=blocked`);
  await expect(page.getByTestId('run-header').getByTestId('status')).toHaveText('■ blocked · 1 blocked attempt');
  await expect(page.getByRole('navigation', { name: 'Show' }).getByRole('link', { name: 'blocked' })).toHaveAttribute('aria-current', 'page');
  const picked = page.locator('[data-testid="row"]:not(.dim)');
  await expect(picked).toHaveCount(1);
  await picked.getByRole('link').first().click();
  const blocked = page.getByTestId('node-panel').getByTestId('blocked');
  await expect(blocked).toContainText('USER_ONLY_DEPENDENCY');
  await expect(blocked).toContainText('Fix:');
});
