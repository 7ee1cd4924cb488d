// What a person reviews on a run page: each row is a step, on the node it
// was pending at, with its outcomes in words and a glyph (folds sum what
// they hold), the header states the run's verdict and progress, the filters
// list only the rows holding their matches, folded or not (with and without
// JavaScript), and the steps still ahead are listed below the tip. The review shape (seed_review.ts) is a
// never-stop run with critical gaps inside its loop fold, finished, and a
// fork that WorkRail blocked.
import type { Page } from '@playwright/test';
import { test, expect, expectNoSidewaysScroll, htmxIdle, shootLightAndDark } from './fixtures';
import { reviewLoopIterations } from './seed_review';

const runURL = (s: { sessionId: string; runId: string }) => `/sessions/${s.sessionId}/runs/${s.runId}`;

/** gapsOn sums the gap counts of the outcome badges in rows. */
async function gapsOn(page: Page, selector: string): Promise<number> {
  let n = 0;
  for (const t of await page.locator(`${selector} .badge.out`).allTextContents()) {
    const m = t.match(/(\d+) open gaps? · (critical|warning)/);
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
  // A filter counts the steps it lists, and says so: the rows holding the
  // 5 open gaps are 4 steps (the user's step holds both of its gaps).
  const filter = page.getByRole('navigation', { name: 'Show' });
  await expect(filter.getByTestId('filter-gaps')).toHaveText('with gaps: 4 steps');
  await expect(filter.getByTestId('filter-blocked')).toHaveText('blocked: 1 step');
  // The fork point and the first step of the rewound branch.
  await expect(filter.getByTestId('filter-forks')).toHaveText('forks: 2 steps');
  // A run without trouble keeps its plain ✓.
  await page.goto(runURL(seed['completed']));
  await expect(page.getByTestId('run-header').getByTestId('status')).toHaveText('✓ complete');
  await expect(page.getByTestId('run-header').getByTestId('status')).toHaveClass(/worst-none/);
});

test('a fold sums the outcomes it holds: the fork\'s stub, and the loop fold inside it', async ({ page, seed }) => {
  await page.goto(runURL(seed['review']));
  // The rewound branch is the preferred one: the finished trunk is folded
  // under the fork point, and says what it holds. The user's step was
  // pending at the fork point: its row, above the fold, holds all its
  // attempts (the trunk's, with its gap; the blocked one; the rewound
  // branch's, with its gap), so the fold holds the experiments' gaps only.
  const user = page.locator('[data-testid="row"][data-node="node_2"]');
  await expect(user.getByTestId('row-step')).toHaveText('Get the evidence from the user');
  await expect(user.getByTestId('outcomes')).toContainText('2 open gaps · critical');
  await expect(user.getByTestId('outcomes')).toContainText('■ blocked ×1');
  await expect(user.getByTestId('outcomes')).toContainText('☎ needs the user');
  const stub = page.locator('[data-testid="row"][data-kind="stub"]');
  await expect(stub).toHaveCount(1);
  await expect(stub.getByTestId('outcomes')).toHaveText(`⚠ ${reviewLoopIterations} open gaps · critical`);
  await stub.getByRole('link').click();
  const fold = page.locator('[data-testid="row"][data-kind="loop-fold"]');
  await expect(fold).toHaveCount(1);
  // The loop fold holds every experiment, and so every gap the stub held.
  await expect(fold.getByTestId('outcomes')).toHaveText(`⚠ ${reviewLoopIterations} open gaps · critical`);
  expect(await gapsOn(page, '[data-testid="row"][data-kind="loop-fold"]')).toBe(reviewLoopIterations);
  // Folded or open, the rows hold every open gap once.
  expect(await gapsOn(page, '[data-testid="row"]')).toBe(reviewLoopIterations + 2);
  // Every node row says what came of its step: an outcome, or ✓ done;
  // the step pending at the tip has none yet.
  const steps = page.locator('[data-testid="row"][data-kind="node"]');
  const n = await steps.count();
  for (let i = 0; i < n - 1; i++) await expect(steps.nth(i).getByTestId('outcomes')).toBeVisible();
  await expect(steps.nth(n - 1).getByTestId('tip')).toBeVisible();
  await expect(steps.nth(n - 1).getByTestId('outcomes')).toHaveCount(0);
  await expect(page.locator('[data-testid="row"]', { hasText: 'Final review' })).toContainText('✓ run complete');
});

