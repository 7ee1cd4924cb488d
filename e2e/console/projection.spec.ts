// Issue 33's states, each made through the real shim as an agent makes
// them, and every page that shows them read as a person reads it: the
// run page's header says what is wrong now (each blocker and critical
// gap in words, with its step and how to get past it), its rows are the
// steps pending at the run's nodes (a loop's fold holds exactly its body,
// a step's blocked attempts sit on its own row), branch letters never
// move, a checkpoint is no branch, filters filter, refused artifacts are
// shown refused and the gaps they carried as not recorded; every count
// the pages show is the projection's (runs/{id}.json); nothing scrolls
// sideways or is cut at 390 or 1280 px, in light and dark. Every state
// is shot, one picture per width and scheme, for a person to look at.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { test, expect, htmxIdle, shootPhoneAndDesktop } from './fixtures';
import type { Mcp, ToolResult } from './mcp';
import { Run } from './seed';

const home = () => process.env.WORKRAIL_E2E_HOME!;

/** flow is a workflow with a loop and a step only the user can confirm after it. */
const flow = {
  id: 'user.e2e_projection', name: 'Projection shapes', description: 'The run shapes issue 33 found misread.', version: '1.0.0',
  steps: [
    { id: 'triage', title: 'Triage the report', prompt: 'Triage the report.' },
    {
      id: 'fix', title: 'Fix loop', loop: { kind: 'while', maxIterations: 5 },
      body: [
        { id: 'plan', title: 'Plan a change', prompt: 'Plan one change.' },
        { id: 'edit', title: 'Edit the code', prompt: 'Make the change.' },
        { id: 'check', title: 'Check it', prompt: 'Check the change.', output: { contractRef: 'wr.contracts.loop_control' } },
      ],
    },
    { id: 'approve', title: 'Approve the change', prompt: 'Ask the user to approve the change.', requireConfirmation: true },
    {
      id: 'deliver', title: 'Deliver or post', prompt: 'Deliver the change, or post it for review.',
      validationCriteria: [{ type: 'contains', value: 'posted', message: 'Say where the change was posted.' }],
    },
    { id: 'wrap', title: 'Wrap up', prompt: 'Wrap up.' },
  ],
};

test.beforeAll(() => {
  const file = path.join(home(), 'workflows', 'user.e2e_projection.json');
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, JSON.stringify(flow, null, 2));
});

test.describe.configure({ timeout: 120_000 });

/** send makes one continue_workflow call: the last reply's tokens with output. */
async function send(run: Run, output: Record<string, unknown>, context?: Record<string, unknown>): Promise<ToolResult> {
  const next = run.last.structured.nextCall.arguments;
  const r = await run.mcp.call('continue_workflow', { stateToken: next.stateToken, ackToken: next.ackToken, output, ...(context ? { context } : {}) });
  if (r.isError) throw new Error(JSON.stringify(r.structured));
  run.history.push(r);
  return r;
}

/** loopOnce goes round the fix loop once, deciding to go on or stop. */
async function loopOnce(run: Run, i: number, decision: 'continue' | 'stop') {
  await send(run, { notesMarkdown: `Plan ${i}: change the parser.` });
  await send(run, { notesMarkdown: `Edit ${i}: changed it.` });
  await send(run, { notesMarkdown: `Check ${i}.`, artifacts: [{ kind: 'wr.contracts.loop_control', decision }] });
}

/** confirm answers the confirmation the approve step asks for. */
function confirmation(run: Run): unknown[] {
  return (run.last.structured.nextCall.arguments.output?.artifacts ?? []).map((a: any) =>
    JSON.parse(JSON.stringify(a).replace(/<<fill: [^>]*>>/g, 'yes, approved')));
}

/** guided drives a guided run through every shape the issue names. */
async function guided(agent: Mcp) {
  const run = await Run.start(agent, { workflowId: 'user.e2e_projection' });
  // A checkpoint, then the call the agent held from before it: one line.
  const held = run.last;
  const cp = await agent.call('checkpoint_workflow', { stateToken: held.structured.stateToken, checkpointToken: held.structured.checkpointToken,
    output: { notesMarkdown: 'Read the report; starting triage.' } });
  expect(cp.kind).toBe('step');
  await send(run, { notesMarkdown: 'Triaged: the parser drops a trailing comma.' });
  for (let i = 1; i <= 3; i++) await loopOnce(run, i, i < 3 ? 'continue' : 'stop');
  expect(run.pending).toBe('approve');
  // Copied as it is, the call leaves the user's answer unfilled: blocked.
  const blocked = await agent.call('continue_workflow', run.last.structured.nextCall.arguments);
  expect(blocked.kind).toBe('blocked');
  run.history.push(blocked);
  await send(run, { notesMarkdown: 'The user approved the change.', artifacts: confirmation(run) });
  expect(run.pending).toBe('deliver');
  for (let i = 1; i <= 4; i++) {
    const r = await send(run, { notesMarkdown: `Delivered, attempt ${i}.` });
    expect(r.kind).toBe('blocked');
  }
  await send(run, { notesMarkdown: 'Delivered: posted as PR 42.' });
  await send(run, { notesMarkdown: 'Wrapped up.' });
  expect(run.last.structured.isComplete).toBe(true);
  return run;
}

