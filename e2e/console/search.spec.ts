// The search for a session to resume: the header's form leads to a page
// that lists what resume_session would offer a brand new chat, in its
// order, each match saying why (its tier, in words) and linking to its
// run at the preferred tip. The page's own form refreshes the list in
// place with htmx; without JS it is an ordinary GET. The spec starts
// sessions of its own, so the seeded ones stay as they were.
import { test, expect, htmxIdle, markWindow, shootPhoneAndDesktop, windowMarked } from './fixtures';
import type { Mcp } from './mcp';
import { Run } from './seed';

/**
 * noted starts a wr.hello session whose notes hold word (no seeded note or
 * workflow has it) and returns its session and run.
 */
async function noted(agent: Mcp, word: string): Promise<{ sessionId: string; runId: string }> {
  const run = await Run.start(agent, { workflowId: 'wr.hello' });
  await run.advance(`Chased the ${word} crash into the lexer.`);
  return run.history[0].structured.session;
}

test('finds a session by a word from its notes and follows it to its preferred tip', async ({ page, agent }, info) => {
  const word = 'quokka7';
  const { sessionId, runId } = await noted(agent, word);

  await page.goto('/');
  const header = page.getByRole('search', { name: 'Resume a session' });
  await header.getByRole('searchbox').fill(word.toUpperCase());
  await header.getByRole('button', { name: 'Find' }).click();
  await expect(page).toHaveURL(new RegExp(`/search\\?q=${word.toUpperCase()}$`));
  const matches = page.getByTestId('match');
  const first = matches.first();
  await expect(first).toHaveAttribute('data-session', sessionId);
  await expect(first.getByTestId('tier')).toHaveText('words in its latest notes');
  await expect(first.getByTestId('snippet')).toContainText(`Chased the ${word} crash`);
  await expect(first).toContainText('wr.hello');
  // At most five, in the tool's order: no match ranks in a better tier than one above it.
  const tiers = ['git_head_sha', 'git_branch', 'notes', 'workflow', 'recency'];
  const ranks = (await matches.evaluateAll((els) => els.map((e) => e.getAttribute('data-tier')!))).map((t) => tiers.indexOf(t));
  expect(ranks.length).toBeLessThanOrEqual(5);
  expect(ranks).toEqual([...ranks].sort((a, b) => a - b));
  expect(ranks[0]).toBe(tiers.indexOf('notes'));
  await shootPhoneAndDesktop(page, 'search', info.outputPath.bind(info));

  await first.getByTestId('open-tip').click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${sessionId}/runs/${runId}\\?node=node_2$`));
  // The tip is the step pending there, the last row; the notes that matched
  // are on the row above, the step they were written for.
  await expect(page.getByTestId('node-panel').getByTestId('panel-state')).toContainText('Pending.');
  await expect(page.getByTestId('row').last().getByTestId('tip')).toBeVisible();
  await page.locator('[data-testid="row"][data-node="node_1"]').getByTestId('row-step').click();
  await expect(page.getByTestId('node-panel')).toContainText(`Chased the ${word} crash`);
});

test('the page refreshes its list in place as a person types', async ({ page, agent }) => {
  const word = 'wombat3';
  const { sessionId } = await noted(agent, word);
  await page.goto('/search');
  await markWindow(page);
  await page.getByTestId('search-q').fill(word);
  await expect(page).toHaveURL(new RegExp(`/search\\?q=${word}$`));
  await expect(page.getByTestId('match').first()).toHaveAttribute('data-session', sessionId);
  await expect(page.getByTestId('match').first().getByTestId('tier')).toHaveText('words in its latest notes');
  await htmxIdle(page);
  expect(await windowMarked(page), 'the list was swapped in, not a new page loaded').toBe(true);
  // A relative workspace is refused, and says why.
  await page.goto('/search?q=x&workspacePath=src/app');
  await expect(page.getByTestId('search-problem')).toContainText('absolute path');
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('the header form is an ordinary GET', async ({ page, agent }) => {
    const word = 'numbat5';
    const { sessionId } = await noted(agent, word);
    await page.goto('/gaps');
    const header = page.getByRole('search', { name: 'Resume a session' });
    await header.getByRole('searchbox').fill(word);
    await header.getByRole('button', { name: 'Find' }).click();
    await expect(page).toHaveURL(new RegExp(`/search\\?q=${word}$`));
    await expect(page.getByTestId('match').first()).toHaveAttribute('data-session', sessionId);
    await expect(page.getByTestId('match').first().getByTestId('tier')).toHaveText('words in its latest notes');
  });
});
