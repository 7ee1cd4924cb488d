// A run's page: its header with the pinned workflow version, its branch
// graph (the forked run's earlier branch folded under its fork point, the
// loop run's repeated iterations folded into one row), a filter bar, and
// a node side panel that a click opens without loading the page (links in
// #run are hx-boosted: the panel is morphed in, the URL pushed).
import fs from 'node:fs';
import path from 'node:path';
import { test, expect, htmxIdle, markWindow, windowMarked } from './fixtures';
import { repoRoot } from './daemon';
import { gapsArtifact, loopIterations } from './seed';

/** versionOf is the version a builtin workflow's source declares. */
function versionOf(workflowId: string): string {
  return JSON.parse(fs.readFileSync(path.join(repoRoot, 'workflows', `${workflowId}.json`), 'utf8')).version;
}

test('reaches a run from the sessions list through its session', async ({ page, seed }) => {
  const forked = seed['forked'];
  await page.goto('/');
  await page.locator(`tr[data-session="${forked.sessionId}"]`).locator('a.row-link').click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${forked.sessionId}$`));
  await expect(page.getByRole('heading', { level: 2 })).toContainText(forked.sessionId);
  await expect(page.getByRole('heading', { name: 'Session notes' })).toBeVisible();
  await expect(page.getByText('Said hello again after the chat was rewound (second branch).').first()).toBeVisible();
  await page.getByTestId('open-graph').click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${forked.sessionId}/runs/${forked.runId}$`));
  await expect(page.getByRole('heading', { level: 2 })).toContainText('wr.hello');
});

test('the header names the pinned workflow version', async ({ page, seed }) => {
  for (const s of [seed['forked'], seed['loop']]) {
    await page.goto(`/sessions/${s.sessionId}/runs/${s.runId}`);
    const header = page.getByTestId('run-header');
    await expect(header).toContainText(`pinned to version ${versionOf(s.workflowId)}`);
    const pinned = header.getByTestId('pinned');
    await expect(pinned).toHaveAttribute('title', s.workflowHash);
    expect(s.workflowHash.startsWith((await pinned.textContent())!), 'the short hash is the hash\'s start').toBe(true);
  }
  // The loop run is complete, with the report's first gap still open: no step pending.
  await expect(page.getByTestId('run-header').getByTestId('status')).toHaveText('✓ complete · 1 open gap');
  await expect(page.getByTestId('run-header')).not.toHaveText(/· next: /);
});

test('folds the earlier branch under its fork point and opens it without JS', async ({ page, seed }) => {
  const forked = seed['forked'];
  await page.goto(`/sessions/${forked.sessionId}/runs/${forked.runId}`);
  const rows = page.getByTestId('row');
  // Root, the stub for the first branch, and the second branch's node.
  await expect(rows).toHaveCount(3);
  await expect(page.getByTestId('tip')).toHaveCount(1);
  const stub = page.locator('[data-kind="stub"]');
  await expect(stub).toContainText('2 steps from');
  // The drawing is decorative: no role, hidden from assistive technology.
  await expect(page.locator('.graph img')).toHaveAttribute('aria-hidden', 'true');
  await expect(page.locator('.graph img')).toHaveAttribute('alt', '');
  await stub.getByRole('link').click();
  await expect(page).toHaveURL(/expand=node_2/);
  await expect(rows).toHaveCount(4);
  await expect(page.locator('[data-kind="stub"]')).toHaveCount(0);
  // The drawing follows the same layout.
  const img = page.locator('.graph img');
  await expect(img).toHaveAttribute('src', /graph\.svg\?at=\d+&expand=node_2$/);
  expect((await page.request.get((await img.getAttribute('src'))!)).headers()['content-type']).toContain('image/svg+xml');
  // And folds again.
  await page.getByTestId('fold-again').click();
  await expect(page).not.toHaveURL(/expand=/);
  await expect(rows).toHaveCount(3);
  await expect(page.getByTestId('fold-again')).toHaveCount(0);
});

test('folds repeated loop iterations into one row that ?expand opens', async ({ page, seed }) => {
  const s = seed['loop'];
  await page.goto(`/sessions/${s.sessionId}/runs/${s.runId}`);
  const rows = page.getByTestId('row');
  const fold = page.locator('[data-testid="row"][data-kind="loop-fold"]');
  await expect(fold).toHaveCount(1);
  const steps = 2 * loopIterations;
  await expect(fold).toContainText(`×${loopIterations} iterations of form-hypothesis → test-hypothesis (${steps} steps)`);
  // The fold is named after the loop in the pinned workflow.
  await expect(fold.locator('.loop-name')).toHaveText('Test hypotheses until the root cause is proven');
  const before = await rows.count();
  const node = await fold.getAttribute('data-node');
  await markWindow(page);
  await fold.getByRole('link').click();
  await expect(page).toHaveURL(new RegExp(`[?&]expand=${node}(&|$)`));
  await htmxIdle(page);
  await expect(rows).toHaveCount(before - 1 + steps);
  await expect(fold).toHaveCount(0);
  expect(await windowMarked(page), 'expanded in place').toBe(true);
  const bodySteps = await page.getByTestId('row-step').allTextContents();
  expect(bodySteps.filter((t) => t === 'Form the next hypothesis')).toHaveLength(loopIterations);
  expect(bodySteps.filter((t) => t === 'Run the experiment')).toHaveLength(loopIterations);
  // The same URL loaded afresh shows the same expanded rows.
  await page.reload();
  await expect(rows).toHaveCount(before - 1 + steps);
  await expect(page.locator('.graph img')).toHaveAttribute('src', new RegExp(`graph\\.svg\\?at=\\d+&expand=${node}$`));
});

