// A run of about 300 steps on a phone (seed_long.ts): its page says where
// the run stands, never scrolls sideways, pages its rows, and a click on a
// node late in the run lands on that node's panel, with JavaScript (the
// panel swapped in and scrolled to) and without (the link's #panel-h).
import { test, expect, expectNoSidewaysScroll, htmxIdle, shootLightAndDark, type Page } from './fixtures';
import { longAdvances, longIterations, longLinear, longNote, longSeed } from './seed_long';

test.use({ viewport: { width: 390, height: 844 } });

const runURL = () => {
  const s = longSeed();
  return `/sessions/${s.sessionId}/runs/${s.runId}`;
};
// The seed's n-th advance was made at node_n, where its step was pending:
// node_{longAdvances} is the row of the last advance, just above the tip.
const late = `node_${longAdvances}`;

async function openLate(page: Page, js: boolean) {
  // Every fold open: the loop's 150 steps are rows, the late node on the last page.
  await page.goto(runURL() + '?expand=all');
  const pager = page.getByTestId('pager-rows');
  await expect(pager).toBeVisible();
  for (let i = 0; i < 10 && (await page.locator(`[data-testid="row"][data-node="${late}"]`).count()) === 0; i++) {
    const url = page.url();
    await pager.getByRole('link', { name: 'Next' }).click();
    await expect(page).not.toHaveURL(url);
    if (js) await htmxIdle(page);
  }
  const row = page.locator(`[data-testid="row"][data-node="${late}"]`);
  await expect(row).toHaveCount(1);
  await row.getByTestId('row-step').click();
  const panel = page.getByTestId('node-panel');
  await expect(panel).toBeVisible();
  await expect(panel).toContainText(longNote(longAdvances));
  await expect(page.locator('#panel-h')).toBeInViewport();
  await expectNoSidewaysScroll(page, 'the long run with a late node open');
}

test('a 300-step run on a phone says where it stands and pages its rows', async ({ page }, info) => {
  await page.goto(runURL());
  await expect(page.getByTestId('run-header').getByTestId('progress'))
    .toHaveText(`step ${longLinear + 1} of ${longLinear + 2} · Measure, compare, record iteration ${longIterations} (at most ${longIterations})`);
  await expectNoSidewaysScroll(page, 'the long run, folded');
  // 150 steps in a row and the loop's fold: more rows than a page.
  const pager = page.getByTestId('pager-rows');
  await expect(pager).toBeVisible();
  const first = await page.getByTestId('row').first().getAttribute('data-node');
  // The pending step and what is still ahead end the rows' list: on its last page, not below row 50.
  await expect(page.getByTestId('tip')).toHaveCount(0);
  await expect(page.getByTestId('later')).toHaveCount(0);
  await pager.getByRole('link', { name: 'Next' }).click();
  await expect(page).toHaveURL(/rows=\d+/);
  await expect(page.getByTestId('row').first()).not.toHaveAttribute('data-node', first!);
  // On to the last page, one page at a time: each click lands before the next.
  const next = page.getByTestId('pager-rows').getByRole('link', { name: 'Next' });
  for (let at = 100; (await next.count()) > 0; at += 50) {
    await next.click();
    await expect(page).toHaveURL(new RegExp(`rows=${at}$`));
    await htmxIdle(page);
  }
  const pending = page.getByTestId('row').last();
  await expect(pending.getByTestId('tip')).toBeVisible();
  await expect(pending.getByTestId('row-step')).toHaveText('Compare this round');
  await expect(page.getByTestId('later')).toHaveText(['Record this round', 'Wrap up']);
  await page.goto(runURL() + '?rows=50');
  await page.getByTestId('pager-rows').getByRole('link', { name: 'Previous' }).click();
  await expect(page.getByTestId('row').first()).toHaveAttribute('data-node', first!);
  await shootLightAndDark(page, (scheme) => info.outputPath(`long-folded-390-${scheme}.png`), { fullPage: true });
});

test('a click on a node late in the run lands on its panel', async ({ page }, info) => {
  await openLate(page, true);
  await shootLightAndDark(page, (scheme) => info.outputPath(`long-panel-390-${scheme}.png`));
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('a click on a node late in the run lands on its panel', async ({ page }) => {
    await openLate(page, false);
    await expect(page).toHaveURL(new RegExp(`node=${late}.*#panel-h$`));
  });
});
