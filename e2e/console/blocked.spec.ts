// A run the mode matrix blocked on what only the user can give: the
// session says it needs you, the run page's header says what, in words,
// with the fix, the filter finds the step, and its panel lists the
// blocked attempt with its blocker in words and its code in small print.
import { test, expect } from './fixtures';

test('a blocked run shows its blocker and the fix', async ({ page, seed }) => {
  const s = seed['blocked'];
  await page.goto(`/sessions/${s.sessionId}`);
  await expect(page.getByRole('navigation', { name: 'Runs' }).locator(`li[data-run="${s.runId}"]`).getByTestId('status')).toHaveText('☎ needs you');
  await expect(page.getByTestId('active-run')).toContainText('☎ needs you');
  await page.goto(`/sessions/${s.sessionId}/runs/${s.runId}?filter=blocked`);
  await expect(page.getByTestId('run-header').getByTestId('status')).toHaveText('☎ needs you');
  const need = page.getByTestId('needs').getByTestId('need');
  await expect(need).toHaveCount(1);
  await expect(need).toContainText('Waiting for the user');
  await expect(need.getByTestId('need-fix')).toHaveText('Answer the agent in the chat; it sends your answer with its next try.');
  await expect(need.locator('small code')).toHaveText('USER_ONLY_DEPENDENCY');
  await expect(page.getByRole('navigation', { name: 'Show' }).getByRole('link', { name: 'blocked' })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('filter-blocked')).toHaveText('blocked: 1 step');
  const picked = page.locator('[data-testid="row"]');
  await expect(picked).toHaveCount(1);
  await picked.getByRole('link').first().click();
  const attempt = page.getByTestId('node-panel').getByTestId('attempt');
  await expect(attempt).toHaveCount(1);
  await expect(attempt).toHaveAttribute('data-outcome', 'blocked');
  const blockers = attempt.getByTestId('blockers');
  await expect(blockers).toContainText('Waiting for the user');
  await expect(blockers).toContainText('Answer the agent in the chat');
  await expect(blockers.locator('small code')).toHaveText('USER_ONLY_DEPENDENCY');
  await expect(blockers).not.toContainText('continue_workflow');
});
