// A session, its runs, and one run's branch graph: the forked session's
// run has its earlier branch folded under the fork point, a node panel
// opened by a deep link, and a filter bar.
import { test, expect } from './fixtures';

test('reaches a run from the sessions list through its session', async ({ page, seed }) => {
  const forked = seed['forked'];
  await page.goto('/');
  await page.getByRole('link', { name: forked.sessionId, exact: true }).click();
  await expect(page.getByRole('heading', { level: 2 })).toContainText(forked.sessionId);
  await expect(page.getByRole('heading', { name: 'Notes' })).toBeVisible();
  await expect(page.getByText('Said hello again after the chat was rewound (second branch).')).toBeVisible();
  await page.getByRole('link', { name: forked.runId, exact: true }).click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${forked.sessionId}/runs/${forked.runId}$`));
  await expect(page.getByRole('heading', { level: 2 })).toContainText('wr.hello');
});

test('folds the earlier branch under its fork point and opens it without JS', async ({ page, seed }) => {
  const forked = seed['forked'];
  await page.goto(`/sessions/${forked.sessionId}/runs/${forked.runId}`);
  const rows = page.getByTestId('row');
  // Root, the stub for the first branch, and the second branch's node.
  await expect(rows).toHaveCount(3);
  await expect(page.getByTestId('tip')).toHaveCount(1);
  const stub = page.locator('[data-kind="stub"]');
  await expect(stub).toContainText('2 more steps on a branch forked here');
  // The drawing is decorative: no role, hidden from assistive technology.
  await expect(page.locator('.graph img')).toHaveAttribute('aria-hidden', 'true');
  await expect(page.locator('.graph img')).toHaveAttribute('alt', '');
  await stub.getByRole('link').click();
  await expect(page).toHaveURL(/expand=node_2/);
  await expect(rows).toHaveCount(4);
  await expect(page.locator('[data-kind="stub"]')).toHaveCount(0);
  // The drawing follows the same layout.
  const img = page.locator('.graph img');
  await expect(img).toHaveAttribute('src', /graph\.svg\?expand=node_2/);
  expect((await page.request.get((await img.getAttribute('src'))!)).headers()['content-type']).toContain('image/svg+xml');
});

test('opens a node in the side panel by deep link, with its notes and provenance', async ({ page, seed }) => {
  const forked = seed['forked'];
  await page.goto(`/sessions/${forked.sessionId}/runs/${forked.runId}`);
  const tipRow = page.locator('[data-testid="row"]', { has: page.getByTestId('tip') });
  await expect(tipRow).toContainText('forked from node_1');
  await tipRow.getByRole('link').first().click();
  const panel = page.getByTestId('node-panel');
  await expect(panel).toBeVisible();
  await expect(panel).toContainText('Forked from node_1');
  await expect(panel).toContainText('second branch');
  await expect(panel.getByText('Pending here:')).toBeVisible();
  // The same URL, loaded afresh, shows the same panel.
  await page.goto(page.url());
  await expect(page.getByTestId('node-panel')).toContainText('Forked from node_1');
});

test('the filter bar marks its choice and dims the rows it does not pick', async ({ page, seed }) => {
  const forked = seed['forked'];
  await page.goto(`/sessions/${forked.sessionId}/runs/${forked.runId}`);
  await page.getByRole('navigation', { name: 'Show' }).getByRole('link', { name: 'forks' }).click();
  await expect(page).toHaveURL(/filter=forks/);
  await expect(page.getByRole('link', { name: 'forks' })).toHaveAttribute('aria-current', 'page');
  // The fork point and the fork stay; the folded original branch dims.
  await expect(page.locator('[data-testid="row"].dim')).toHaveCount(1);
  await expect(page.locator('[data-testid="row"].dim')).toHaveAttribute('data-kind', 'stub');
  await page.getByRole('link', { name: 'blocked' }).click();
  await expect(page.locator('[data-testid="row"].dim')).toHaveCount(3);
});

test.describe('an unknown address', () => {
  // The browser logs every 404 it loads; here the 404s are the point.
  test.use({ allowConsoleErrors: true });

  test('is a styled 404 with a way home', async ({ page, seed, consoleErrors }) => {
    const forked = seed['forked'];
    const paths = [`/sessions/${forked.sessionId}/runs/run_9`, `/sessions/${forked.sessionId}/runs/${forked.runId}?node=node_99`, '/nowhere'];
    for (const path of paths) {
      const r = await page.goto(path);
      expect(r?.status(), path).toBe(404);
      await expect(page.getByRole('link', { name: 'Back to all sessions' })).toBeVisible();
    }
    expect(consoleErrors.every((e) => e.includes('status of 404'))).toBe(true);
  });
});

test('run page screenshots in light and dark, and at phone width', async ({ page, seed }, info) => {
  const forked = seed['forked'];
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await page.goto(`/sessions/${forked.sessionId}/runs/${forked.runId}?node=node_4&expand=node_2`);
    await page.screenshot({ path: info.outputPath(`run-${scheme}.png`), fullPage: true });
  }
  await page.setViewportSize({ width: 390, height: 844 });
  await page.goto(`/sessions/${forked.sessionId}/runs/${forked.runId}`);
  const width = await page.evaluate(() => document.documentElement.scrollWidth);
  expect(width).toBeLessThanOrEqual(390);
});