test('clicking a row opens its node in the side panel without a page load; Back closes it', async ({ page, seed }) => {
  const forked = seed['forked'];
  const url = `/sessions/${forked.sessionId}/runs/${forked.runId}`;
  await page.goto(url);
  await expect(page.getByTestId('node-panel')).toHaveCount(0);
  await markWindow(page);
  const loads: string[] = [];
  page.on('load', () => loads.push(page.url()));

  // The tip is the first row of branch B, labelled by how it came to be.
  const tipRow = page.locator('[data-testid="row"]', { has: page.getByTestId('tip') });
  await expect(tipRow.getByTestId('branch-tag')).toHaveText('B');
  await expect(tipRow.getByTestId('branch-origin')).toHaveText('↳ rewound');
  await expect(tipRow.getByTestId('branch-origin')).toHaveAttribute('title', 'from “Greet the user”: an agent went on from an older point of the run');
  const link = tipRow.getByRole('link').first();
  const node = (await tipRow.getAttribute('data-node'))!;
  await link.click();
  const panel = page.getByTestId('node-panel');
  await expect(panel).toBeVisible();
  // The link lands on the panel's heading (below the rows on a phone).
  await expect(page).toHaveURL(new RegExp(`${url}\\?node=${node}#panel-h$`));
  await expect(panel.getByRole('heading', { level: 3 })).toContainText(node);
  await expect(panel).toContainText('Branch B starts here: an agent went on from an older point of the run, from “Greet the user”.');
  await expect(panel.getByTestId('panel-state')).toContainText('Pending.');
  await expect(tipRow.getByRole('link').first()).toHaveAttribute('aria-current', 'page');
  await htmxIdle(page);
  expect(await windowMarked(page), 'the same document: the panel was swapped in').toBe(true);

  await page.goBack();
  await expect(page).toHaveURL(new RegExp(`${url}$`));
  await expect(page.getByTestId('node-panel')).toHaveCount(0);
  await htmxIdle(page);
  expect(await windowMarked(page), 'Back restored the page in place').toBe(true);

  // Forward opens it again; Close closes it the same way.
  await page.goForward();
  await expect(page.getByTestId('node-panel')).toBeVisible();
  await page.getByTestId('node-panel').getByRole('link', { name: 'Close' }).click();
  await expect(page.getByTestId('node-panel')).toHaveCount(0);
  await expect(page).toHaveURL(new RegExp(`${url}$`));
  expect(await windowMarked(page)).toBe(true);
  expect(loads, 'no page loads').toEqual([]);
});

test('opens a node in the side panel by deep link, with its notes and provenance', async ({ page, seed }) => {
  const forked = seed['forked'];
  // node_1 is where the greeting was pending: its row holds both attempts,
  // the first branch's and the one the rewound chat made, with their notes
  // and where each went on to.
  await page.goto(`/sessions/${forked.sessionId}/runs/${forked.runId}?node=node_1`);
  const panel = page.getByTestId('node-panel');
  await expect(panel).toBeVisible();
  await expect(panel.getByTestId('panel-step')).toHaveText('Greet the user');
  await expect(panel.getByRole('heading', { level: 4 })).toContainText(['Attempt 1', 'Attempt 2']);
  await expect(panel).toContainText('Said hello (first branch).');
  await expect(panel).toContainText('Went on to branch B at “Look around the workspace”.');
  await expect(panel).toContainText('second branch');
  await expect(panel.getByTestId('panel-state')).toContainText('Done. Went on to the next step, “Look around the workspace”.');
  // The panel's prompt is a closed <details> the reader may open.
  await panel.getByText('Prompt', { exact: true }).click();
  await expect(panel.locator('details').first()).toHaveAttribute('open', '');
});

