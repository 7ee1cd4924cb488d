// Fork here and Restart on the current version. Fork here opens from any
// node's side panel: the node's context as JSON to edit, then a page
// handing the new branch to a chat (its stateToken and a line to paste),
// from which a real agent goes on through the shim to the end. A run
// whose workflow file was edited on disk offers a restart on the current
// version: the diff, the start context, and a new run in the same session
// linked both ways. The spec's workflows are its own user workflows (and
// their files are removed after), so no other spec's sessions or pages
// change.
import fs from 'node:fs';
import path from 'node:path';
import { test, expect, expectNoSidewaysScroll } from './fixtures';
import type { Page } from '@playwright/test';
import type { Mcp, ToolResult } from './mcp';
import { Run } from './seed';

const home = () => process.env.WORKRAIL_E2E_HOME!;

/** flow is a user workflow of three steps that needs a topic to start. */
function flow(id: string, version: string, firstPrompt: string): string {
  return JSON.stringify({
    id,
    name: `Spec ${id}`,
    description: 'A workflow of the fork spec.',
    version,
    context: [{ name: 'topic', type: 'string', required: true, description: 'What the run is about.' }],
    steps: [
      { id: 'first', title: 'First', prompt: firstPrompt },
      { id: 'second', title: 'Second', prompt: 'Then this, about the topic.' },
      { id: 'third', title: 'Third', prompt: 'And finish.' },
    ],
  }, null, 2);
}

/** writeFlow puts a workflow file in the daemon home's user folder. */
function writeFlow(name: string, text: string): string {
  const file = path.join(home(), 'workflows', name);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, text);
  return file;
}

/** fitsAPhone checks the page does not scroll sideways at 390 px, then goes back to the default size. */
async function fitsAPhone(page: Page, what: string) {
  const size = page.viewportSize()!;
  await page.setViewportSize({ width: 390, height: 844 });
  await expectNoSidewaysScroll(page, what);
  await page.setViewportSize(size);
}

/** finish follows nextCall, with notes, until the run completes. */
async function finish(agent: Mcp, from: ToolResult): Promise<ToolResult> {
  let last = from;
  for (let i = 0; i < 10 && last.structured.isComplete !== true; i++) {
    expect(last.kind, JSON.stringify(last.structured)).toBe('step');
    const args = { ...last.structured.nextCall.arguments, output: { notesMarkdown: `Did ${last.structured.pending.stepId} on the fork.` } };
    last = await agent.call('continue_workflow', args);
  }
  expect(last.structured.isComplete).toBe(true);
  return last;
}