/** neverStop runs the same workflow without stopping, leaving gaps and a refused gaps artifact. */
async function neverStop(agent: Mcp) {
  const run = await Run.start(agent, { workflowId: 'user.e2e_projection', mode: 'wr.modes.full_auto_never_stop' });
  await send(run, {
    notesMarkdown: 'Triaged without the user.',
    artifacts: [{ kind: 'wr.contracts.gaps', gaps: [
      { severity: 'critical', summary: 'Tests never ran on the release branch.' },
      { severity: 'severe', summary: 'The changelog is stale.' },
    ] }],
  });
  await loopOnce(run, 1, 'stop');
  await send(run, { notesMarkdown: 'Went on without the user.' }); // approve, unconfirmed: a gap
  return run;
}

async function doc(page: Page, s: string, r: string) {
  const res = await page.request.get(`/sessions/${s}/runs/${r}.json`);
  expect(res.status()).toBe(200);
  return res.json();
}

/** noClipping fails when an element of the run page is cut by its box: wider than it shows, and not a box that scrolls. */
async function noClipping(page: Page, what: string) {
  const cut = await page.evaluate(() => {
    const out: string[] = [];
    for (const el of document.querySelectorAll('main *')) {
      const s = getComputedStyle(el);
      if (s.overflowX === 'auto' || s.overflowX === 'scroll' || el.closest('pre, .table-scroll, .graph img, details:not([open])')) continue;
      if (el.scrollWidth > el.clientWidth + 1 && s.overflowX === 'hidden' && s.textOverflow !== 'ellipsis') {
        out.push(`${el.tagName.toLowerCase()}.${el.className}[${el.getAttribute('data-testid') ?? ''}]`);
      }
    }
    return out;
  });
  expect(cut, `${what}: clipped elements`).toEqual([]);
}

test('a guided run reads as it happened: one line through a checkpoint, folds of the loop body, attempts on their step, a clean verdict', async ({ page, agent }, info) => {
  const run = await guided(agent);
  const { sessionId, runId } = run.history[0].structured.session;
  const d = await doc(page, sessionId, runId);
  // The projection: complete, one branch, every row in order.
  expect(d.verdict).toBe('complete');
  expect(d.branches.map((b: any) => [b.letter, b.origin, b.state])).toEqual([['A', 'first', 'complete']]);
  expect(d.rows.map((r: any) => r.stepId)).toEqual(['triage', 'plan', 'edit', 'check', 'plan', 'edit', 'check', 'plan', 'edit', 'check', 'approve', 'deliver', 'wrap']);
  expect(d.stepsDone).toBe(13);
  const deliver = d.rows.find((r: any) => r.stepId === 'deliver');
  expect([deliver.blockedAttempts, deliver.done, deliver.attempts.length]).toEqual([4, true, 5]);
  expect(d.rows[0].checkpoints.length).toBe(1);
  expect(d.rows[1].loop).toEqual({ loopId: 'fix', iteration: 1 });
  expect(d.rows[0].loop).toBeNull();

  await page.goto(`/sessions/${sessionId}/runs/${runId}`);
  const header = page.getByTestId('run-header');
  await expect(header.getByTestId('status')).toHaveText('✓ complete');
  await expect(header.getByTestId('status')).toHaveClass(/worst-none/);
  await expect(header.getByTestId('steps-done')).toHaveText('13 steps done');
  await expect(page.getByTestId('needs')).toHaveCount(0);
  await expect(page.getByTestId('branch-status')).toHaveCount(0);
  // The loop folds whole iterations of its body; the approval keeps its row.
  const steps = await page.getByTestId('row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-kind') + ':' + (r.getAttribute('data-step') ?? '')));
  expect(steps).toEqual(['node:triage', 'loop-fold:plan', 'node:approve', 'node:deliver', 'node:wrap']);
  await expect(page.getByTestId('row').filter({ hasText: 'Fix loop' })).toContainText('×3 iterations of plan → edit → check (9 steps)');
  const deliverRow = page.getByTestId('row').filter({ hasText: 'Deliver or post' });
  await expect(deliverRow).toContainText('blocked ×4');
  await expect(page.getByTestId('row').first()).toContainText('⚑ 1 checkpoint');
  await expect(page.getByTestId('continued')).toHaveCount(0);
  await expect(page.getByTestId('branch-origin')).toHaveCount(0);
  await shootPhoneAndDesktop(page, 'projection-guided', (f) => info.outputPath(f));

  // The row and its panel agree: the four blocked attempts and the fifth that went through.
  await deliverRow.getByTestId('row-step').click();
  const panel = page.getByTestId('node-panel');
  await expect(panel.getByTestId('panel-step')).toHaveText('Deliver or post');
  await expect(panel.getByTestId('attempt')).toHaveCount(5);
  await expect(panel.locator('[data-testid="attempt"][data-outcome="blocked"]')).toHaveCount(4);
  await expect(panel.getByTestId('blockers').first()).toContainText('The notes miss what the step asks of them');
  await expect(panel.getByTestId('led')).toContainText('Wrap up');
  await noClipping(page, 'the deliver panel');
  await shootPhoneAndDesktop(page, 'projection-guided-panel', (f) => info.outputPath(f));

  // The checkpoint is on the triage row's panel: notes recorded while it was pending.
  await page.goto(`/sessions/${sessionId}/runs/${runId}?node=node_1`);
  await expect(page.getByTestId('checkpoint-notes')).toContainText('Read the report; starting triage.');
  await expect(page.getByTestId('node-panel').getByTestId('attempt')).toHaveCount(1);

  // A fork from the Console: a new letter; A stays A, and is left complete.
  await page.goto(`/sessions/${sessionId}/runs/${runId}?node=node_1`);
  await page.getByTestId('fork-here').click();
  await page.locator('textarea[name="context"]').fill('{"why": "try another triage"}');
  await page.getByRole('button', { name: /fork/i }).click();
  await page.goto(`/sessions/${sessionId}/runs/${runId}`);
  const after = await doc(page, sessionId, runId);
  expect(after.branches.map((b: any) => [b.letter, b.origin, b.state])).toEqual([['A', 'first', 'complete'], ['B', 'console_fork', 'current']]);
  expect(after.verdict).toBe('in_progress');
  await expect(page.getByTestId('branch-status')).toHaveText('2 branches: A ✓ complete, B ▶ current');
  await expect(page.getByTestId('branch-origin')).toContainText('Console fork');
  await noClipping(page, 'the run after a Console fork');
  await shootPhoneAndDesktop(page, 'projection-console-fork', (f) => info.outputPath(f));

  // The session page and the sessions list count as the projection does.
  await page.goto(`/sessions/${sessionId}`);
  const done = after.stepsDone === 1 ? '1 step done' : `${after.stepsDone} steps done`;
  await expect(page.getByTestId('run-summary').first()).toHaveText(`${runId} · ${done} · 2 branches`);
  await shootPhoneAndDesktop(page, 'projection-session', (f) => info.outputPath(f));
  await page.goto('/');
  const row = page.locator(`[data-session="${sessionId}"]`);
  await expect(row).toContainText('1 run, 2 branches');
});

