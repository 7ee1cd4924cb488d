// Checkpoints on the run page: an agent records notes between steps with
// checkpoint_workflow through the real shim, and the run page shows the
// checkpoint on the row of the step pending when it was taken (a "⚑ 1
// checkpoint" badge, its notes in the row's panel, its own mark in the
// drawing where it is the run's preferred tip), not as a step or a
// branch; the session's timeline counts it.
// The spec starts a session of its own, so the seeded ones stay as they
// were.
import { test, expect, shootPhoneAndDesktop } from './fixtures';
import { Run } from './seed';

test('a checkpoint made through the shim sits on the row of the step pending when it was taken', async ({ page, agent }, info) => {
  const run = await Run.start(agent, { workflowId: 'wr.hello' });
  await run.advance('Said hello.');
  const at = run.last.structured;
  const checkpoint = await agent.call('checkpoint_workflow', {
    stateToken: at.stateToken,
    checkpointToken: at.checkpointToken,
    output: { notesMarkdown: 'Read the **parser** while the user was away; nothing changed yet.' },
  });
  expect(checkpoint.kind, JSON.stringify(checkpoint.structured)).toBe('step');
  // Nothing advanced: the same step is pending at the checkpoint.
  expect(checkpoint.structured.pending.stepId).toBe(at.pending.stepId);
  const { sessionId, runId } = run.history[0].structured.session;

  await page.goto(`/sessions/${sessionId}/runs/${runId}`);
  // A checkpoint is not a step: it sits on the row of the step that was
  // pending when it was taken, which is still the run's tip.
  const rows = page.getByTestId('row');
  await expect(rows).toHaveCount(2);
  const row = rows.last();
  await expect(row.getByTestId('checkpoint')).toHaveText('⚑ 1 checkpoint');
  await expect(row.getByTestId('tip')).toBeVisible();
  await expect(row.locator('.node-id')).toHaveText('node_2');
  await expect(rows.first().getByTestId('checkpoint')).toHaveCount(0);
  await expect(page.getByTestId('steps-done')).toHaveText('1 step done');
  await expect(page.getByTestId('branch-status')).toHaveCount(0);
  // The drawing marks the tip, a checkpoint, with its own shape.
  const svg = await (await page.request.get(await page.locator('.graph img').getAttribute('src') as string)).text();
  expect(svg).toContain('<path class="tip checkpoint"');

  await row.getByTestId('row-step').click();
  const panel = page.getByTestId('node-panel');
  await expect(panel.getByTestId('panel-state')).toContainText('Pending.');
  const notes = panel.getByTestId('checkpoint-notes');
  await expect(notes).toHaveCount(1);
  await expect(notes.getByRole('heading', { level: 4 })).toContainText('⚑ Checkpoint while the step was pending');
  await expect(notes.locator('code')).toHaveText('node_3');
  await expect(notes.locator('strong', { hasText: 'parser' })).toBeVisible();
  await expect(panel.getByTestId('fork-here')).toHaveCount(0);
  await shootPhoneAndDesktop(page, 'checkpoint-run', info.outputPath.bind(info));
  // On a phone the row's badges stay inside the graph's box.
  await page.setViewportSize({ width: 390, height: 844 });
  const box = await page.locator('.graph').boundingBox();
  const tip = await row.getByTestId('tip').boundingBox();
  expect(tip!.x + tip!.width).toBeLessThanOrEqual(box!.x + box!.width);

  // The run's projection says the same: one branch, the checkpoint on
  // the pending row.
  const doc = await (await page.request.get(`/sessions/${sessionId}/runs/${runId}.json`)).json();
  expect(doc.branches).toHaveLength(1);
  expect(doc.rows.map((r: any) => [r.nodeId, r.checkpoints])).toEqual([['node_1', []], ['node_2', ['node_3']]]);

  await page.goto(`/sessions/${sessionId}`);
  await expect(page.getByTestId('timeline').getByTestId('timeline-checkpoint')).toHaveText('⚑ 1 checkpoint');
  await shootPhoneAndDesktop(page, 'checkpoint-session', info.outputPath.bind(info));
});