test.describe('Fork here', () => {
  // The refused submission's 422 is a console error of its own: the test
  // checks it is the only one.
  test.use({ permissions: ['clipboard-read', 'clipboard-write'], allowConsoleErrors: true });

  test('forks a node with an edited context, hands the branch to a chat, and an agent finishes it through the shim', async ({ page, agent, consoleErrors }) => {
    const file = writeFlow('forkhere.json', flow('user.forkhere', '1.0.0', 'Start on the topic.'));
    try {
      const run = await Run.start(agent, { workflowId: 'user.forkhere', context: { topic: 'cats' } });
      await run.expect('first').advance('Did the first thing.');
      await run.expect('second').advance('Did the second thing, about cats.');
      run.expect('third');
      const { sessionId, runId } = run.history[0].structured.session;

      // The second step's row: pending at node_2, done; a fork redoes it
      // from there, as node_3 did.
      await page.goto(`/sessions/${sessionId}/runs/${runId}?node=node_2`);
      await page.getByTestId('node-panel').getByTestId('fork-here').click();
      await expect(page).toHaveURL(new RegExp(`/sessions/${sessionId}/runs/${runId}/fork\\?node=node_3$`));
      await expect(page.getByTestId('fork-what')).toContainText('Starts a new branch from node_2');
      const context = page.getByLabel('Context (a JSON object)');
      await expect(context).toHaveValue(/"topic": "cats"/);
      await fitsAPhone(page, 'Fork here');

      // Not JSON: refused with where, the text kept, nothing branched.
      await context.fill('{"topic": dogs}');
      await page.getByTestId('fork-submit').click();
      await expect(page.getByTestId('refused')).toContainText('context is not valid JSON');
      await expect(context).toHaveValue('{"topic": dogs}');

      await context.fill('{"topic": "dogs"}');
      await page.getByTestId('fork-submit').click();
      await expect(page).toHaveURL(new RegExp(`/sessions/${sessionId}/runs/${runId}/handoff\\?node=node_4$`));
      await expect(page.getByTestId('handoff-what')).toContainText('third Third is pending at this node');
      const token = (await page.getByTestId('state-token').textContent())!.trim();
      expect(token).toMatch(/^st\.v1\./);
      await fitsAPhone(page, 'the hand-off page');
      await expect(page.getByTestId('chat-prompt')).toHaveText(
        `Continue my WorkRail run: call continue_workflow with stateToken "${token}" and do the pending step.`);

      // The copy button (the script's) puts the line on the clipboard.
      const copy = page.locator('button[data-copy="chat-prompt"]');
      await copy.click();
      await expect(copy).toHaveText('Copied');
      expect(await page.evaluate(() => navigator.clipboard.readText())).toContain(token);

      // The new node on the run page: a fork of node_2, the edited context.
      await page.getByTestId('node-link').click();
      const forked = page.locator('[data-testid="row"][data-node="node_4"]');
      await expect(forked.getByTestId('branch-origin')).toHaveText('↳ Console fork');
      await expect(forked.getByTestId('branch-origin')).toHaveAttribute('title', /forked in the Console, context changed: topic/);
      await expect(page.getByTestId('node-panel')).toContainText('node_4');
      await page.goto(`/sessions/${sessionId}/runs/${runId}/fork?node=node_4`);
      await expect(page.getByLabel('Context (a JSON object)')).toHaveValue(/"topic": "dogs"/);

      // A chat given the line goes on from the token through the real shim.
      const resumed = await agent.call('continue_workflow', { stateToken: token });
      expect(resumed.kind).toBe('step');
      expect(resumed.structured.pending.stepId).toBe('third');
      expect(resumed.structured.session).toEqual({ sessionId, runId });
      await finish(agent, resumed);

      await page.goto(`/sessions/${sessionId}/runs/${runId}`);
      await expect(page.getByTestId('run-header').getByTestId('status')).toHaveText('✓ complete');
      await expect(page.getByTestId('branch-status')).toHaveText('2 branches: A ◇ left behind, B ✓ complete');
      // The first branch is still there, at third.
      const first = await agent.call('continue_workflow', { stateToken: run.last.structured.stateToken });
      expect(first.structured.pending.stepId).toBe('third');
      expect(consoleErrors).toHaveLength(1);
      expect(consoleErrors[0]).toMatch(/status of 422 .*\/fork\?node=node_3\)$/);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});

test('restarts a drifted run on the current version, in its session, linked both ways', async ({ page, agent }) => {
  const file = writeFlow('restartcheck.json', flow('user.restartcheck', '1.0.0', 'Start on the topic.'));
  try {
    const run = await Run.start(agent, { workflowId: 'user.restartcheck', context: { topic: 'cats' } });
    await run.expect('first').advance('Did the first thing.');
    const { sessionId, runId } = run.history[0].structured.session;
    const runPage = `/sessions/${sessionId}/runs/${runId}`;

    await page.goto(runPage);
    await expect(page.getByTestId('restart')).toHaveCount(0);

    fs.writeFileSync(file, flow('user.restartcheck', '1.1.0', 'Start on the topic, and say which version you run.'));
    await page.reload();
    const banner = page.getByTestId('drift-banner');
    await expect(banner).toContainText('1.1.0');

    // Without the form's token nothing is done (the restart below is run_2).
    const refused = await page.request.post(`${runPage}/restart`, { form: { context: '{"topic": "cats"}' } });
    expect(refused.status()).toBe(403);

    await banner.getByRole('link', { name: 'Restart on the current version' }).click();
    await expect(page).toHaveURL(new RegExp(`${runPage}/restart$`));
    const diff = page.getByTestId('workflow-diff');
    await expect(diff.locator('.del').filter({ hasText: '"version": "1.0.0"' })).toHaveCount(1);
    await expect(diff.locator('.add').filter({ hasText: '"version": "1.1.0"' })).toHaveCount(1);
    const context = page.getByTestId('restart-context');
    await expect(context).toHaveValue(/"topic": "cats"/);
    await fitsAPhone(page, 'the restart preview');
    await context.fill('{"topic": "cats, again"}');
    await page.getByTestId('restart-submit').click();

    await expect(page).toHaveURL(new RegExp(`/sessions/${sessionId}/runs/run_2\\?node=node_3$`));
    const header = page.getByTestId('run-header');
    await expect(header).toContainText('pinned to version 1.1.0');
    await expect(page.getByTestId('drift-banner')).toHaveCount(0);
    await expect(page.getByTestId('restart-of')).toContainText(`Restarts ${runId}`);
    // The session holds both runs: the restart made no new session.
    await page.getByTestId('node-panel').getByTestId('continue-in-chat').click();
    const token = (await page.getByTestId('state-token').textContent())!.trim();

    await page.goto(runPage);
    await expect(page.getByTestId('restarted-as')).toContainText('Restarted as run_2 on version 1.1.0');
    await expect(page.getByTestId('superseded')).toHaveText('superseded by run_2');
    await page.goto(`/sessions/${sessionId}`);
    await expect(page.locator(`li[data-run="${runId}"]`).getByTestId('superseded')).toHaveText('superseded by run_2');
    await expect(page.locator('li[data-run="run_2"]').getByTestId('superseded')).toHaveCount(0);
    await page.goto(runPage);
    await page.getByTestId('restarted-as').getByRole('link', { name: 'run_2' }).click();
    await expect(page).toHaveURL(new RegExp(`/sessions/${sessionId}/runs/run_2$`));

    // An agent given the new run goes on on the current version.
    const resumed = await agent.call('continue_workflow', { stateToken: token });
    expect(resumed.structured.session).toEqual({ sessionId, runId: 'run_2' });
    expect(resumed.structured.pending.prompt).toContain('say which version you run');
    await finish(agent, resumed);
    // The old run goes on on its pinned version.
    const old = await agent.call('continue_workflow', { stateToken: run.last.structured.stateToken });
    expect(old.structured.pending.stepId).toBe('second');
    expect(old.structured.workflow.workflowHash).toBe(run.history[0].structured.workflow.workflowHash);
  } finally {
    fs.rmSync(file, { force: true });
  }
});
