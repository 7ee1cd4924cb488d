// What a person reviews on a run page: each row is the step done there
// with its outcomes in words and a glyph (folds sum what they hold), the
// header states the run's verdict and progress, the filters open the folds
// holding their matches (with and without JavaScript), and the steps still
// ahead are listed below the tip. The review shape (seed_review.ts) is a
// never-stop run with critical gaps inside its loop fold, finished, and a
// fork that WorkRail blocked.
import type { Page } from '@playwright/test';
import { test, expect, expectNoSidewaysScroll, htmxIdle } from './fixtures';
import { reviewLoopIterations } from './seed_review';

const runURL = (s: { sessionId: string; runId: string }) => `/sessions/${s.sessionId}/runs/${s.runId}`;

/** gapsOn sums the gap counts of the outcome badges in rows. */
async function gapsOn(page: Page, selector: string): Promise<number> {
  let n = 0;
  for (const t of await page.locator(`${selector} .badge.out`).allTextContents()) {
    const m = t.match(/(\d+) gaps? · (critical|warning)/);
    if (m) n += Number(m[1]);
  }
  return n;
}

test('the header states the verdict: never a bare ✓ while gaps are open', async ({ page, seed }) => {
  await page.goto(runURL(seed['review']));
  const status = page.getByTestId('run-header').getByTestId('status');
  // Every open gap is critical: the user's step went unanswered twice, and
  // each experiment reported one. A blocked attempt the run went past is
  // its row's, not the verdict's.
  await expect(status).toHaveText(/· \d+ open gaps \(\d+ critical\)$/);
  const [, open, critical] = (await status.textContent())!.match(/(\d+) open gaps \((\d+) critical\)/)!;
  expect(Number(open)).toBe(reviewLoopIterations + 2);
  expect(critical).toBe(open);
  await expect(status).toHaveClass(/worst-critical/);
  // Every open gap is on some row, once: folded or not, the rows add up.
  expect(await gapsOn(page, '[data-testid="row"]')).toBe(Number(open));
  const filter = page.getByRole('navigation', { name: 'Show' });
  await expect(filter.getByRole('link', { name: `gaps (${open})` })).toBeVisible();
  await expect(filter.getByRole('link', { name: 'blocked (1)' })).toBeVisible();
  await expect(filter.getByRole('link', { name: 'forks (1)' })).toBeVisible();
  // A run without trouble keeps its plain ✓.
  await page.goto(runURL(seed['completed']));
  await expect(page.getByTestId('run-header').getByTestId('status')).toHaveText('✓ complete');
  await expect(page.getByTestId('run-header').getByTestId('status')).toHaveClass(/worst-none/);
});

test('a fold sums the outcomes it holds: the fork\'s stub, and the loop fold inside it', async ({ page, seed }) => {
  await page.goto(runURL(seed['review']));
  // The rewound branch is the preferred one: the finished trunk is folded
  // under the fork point, and says what it holds.
  const stub = page.locator('[data-testid="row"][data-kind="stub"]');
  await expect(stub).toHaveCount(1);
  await expect(stub.getByTestId('outcomes')).toContainText(`${reviewLoopIterations + 1} gaps · critical`);
  await expect(stub.getByTestId('outcomes')).toContainText('■ blocked ×1');
  await expect(stub.getByTestId('outcomes')).toContainText('☎ needs the user');
  await stub.getByRole('link').click();
  const fold = page.locator('[data-testid="row"][data-kind="loop-fold"]');
  await expect(fold).toHaveCount(1);
  await expect(fold.getByTestId('outcomes')).toContainText(/\d+ gaps? · critical/);
  expect(await gapsOn(page, '[data-testid="row"][data-kind="loop-fold"]')).toBeGreaterThan(0);
  // Folded or open, the rows hold every open gap once.
  expect(await gapsOn(page, '[data-testid="row"]')).toBe(reviewLoopIterations + 2);
  // Every node row says what came of its step: an outcome, or ✓ done.
  const steps = page.locator('[data-testid="row"][data-kind="node"]');
  const n = await steps.count();
  for (let i = 1; i < n; i++) await expect(steps.nth(i).getByTestId('outcomes')).toBeVisible(); // the first is where the run started
  await expect(page.locator('[data-testid="row"]', { hasText: 'Final review' })).toContainText('✓ run complete');
});

for (const js of [true, false]) {
  test.describe(js ? 'with JavaScript' : 'without JavaScript', () => {
    test.use({ javaScriptEnabled: js });

    test('the gaps filter opens the loop fold and picks the rows holding gaps', async ({ page, seed }) => {
      const open = reviewLoopIterations + 2;
      await page.goto(runURL(seed['review']));
      await page.getByRole('navigation', { name: 'Show' }).getByRole('link', { name: `gaps (${open})` }).click();
      await expect(page).toHaveURL(/filter=gaps/);
      await expect(page.locator('[data-testid="row"][data-kind="loop-fold"]')).toHaveCount(0);
      // The rows the filter picks hold every open gap, each shown on its own step.
      expect(await gapsOn(page, '[data-testid="row"]:not(.dim)')).toBe(open);
      await expect(page.locator('[data-testid="row"]:not(.dim)', { hasText: 'Run the experiment' })).toHaveCount(reviewLoopIterations);
      await expect(page.locator('[data-testid="row"]:not(.dim)', { hasText: 'Get the evidence from the user' })).toHaveCount(2);
      await expect(page.locator('[data-testid="row"][data-kind="stub"]')).toHaveCount(0);
      // The drawing beside the rows is laid out the same way.
      await expect(page.locator('.graph img')).toHaveAttribute('src', /filter=gaps/);
    });

    test('the blocked filter picks the step whose attempt was blocked', async ({ page, seed }) => {
      await page.goto(runURL(seed['review']));
      await page.getByRole('navigation', { name: 'Show' }).getByRole('link', { name: 'blocked (1)' }).click();
      await expect(page).toHaveURL(/filter=blocked/);
      const picked = page.locator('[data-testid="row"]:not(.dim)');
      await expect(picked).toHaveCount(1);
      await expect(picked).toContainText('■ blocked ×1');
      await expect(picked.getByTestId('row-step')).toHaveText('Get the evidence from the user');
    });
  });
}

