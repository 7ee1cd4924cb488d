// The workflows pages: the catalog by source, three views of one workflow
// (source, compiled, source → compiled), and pinned drift. A run keeps the
// version of its workflow it started on; when the file is edited on disk,
// the Console marks the run and its session, explains the drift on the
// run page and shows what changed, and the agent is told too (a rehydrate
// and inspect_workflow with the run's stateToken), never in a replay.
// The spec's workflow is its own (user.driftcheck), so that no other
// spec's pages change.
import fs from 'node:fs';
import path from 'node:path';
import { test, expect } from './fixtures';
import { Run } from './seed';

const home = () => process.env.WORKRAIL_E2E_HOME!;

function driftcheck(version: string, prompt: string): string {
  return JSON.stringify({
    id: 'user.driftcheck',
    name: 'Drift check',
    description: 'A workflow the spec edits on disk.',
    version,
    steps: [
      { id: 'first', title: 'First', prompt },
      { id: 'second', title: 'Second', prompt: 'Then this.' },
    ],
  }, null, 2);
}

test('the catalog lists the bundled workflows by source, and each opens as source, compiled and source → compiled', async ({ page }) => {
  await page.goto('/workflows');
  await expect(page.getByRole('heading', { name: 'Bundled with WorkRail (read-only)' })).toBeVisible();
  const hello = page.locator('[data-workflow="wr.hello"]');
  await expect(hello).toBeVisible();
  await hello.getByRole('link', { name: /Hello/ }).first().click();
  await expect(page).toHaveURL(/\/workflows\/wr\.hello/);
  const views = page.getByRole('navigation', { name: 'View' });

  await expect(views.getByRole('link', { name: 'source', exact: true })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('workflow-document')).toContainText('"id": "wr.hello"');

  await views.getByRole('link', { name: 'compiled', exact: true }).click();
  await expect(views.getByRole('link', { name: 'compiled', exact: true })).toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('workflow-document')).toContainText('"provenance"');

  await views.getByRole('link', { name: 'source → compiled' }).click();
  const diff = page.getByTestId('workflow-diff');
  await expect(diff.locator('.hunk').first()).toHaveText(/^@@ -1,\d+ \+1,\d+ @@/);
  await expect(diff.locator('.add').filter({ hasText: '"provenance"' }).first()).toBeVisible();
  // Fields the author wrote are unchanged lines, whatever the file's layout.
  await expect(diff.locator('.same').filter({ hasText: '"id": "wr.hello"' })).toHaveCount(1);
});

test('editing a started workflow on disk marks its run as drifted, shows what changed, and tells the agent', async ({ page, agent }) => {
  const file = path.join(home(), 'workflows', 'driftcheck.json');
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, driftcheck('1.0.0', 'Do the first thing.'));
  test.info().attach('workflow file', { body: file });
  try {
    const run = await Run.start(agent, { workflowId: 'user.driftcheck' });
    expect(run.last.kind).toBe('step');
    const started = run.last.structured;
    const { sessionId, runId } = started.session;
    const advanced = await run.advance('Did the first thing.');
    expect(advanced.kind).toBe('step');
    const replayArgs = { ...started.nextCall.arguments, output: { notesMarkdown: 'Did the first thing.' } };

    // Nothing has drifted yet.
    await page.goto(`/sessions/${sessionId}/runs/${runId}`);
    await expect(page.getByTestId('run-header')).toContainText('next: Second');
    await expect(page.getByTestId('drift-banner')).toHaveCount(0);

    fs.writeFileSync(file, driftcheck('1.1.0', 'Do the first thing, and say so twice.'));

    await page.reload();
    const banner = page.getByTestId('drift-banner');
    await expect(banner).toContainText('edited');
    await expect(banner).toContainText('1.1.0');
    await expect(page.getByTestId('run-header')).toContainText('next: Second');
    await banner.getByRole('link', { name: 'See what changed' }).click();
    const diff = page.getByTestId('workflow-diff');
    await expect(diff.locator('.del').filter({ hasText: '"version": "1.0.0"' })).toHaveCount(1);
    await expect(diff.locator('.add').filter({ hasText: '"version": "1.1.0"' })).toHaveCount(1);
    await expect(diff.locator('.add').filter({ hasText: 'say so twice' })).not.toHaveCount(0);

    // The session's row in the list carries the badge.
    await page.goto(`/?q=${sessionId}`);
    await expect(page.locator(`[data-session="${sessionId}"]`).getByTestId('drift')).toBeVisible();

    // The agent: a rehydrate and inspect_workflow with the run's token warn,
    // the pinned version is what the run follows; a replay is unchanged.
    const re = await agent.call('continue_workflow', { stateToken: run.last.structured.stateToken });
    expect(re.structured.warnings.map((w: any) => w.code)).toEqual(['PINNED_WORKFLOW_DRIFTED']);
    expect(re.structured.pending.stepId).toBe('second');
    const inspected = await agent.call('inspect_workflow', {
      workflowId: 'user.driftcheck', mode: 'preview', stateToken: run.last.structured.stateToken,
    });
    expect(inspected.kind).toBe('workflow');
    expect(inspected.structured.workflow.version).toBe('1.0.0');
    expect(inspected.structured.workflowHash).toBe(started.workflow.workflowHash);
    expect(inspected.structured.warnings.map((w: any) => w.code)).toEqual(['PINNED_WORKFLOW_DRIFTED']);
    expect(inspected.structured.warnings[0].message).toContain('continues on its pinned version');
    const current = await agent.call('inspect_workflow', { workflowId: 'user.driftcheck' });
    expect(current.structured.workflow.version).toBe('1.1.0');
    expect(current.structured.warnings).toEqual([]);
    const replay = await agent.call('continue_workflow', replayArgs);
    expect(replay.structured).toEqual(advanced.structured);
  } finally {
    fs.rmSync(file, { force: true });
  }
});
