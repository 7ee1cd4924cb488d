// Checkpoints on the run page: an agent records notes between steps with
// checkpoint_workflow through the real shim, and the run's graph shows
// the checkpoint as its own kind of node (its own mark in the drawing, a
// "⚑ checkpoint" label on its row and in its panel, a dashed edge into
// it), the run's preferred tip, and the session's timeline counts it.
// The spec starts a session of its own, so the seeded ones stay as they
// were.
import { test, expect, shootPhoneAndDesktop } from './fixtures';
import { Run } from './seed';

test('a checkpoint made through the shim is its own kind of node on the run page', async ({ page, agent }, info) => {
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
  const rows = page.getByTestId('row');
  await expect(rows).toHaveCount(3);
  const row = rows.last();
  await expect(row.getByTestId('checkpoint')).toHaveText('⚑ checkpoint of node_2');
  await expect(row.getByTestId('tip')).toBeVisible();
  await expect(rows.first().getByTestId('checkpoint')).toHaveCount(0);
  // The drawing marks it with its own shape, reached by a dashed edge.
  const svg = await (await page.request.get(await page.locator('.graph img').getAttribute('src') as string)).text();
  expect(svg).toContain('<path class="tip checkpoint"');
  expect(svg).toMatch(/<path class="edge b\d+ checkpoint"[^>]*stroke-dasharray="3 3"/);

  await expect(row.locator('.node-id')).toHaveText('node_3');
  await row.getByTestId('row-step').click();
  const panel = page.getByTestId('node-panel');
  await expect(panel.getByRole('heading', { level: 3 })).toContainText('⚑ checkpoint');
  await expect(panel.getByTestId('checkpoint-of')).toContainText('A checkpoint of node_2');
  await expect(panel.locator('strong', { hasText: 'parser' })).toBeVisible();
  await expect(panel.getByTestId('fork-here')).toHaveCount(0);
  await shootPhoneAndDesktop(page, 'checkpoint-run', info.outputPath.bind(info));
  // On a phone the row drops "of node_2" so the preferred-tip badge stays
  // inside the graph's box instead of past its right edge.
  await page.setViewportSize({ width: 390, height: 844 });
  await expect(row.getByTestId('checkpoint')).toHaveText('⚑ checkpoint', { useInnerText: true });
  const box = await page.locator('.graph').boundingBox();
  const tip = await row.getByTestId('tip').boundingBox();
  expect(tip!.x + tip!.width).toBeLessThanOrEqual(box!.x + box!.width);

  await page.goto(`/sessions/${sessionId}`);
  await expect(page.getByTestId('timeline').getByTestId('timeline-checkpoint')).toHaveText('⚑ 1 checkpoint');
  await shootPhoneAndDesktop(page, 'checkpoint-session', info.outputPath.bind(info));
});