test('a row is the step done there; the pending step is the next line, the rest greyed below', async ({ page, seed }) => {
  const s = seed['blocked'];
  await page.goto(runURL(s));
  const rows = page.getByTestId('row');
  await expect(rows.nth(0).getByTestId('row-step')).toHaveText('run started');
  // node_2 holds triage's notes: it is named after triage, not the step pending there.
  const triage = page.locator('[data-testid="row"][data-node="node_2"]');
  await expect(triage.getByTestId('row-step')).toHaveText('Pin down the symptom');
  await expect(triage.locator('.node-id')).toHaveText('node_2');
  const next = page.getByTestId('next');
  await expect(next).toContainText('next: Get the evidence from the user');
  await expect(next).toContainText('■ blocked ×1');
  await expect(page.getByTestId('later').first()).toBeVisible();
  expect(await page.getByTestId('later').count()).toBeGreaterThan(3);
  // The header: blocked, which step of how many, and what is next.
  const header = page.getByTestId('run-header');
  await expect(header.getByTestId('status')).toHaveText('■ blocked · 1 blocked attempt');
  await expect(header.getByTestId('progress')).toHaveText(/^step 2 of \d+ · 1 step done$/);
  await expect(header).toContainText('next: Get the evidence from the user');
  // The panel names the node by its step, and the step pending there as next.
  await triage.getByTestId('row-step').click();
  const panel = page.getByTestId('node-panel');
  await expect(panel.getByTestId('panel-step')).toHaveText('Pin down the symptom');
  await expect(panel.getByTestId('panel-next')).toContainText('Next: Get the evidence from the user');
  await expect(panel).toContainText('Triaged: the crash is in the parser.');
});

test('a complete run has done all its steps; a row inside the loop names the step pending after it', async ({ page, seed }) => {
  // The loop run is complete: every step done, none ahead.
  await page.goto(runURL(seed['loop']));
  await expect(page.getByTestId('progress')).toHaveText(/^step (\d+) of \1$/);
  await expect(page.getByTestId('next')).toHaveCount(0);
  await expect(page.getByTestId('later')).toHaveCount(0);
  // Open a node inside the loop: its panel says the step pending there.
  await page.goto(runURL(seed['review']) + '?filter=gaps');
  const inLoop = page.locator('[data-testid="row"]:not(.dim)', { hasText: 'Run the experiment' }).first();
  await inLoop.getByTestId('row-step').click();
  await expect(page.getByTestId('panel-next')).toContainText('Form the next hypothesis');
});

test.describe('screenshots', () => {
  test.describe.configure({ timeout: 120_000 });
  for (const width of [390, 1280]) {
    test(`outcome states at ${width} px in light and dark`, async ({ page, seed }, info) => {
      await page.setViewportSize({ width, height: 900 });
      const r = seed['review'];
      const shots: Record<string, string> = {
        review: runURL(r),
        'review-gaps': runURL(r) + '?filter=gaps',
        'review-blocked': runURL(r) + '?filter=blocked',
        blocked: runURL(seed['blocked']) + '?node=node_2',
      };
      for (const [name, path] of Object.entries(shots)) {
        expect((await page.goto(path))?.status()).toBe(200);
        await htmxIdle(page);
        await expectNoSidewaysScroll(page, name, true);
        for (const scheme of ['light', 'dark'] as const) {
          await page.emulateMedia({ colorScheme: scheme });
          await page.screenshot({ path: info.outputPath(`outcomes-${width}-${name}-${scheme}.png`), fullPage: true });
        }
        await page.emulateMedia({ colorScheme: 'light' });
      }
    });
  }
});

test('the sessions list says which step of how many a run is at', async ({ page, seed }) => {
  await page.goto('/');
  const blocked = page.locator(`tr[data-session="${seed['blocked'].sessionId}"]`);
  await expect(blocked.getByTestId('progress')).toHaveText(/^step 2 of \d+ · 1 step done$/);
  // A complete run has no step left: its status says it all.
  await expect(page.locator(`tr[data-session="${seed['completed'].sessionId}"]`).getByTestId('progress')).toHaveCount(0);
});

test('notes and gaps name the step they belong to by its title', async ({ page, seed }) => {
  const s = seed['review'];
  await page.goto(`/sessions/${s.sessionId}`);
  await expect(page.locator('.notes li', { hasText: 'Triaged: the parser drops a trailing comma.' }).getByTestId('note-step')).toHaveText('Pin down the symptom');
  await expect(page.locator('.gaps li', { hasText: 'Experiment 1 ran on a laptop' }).getByTestId('gap-step')).toHaveText('Run the experiment');
  await page.goto('/gaps');
  await expect(page.locator('[data-gap]', { hasText: 'Experiment 2 ran on a laptop' }).getByTestId('gap-step')).toHaveText('Run the experiment');
});
