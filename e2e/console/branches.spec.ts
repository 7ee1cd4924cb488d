// Branches a person can read: a run with three branches off one row
// (the path taken first, run to completion; a rewound chat's fork; a fork
// made in the Console with another topic, the current branch). The run's
// header states all three by letter and state; each fork says how it came
// to be and where it left; the folded lines differ; the row the run
// completed on says so; a node inside a folded branch opens with its
// branch unfolded; "expand all" is a plain link; the run's JSON says the
// same. The spec's workflow is its own user workflow, removed after.
import fs from 'node:fs';
import path from 'node:path';
import { test, expect, shootPhoneAndDesktop } from './fixtures';
import { Run } from './seed';

const file = () => path.join(process.env.WORKRAIL_E2E_HOME!, 'workflows', 'user.e2e_branches.json');

test.beforeAll(() => {
  fs.mkdirSync(path.dirname(file()), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file(), JSON.stringify({
    id: 'user.e2e_branches', name: 'Branches', description: 'Three steps about a topic, for the branches spec.', version: '1',
    context: [{ name: 'topic', type: 'string', required: true, description: 'What the run is about.' }],
    steps: [
      { id: 'triage', title: 'Triage', prompt: 'Triage the topic.' },
      { id: 'reproduce', title: 'Reproduce', prompt: 'Reproduce it.' },
      { id: 'wrap-up', title: 'Wrap up', prompt: 'Wrap up.' },
    ],
  }, null, 2));
});
test.afterAll(() => fs.rmSync(file(), { force: true }));

test('a run of three branches, one forked in the Console, reads as three', async ({ page, agent }, info) => {
  test.setTimeout(120_000);
  const run = await Run.start(agent, { workflowId: 'user.e2e_branches', context: { topic: 'parser' } });
  const first = run.last;
  await run.expect('triage').advance('Triaged: the parser.');
  await run.finish('Done on the first path.');
  // A rewound chat acknowledges triage again: a fork of node_1.
  await run.rewind(first);
  await run.advance('Triaged again after the chat was rewound.');
  const { sessionId, runId } = run.history[0].structured.session;
  const runPage = `/sessions/${sessionId}/runs/${runId}`;

  // A person forks node_2 (made by triage) in the Console with another topic.
  await page.goto(`${runPage}/fork?node=node_2`);
  await page.getByLabel('Context (a JSON object)').fill('{"topic": "lexer"}');
  await page.getByTestId('fork-submit').click();
  await expect(page).toHaveURL(/\/handoff\?node=node_\d+$/);
  const consoleNode = new URL(page.url()).searchParams.get('node')!;

  await page.goto(runPage);
  await expect(page.getByTestId('branch-status')).toHaveText('3 branches: A ✓ complete, B ◇ left behind, C ▶ current');
  // Triage went on three times: once on A, once for each fork.
  const triage = page.locator('[data-testid="row"][data-node="node_1"]');
  await expect(triage.getByTestId('forks')).toHaveText('2 forks');
  // The two lines the run left are folded, each by its letter, length,
  // first step and state.
  const stubs = page.locator('[data-testid="row"][data-kind="stub"]');
  await expect(stubs).toHaveCount(2);
  const taken = stubs.filter({ hasText: '✓ complete' });
  const rewound = stubs.filter({ hasText: 'left behind' });
  await expect(taken).toContainText('2 steps from “Reproduce”');
  await expect(taken.getByTestId('branch-tag')).toHaveText('A');
  await expect(rewound).toContainText('1 step from “Reproduce”');
  await expect(rewound.getByTestId('branch-tag')).toHaveText('B');
  // The Console's fork is the current branch, labelled with what it changed.
  const tipRow = page.locator('[data-testid="row"]', { has: page.getByTestId('tip') });
  await expect(tipRow).toHaveAttribute('data-node', consoleNode);
  await expect(tipRow.getByTestId('branch-tag')).toHaveText('C');
  await expect(tipRow.getByTestId('branch-origin')).toHaveText('↳ Console fork');
  await expect(tipRow.getByTestId('branch-origin')).toHaveAttribute('title', 'from “Triage”: forked in the Console, context changed: topic');
  await shootPhoneAndDesktop(page, 'branches-folded', (f) => info.outputPath(f));
  // Its panel says so in a sentence, with what its context changed, and
  // both values.
  await tipRow.getByTestId('row-step').click();
  const panel = page.getByTestId('node-panel');
  await expect(panel.getByTestId('origin')).toHaveText('Branch C starts here: forked in the Console, context changed: topic, from “Triage”.');
  await expect(panel.getByTestId('context-diff').locator('tbody tr')).toHaveText([/topic\s*"parser"\s*"lexer"/]);

  // A node inside the folded completed branch opens with that branch
  // unfolded (and only it): the run completed on its last row.
  await page.goto(`${runPage}?node=node_3`);
  await expect(page.getByTestId('node-panel').getByTestId('panel-state')).toContainText('Done; the run completed here.');
  const leafRow = page.locator('[data-testid="row"][data-node="node_3"]');
  await expect(leafRow).toBeVisible();
  await expect(leafRow.getByTestId('run-complete')).toHaveText('✓ run complete');
  await expect(stubs).toHaveCount(1);
  await shootPhoneAndDesktop(page, 'branches-open-node', (f) => info.outputPath(f));

  // expand all: a plain link, no stub left, and folds again.
  await page.goto(runPage);
  await page.getByTestId('expand-all').click();
  await expect(page).toHaveURL(/expand=all/);
  await expect(stubs).toHaveCount(0);
  await expect(page.getByTestId('expand-all')).toHaveCount(0);
  await expect(page.getByTestId('row').getByTestId('branch-origin')).toHaveText(['↳ rewound', '↳ Console fork']);
  await expect(page.getByTestId('run-complete')).toHaveCount(1);
  await shootPhoneAndDesktop(page, 'branches-expanded', (f) => info.outputPath(f));
  await page.getByTestId('fold-again').click();
  await expect(stubs).toHaveCount(2);

  // The run's projection says the same.
  const doc = await (await page.request.get(`${runPage}.json`)).json();
  expect(doc.branches.map((b: any) => [b.letter, b.state, b.origin])).toEqual([
    ['A', 'complete', 'first'], ['B', 'left_behind', 'rewound'], ['C', 'current', 'console_fork'],
  ]);
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('expand all and the stubs are plain links', async ({ page, seed }) => {
    const f = seed['forked'];
    await page.goto(`/sessions/${f.sessionId}/runs/${f.runId}`);
    await page.getByTestId('expand-all').click();
    await expect(page).toHaveURL(/expand=all/);
    await expect(page.locator('[data-kind="stub"]')).toHaveCount(0);
  });
});
