// The review shape: what a person reviews after a full_auto_never_stop run
// of wr.bug_investigation. The agent went past the step only the user
// could unblock (a critical gap), reported a critical gap from each of the
// hypotheses loop's experiments (gaps inside a loop fold), finished the
// run, and then a rewound chat went back to the user's step in guided mode,
// where WorkRail blocked it, and went on from there without the user
// again: a fork.
import { defaultShapes, Run, shapes } from './seed';

/** reviewLoopGaps is how many gaps the loop's experiments report, one each. */
export const reviewLoopIterations = 3;

/** reviewGap is the gap the experiment of iteration i reports. */
export const reviewGap = (i: number) => ({
  kind: 'wr.contracts.gaps',
  gaps: [{ summary: `Experiment ${i} ran on a laptop, not on the production build.`, severity: 'critical', howToResolve: 'Rerun it on the production build.' }],
});

shapes['review'] = async (mcp) => {
  const run = await Run.start(mcp, { workflowId: 'wr.bug_investigation', mode: 'wr.modes.full_auto_never_stop' });
  await run.expect('triage').advance('Triaged: the parser drops a trailing comma.');
  const atEvidence = run.last;
  await run.expect('collect-evidence').advance('Went on without the user: assumed the report is accurate.');
  for (let i = 0; i < 10 && run.pending !== 'form-hypothesis'; i++) await run.advance('Did what the step asked.');
  for (let i = 1; i <= reviewLoopIterations; i++) {
    await run.expect('form-hypothesis').advance(`Hypothesis ${i}.`);
    const decision = i < reviewLoopIterations ? 'continue' : 'stop';
    await run.expect('test-hypothesis').advance(`Experiment ${i}: ${decision === 'stop' ? 'confirmed' : 'refuted'}.`, {
      artifacts: [{ kind: 'wr.contracts.loop_control', decision, reason: `Experiment ${i}.` }, reviewGap(i)],
    });
  }
  for (let i = 0; i < 10 && run.last.structured.isComplete !== true; i++) {
    await run.advance('Did what the step asked.', run.pending === 'report' ? { artifacts: [{ kind: 'wr.contracts.gaps', gaps: [] }] } : {});
  }
  if (run.last.structured.isComplete !== true) throw new Error(`review shape: not complete (${run.last.kind} at ${run.pending})`);
  // A rewound chat goes back to the user's step, in guided mode this time.
  await run.rewind(atEvidence);
  const blocked = await run.mcp.call('continue_workflow', {
    ...(run.last.structured.nextCall?.arguments ?? {}),
    output: { notesMarkdown: 'Tried again without the user.' },
    preferences: { autonomy: 'guided' },
  });
  if (blocked.kind !== 'blocked') throw new Error(`review shape: the guided retry was ${blocked.kind}, not blocked`);
  // The next attempt goes through without the user again: a fork.
  run.history.push(blocked);
  await run.advance('Went on without the user on the rewound branch.');
  return run;
};

defaultShapes.push('review');