test('an artifact with a contract is a table with the contract\'s columns', async ({ page, seed }) => {
  const s = seed['loop'];
  await page.goto(`/sessions/${s.sessionId}/runs/${s.runId}`);
  // The report's output is on its row, the node the report was pending at.
  await page.locator('[data-testid="row"]', { hasText: 'Report the outcome' }).getByTestId('row-step').click();
  const panel = page.getByTestId('node-panel');
  await expect(panel.getByTestId('panel-step')).toHaveText('Report the outcome');
  await expect(panel.getByRole('heading', { level: 4 })).toContainText(['✓ went through Attempt 1']);
  const artifact = panel.getByTestId('artifact').filter({ hasText: 'wr.contracts.gaps' });
  await expect(artifact).toHaveCount(1);
  await expect(artifact).toContainText('Things the agent could not do or had to assume');
  const fields = artifact.getByRole('table').first();
  await expect(fields.getByRole('rowheader', { name: 'gaps' })).toBeVisible();
  // The gaps list is a table with the item schema's columns, in its order.
  const gaps = fields.getByRole('cell').getByRole('table');
  await expect(gaps.getByRole('columnheader')).toHaveText(['summary', 'severity', 'how to resolve']);
  const rows = gaps.getByRole('row').filter({ has: page.getByRole('cell') });
  await expect(rows).toHaveCount(gapsArtifact.gaps.length);
  for (const [i, g] of gapsArtifact.gaps.entries()) {
    await expect(rows.nth(i).getByRole('cell')).toHaveText([g.summary, g.severity, g.howToResolve ?? '']);
  }
  await expect(artifact.locator('pre')).toHaveCount(0);
  // The gaps it reported are gaps of the node: the first open, the second
  // resolved by the final review, which the panel links to.
  const recorded = panel.getByTestId('gap');
  await expect(recorded).toHaveCount(gapsArtifact.gaps.length);
  await expect(recorded.filter({ hasText: gapsArtifact.gaps[0].summary })).toContainText('○ open');
  const resolved = recorded.filter({ hasText: gapsArtifact.gaps[1].summary });
  await expect(resolved).toContainText('✓ resolved at');
  await resolved.getByRole('link').click();
  await expect(page).toHaveURL(/[?&]node=node_\d+#panel-h$/);
  await expect(page.getByTestId('node-panel').getByTestId('panel-step')).toHaveText('Final review');
  await expect(page.getByTestId('node-panel').getByTestId('panel-state')).toContainText('Done; the run completed here.');

  // A loop's test step reported its decision as a wr.contracts.loop_control table.
  const fold = page.locator('[data-testid="row"][data-kind="loop-fold"]');
  await fold.getByRole('link').click();
  await expect(fold).toHaveCount(0);
  await page.locator('[data-testid="row"]', { hasText: 'Run the experiment' }).first().getByTestId('row-step').click();
  const control = page.getByTestId('node-panel').getByTestId('artifact').filter({ hasText: 'wr.contracts.loop_control' });
  await expect(control.getByRole('row', { name: /decision/ })).toContainText('continue');
});

test('the filter bar marks its choice and lists only the rows it picks', async ({ page, seed }) => {
  const forked = seed['forked'];
  await page.goto(`/sessions/${forked.sessionId}/runs/${forked.runId}`);
  await page.getByRole('navigation', { name: 'Show' }).getByRole('link', { name: 'forks: 2 steps' }).click();
  await expect(page).toHaveURL(/filter=forks/);
  await expect(page.getByTestId('filter-forks')).toHaveAttribute('aria-current', 'page');
  // The fork point and the fork's first step are listed; the folded
  // original branch is not, and nothing is dimmed.
  const rows = page.getByTestId('row');
  await expect(rows).toHaveCount(2);
  await expect(rows.nth(0)).toHaveAttribute('data-node', 'node_1');
  await expect(rows.nth(1)).toHaveAttribute('data-node', 'node_4');
  await expect(page.locator('[data-testid="row"][data-kind="stub"]')).toHaveCount(0);
  await expect(page.locator('[data-testid="row"].dim')).toHaveCount(0);
  // No step was blocked: the filter lists none and says so.
  await page.getByRole('link', { name: 'blocked: 0 steps' }).click();
  await expect(page.getByTestId('filter-blocked')).toHaveAttribute('aria-current', 'page');
  await expect(rows).toHaveCount(0);
  await expect(page.getByTestId('no-rows')).toHaveText('No step of this run had a blocked attempt.');
});

test.describe('an unknown address', () => {
  // The browser logs every 404 it loads; here the 404s are the point.
  test.use({ allowConsoleErrors: true });

  test('is a styled 404 with a way home', async ({ page, seed, consoleErrors }) => {
    const forked = seed['forked'];
    const paths = [
      `/sessions/${forked.sessionId}/runs/run_9`,
      `/sessions/${forked.sessionId}/runs/${forked.runId}?node=node_99`,
      `/sessions/${forked.sessionId}?run=run_9`,
      '/sessions/ses_999999',
      '/?before=nonsense',
      '/nowhere',
    ];
    for (const path of paths) {
      const r = await page.goto(path);
      expect(r?.status(), path).toBe(404);
      await expect(page.getByRole('alert')).toBeVisible();
      await expect(page.getByRole('link', { name: 'Back to all sessions' })).toBeVisible();
    }
    expect(consoleErrors.every((e) => e.includes('status of 404'))).toBe(true);
  });
});