test('a never-stop run says what is wrong now, filters filter, and a refused gaps artifact shows refused', async ({ page, agent }, info) => {
  const run = await neverStop(agent);
  const { sessionId, runId } = run.history[0].structured.session;
  const d = await doc(page, sessionId, runId);
  const triage = d.rows[0];
  expect(triage.attempts[0].refused.map((r: any) => r.code)).toEqual(['ARTIFACT_INVALID']);
  expect(triage.attempts[0].notRecorded.map((g: any) => g.summary)).toEqual(['Tests never ran on the release branch.', 'The changelog is stale.']);
  expect(d.openGaps.length).toBeGreaterThan(0);

  await page.goto(`/sessions/${sessionId}/runs/${runId}`);
  const needs = page.getByTestId('needs');
  await expect(needs).toBeVisible();
  await expect(needs.getByTestId('need').first()).toContainText('Approve the change');
  await expect(needs.locator('[data-kind="not-recorded"]').first()).toContainText('Tests never ran on the release branch.');
  for (const fix of await needs.getByTestId('need-fix').allTextContents()) expect(fix).not.toMatch(/continue_workflow|nextCall/);
  await shootPhoneAndDesktop(page, 'projection-never-stop', (f) => info.outputPath(f));

  // The gaps filter lists the rows with gaps, and only them.
  await page.getByTestId('filter-gaps').click();
  await htmxIdle(page);
  const listed = await page.getByTestId('row').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-step')));
  const withGaps = d.rows.filter((r: any) => r.outcomes.openGaps > 0 || r.outcomes.notRecorded > 0).map((r: any) => r.stepId);
  expect(listed).toEqual(withGaps);
  // It counts the steps it lists, in words, never a bare number beside the gaps' count.
  await expect(page.getByTestId('filter-gaps')).toHaveText(`with gaps: ${withGaps.length} ${withGaps.length === 1 ? 'step' : 'steps'}`);
  await shootPhoneAndDesktop(page, 'projection-gaps-filter', (f) => info.outputPath(f));

  // The refused artifact, in its panel: refused, with why; its gaps not recorded.
  await page.goto(`/sessions/${sessionId}/runs/${runId}?node=node_1`);
  const panel = page.getByTestId('node-panel');
  await expect(panel.getByTestId('refused-artifact')).toContainText('Refused');
  await expect(panel.getByTestId('not-recorded')).toHaveCount(2);
  await noClipping(page, 'the refused artifact');
  await shootPhoneAndDesktop(page, 'projection-refused', (f) => info.outputPath(f));

  // /gaps names the session by its title, says how to resolve, and the reason in words.
  await page.goto('/gaps');
  await expect(page.locator('main')).not.toContainText('USER_ONLY_DEPENDENCY');
  await shootPhoneAndDesktop(page, 'projection-gaps-page', (f) => info.outputPath(f));
});