for (const js of [true, false]) {
  test.describe(js ? 'with JavaScript' : 'without JavaScript', () => {
    test.use({ javaScriptEnabled: js });

    test('the gaps filter lists only the rows holding gaps, from inside the folds too', async ({ page, seed }) => {
      const open = reviewLoopIterations + 2;
      await page.goto(runURL(seed['review']));
      await page.getByRole('navigation', { name: 'Show' }).getByRole('link', { name: 'with gaps: 4 steps' }).click();
      await expect(page).toHaveURL(/filter=gaps/);
      await expect(page.locator('[data-testid="row"][data-kind="loop-fold"]')).toHaveCount(0);
      await expect(page.locator('[data-testid="row"][data-kind="stub"]')).toHaveCount(0);
      // The rows listed are the 4 the filter counts, and hold every open gap,
      // each on the step it was recorded for; none is dimmed, none left out.
      const rows = page.getByTestId('row');
      await expect(rows).toHaveCount(4);
      await expect(page.locator('[data-testid="row"].dim')).toHaveCount(0);
      expect(await gapsOn(page, '[data-testid="row"]')).toBe(open);
      await expect(rows.filter({ hasText: 'Run the experiment' })).toHaveCount(reviewLoopIterations);
      await expect(rows.filter({ hasText: 'Get the evidence from the user' })).toHaveCount(1);
      await expect(rows.filter({ hasText: 'Get the evidence from the user' })).toContainText('2 open gaps · critical');
      // A list picked from all over the run is not a path: no lanes beside it.
      await expect(page.locator('.graph img')).toHaveCount(0);
    });

    test('the blocked filter picks the step whose attempt was blocked', async ({ page, seed }) => {
      await page.goto(runURL(seed['review']));
      await page.getByRole('navigation', { name: 'Show' }).getByRole('link', { name: 'blocked: 1 step' }).click();
      await expect(page).toHaveURL(/filter=blocked/);
      const picked = page.locator('[data-testid="row"]:not(.dim)');
      await expect(picked).toHaveCount(1);
      await expect(picked).toContainText('■ blocked ×1');
      await expect(picked.getByTestId('row-step')).toHaveText('Get the evidence from the user');
    });
  });
}

test('a row is the step pending at its node, with its attempts; the tip is the pending step, the rest greyed below', async ({ page, seed }) => {
  const s = seed['blocked'];
  await page.goto(runURL(s));
  const rows = page.getByTestId('row');
  // node_1 is where triage was pending: its row is triage, done there.
  const triage = page.locator('[data-testid="row"][data-node="node_1"]');
  await expect(rows.nth(0)).toHaveAttribute('data-node', 'node_1');
  await expect(triage.getByTestId('row-step')).toHaveText('Pin down the symptom');
  await expect(triage.locator('.node-id')).toHaveText('node_1');
  await expect(triage.getByTestId('outcomes')).toContainText('✓ done');
  // The step pending at the tip is the last row, with its blocked attempt on it.
  const pending = page.locator('[data-testid="row"][data-node="node_2"]');
  await expect(rows.last()).toHaveAttribute('data-node', 'node_2');
  await expect(pending.getByTestId('row-step')).toHaveText('Get the evidence from the user');
  await expect(pending.getByTestId('tip')).toBeVisible();
  await expect(pending).toContainText('■ blocked ×1');
  await expect(page.getByTestId('later').first()).toBeVisible();
  expect(await page.getByTestId('later').count()).toBeGreaterThan(3);
  // The header: waiting on the user, which step of how many, and what is next.
  const header = page.getByTestId('run-header');
  await expect(header.getByTestId('status')).toHaveText('☎ needs you');
  await expect(header.getByTestId('progress')).toHaveText(/^step 2 of \d+$/);
  await expect(header.getByTestId('steps-done')).toHaveText('1 step done');
  await expect(header).toContainText('next: Get the evidence from the user');
  // The panel names the row by its step, its notes, and where it went on to.
  await triage.getByTestId('row-step').click();
  const panel = page.getByTestId('node-panel');
  await expect(panel.getByTestId('panel-step')).toHaveText('Pin down the symptom');
  await expect(panel.getByTestId('panel-state')).toContainText('Done. Went on to the next step, “Get the evidence from the user”.');
  await expect(panel).toContainText('Triaged: the crash is in the parser.');
});

test('a complete run has done all its steps; a row inside the loop names the step it went on to', async ({ page, seed }) => {
  // The loop run is complete: every step done, none pending, none ahead.
  await page.goto(runURL(seed['loop']));
  await expect(page.getByTestId('progress')).toHaveText(/^step (\d+) of \1$/);
  await expect(page.getByTestId('tip')).toHaveCount(0);
  await expect(page.getByTestId('later')).toHaveCount(0);
  // Open a row inside the loop: its panel says the step that came next.
  await page.goto(runURL(seed['review']) + '?filter=gaps');
  const inLoop = page.locator('[data-testid="row"]', { hasText: 'Run the experiment' }).first();
  await inLoop.getByTestId('row-step').click();
  await expect(page.getByTestId('panel-state')).toContainText('Went on to the next step, “Form the next hypothesis”.');
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
        await shootLightAndDark(page, (scheme) => info.outputPath(`outcomes-${width}-${name}-${scheme}.png`), { fullPage: true });
      }
    });
  }
});

test('the sessions list says which step of how many a run is at', async ({ page, seed }) => {
  await page.goto('/');
  const blocked = page.locator(`tr[data-session="${seed['blocked'].sessionId}"]`);
  await expect(blocked.getByTestId('progress')).toHaveText(/^step 2 of \d+ · 1 step done$/);
  // A complete run has no step left: only the steps it did.
  await expect(page.locator(`tr[data-session="${seed['completed'].sessionId}"]`).getByTestId('progress')).toHaveText('3 steps done');
});

test('notes and gaps name the step they belong to by its title', async ({ page, seed }) => {
  const s = seed['review'];
  await page.goto(`/sessions/${s.sessionId}`);
  await expect(page.locator('.notes li', { hasText: 'Triaged: the parser drops a trailing comma.' }).getByTestId('note-step')).toHaveText('Pin down the symptom');
  await expect(page.locator('.gaps li', { hasText: 'Experiment 1 ran on a laptop' }).getByTestId('gap-step')).toHaveText('Run the experiment');
  await page.goto('/gaps');
  await expect(page.locator('[data-gap]', { hasText: 'Experiment 2 ran on a laptop' }).getByTestId('gap-step')).toHaveText('Run the experiment');
});
