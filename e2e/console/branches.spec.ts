// Branches a person can read: a run with three branches off one node
// (the path taken first, run to completion; a rewound chat's fork; a fork
// made in the Console with another topic, the current branch). The run's
// header states all three; each fork says how it came to be and where it
// left; the folded siblings differ; a completed leaf carries ✓; a node
// inside a folded branch opens with its branch unfolded; "expand all" is a
// plain link. The spec's workflow is its own user workflow, removed after.
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
  await expect(page.getByTestId('branch-status')).toHaveText('1 branch complete, 2 in progress; current branch A at reproduce');
  // Three branches, each its own letter.
  await expect(page.getByTestId('branch-tag').filter({ hasText: /^[ABC]$/ })).not.toHaveCount(0);
  const stubs = page.locator('[data-testid="row"][data-kind="stub"]');
  await expect(stubs).toHaveCount(2);
  // The siblings differ: their letter, length and how they came to be and end.
  const taken = stubs.filter({ hasText: 'the path taken first' });
  const rewound = stubs.filter({ hasText: 'an agent rewound' });
  await expect(taken).toContainText('from node_1 after triage');
  await expect(taken).toContainText('3 steps from reproduce');
  await expect(taken.getByTestId('branch-end')).toHaveText('✓ complete');
  await expect(rewound).toContainText('↳ forked from node_1 after triage');
  await expect(rewound).toContainText('1 step from reproduce');
  await expect(rewound.getByTestId('branch-end')).toContainText('▶ in progress at reproduce');
  expect(await taken.getByTestId('branch-tag').textContent()).not.toBe(await rewound.getByTestId('branch-tag').textContent());
  // The Console's fork is the current branch, labelled with what it changed.
  const tipRow = page.locator('[data-testid="row"]', { has: page.getByTestId('tip') });
  await expect(tipRow).toHaveAttribute('data-node', consoleNode);
  await expect(tipRow.getByTestId('branch-origin')).toHaveText('↳ forked from node_1 after triage: forked in the Console, context changed: topic');
  await shootPhoneAndDesktop(page, 'branches-folded', (f) => info.outputPath(f));

  // A node inside the folded completed branch opens with that branch
  // unfolded (and only it), its leaf marked ✓.
  const leaf = 'node_4';
  await page.goto(`${runPage}?node=${leaf}`);
  await expect(page.getByTestId('node-panel')).toContainText(leaf);
  const leafRow = page.locator(`[data-testid="row"][data-node="${leaf}"]`);
  await expect(leafRow).toBeVisible();
  await expect(leafRow.getByTestId('branch-end')).toHaveText('✓ complete');
  await expect(stubs).toHaveCount(1);
  await shootPhoneAndDesktop(page, 'branches-open-node', (f) => info.outputPath(f));

  // expand all: a plain link, no stub left, and folds again.
  await page.goto(runPage);
  await page.getByTestId('expand-all').click();
  await expect(page).toHaveURL(/expand=all/);
  await expect(stubs).toHaveCount(0);
  await expect(page.getByTestId('expand-all')).toHaveCount(0);
  await expect(page.getByTestId('branch-end').filter({ hasText: '✓ complete' })).toHaveCount(1);
  await shootPhoneAndDesktop(page, 'branches-expanded', (f) => info.outputPath(f));
  await page.getByTestId('fold-again').click();
  await expect(stubs).toHaveCount(2);
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
