// Seed data for the Console tests, made the only honest way: real MCP runs
// through the real shim, as an agent would make them. Each shape is one
// session of a kind the Console must show; add a shape here and name it in
// defaultShapes (or pass names to seed()) for a spec that needs it.
import { Mcp, type ToolResult } from './mcp';

/** SeededSession is what the specs know about one seeded session. */
export interface SeededSession {
  /** shape is the name it was seeded under. */
  shape: string;
  sessionId: string;
  runId: string;
  workflowId: string;
  /** workflowHash is the hash of the workflow version the run is pinned to. */
  workflowHash: string;
  /** kind of the run's last reply: step, blocked, complete. */
  kind: string;
  /** next is nextCall.arguments of the last reply, if it has one: the call an agent would make next. */
  next?: Record<string, unknown>;
  /** damagedAt is the event global setup damaged on disk (the corrupt shape only). */
  damagedAt?: number;
}

/** Seed maps each shape name to its session, in the order they were made. */
export type Seed = Record<string, SeededSession>;

/** Run drives one workflow run as an agent would. */
export class Run {
  /** history holds every reply of the run so far, oldest first. */
  readonly history: ToolResult[] = [];

  private constructor(readonly mcp: Mcp) {}

  /** start calls start_workflow (workflowId, and mode or anything else in args). */
  static async start(mcp: Mcp, args: { workflowId: string; mode?: string; [k: string]: unknown }): Promise<Run> {
    const run = new Run(mcp);
    run.push('start_workflow', await mcp.call('start_workflow', args));
    return run;
  }

  /** resume picks up a seeded run where the seed left it; advance() then makes its next call. */
  static resume(mcp: Mcp, s: SeededSession): Run {
    if (!s.next) throw new Error(`seeded session ${s.shape} has no next call (kind ${s.kind})`);
    const run = new Run(mcp);
    run.history.push({
      kind: s.kind,
      isError: false,
      structured: {
        kind: s.kind,
        session: { sessionId: s.sessionId, runId: s.runId },
        workflow: { workflowId: s.workflowId, workflowHash: s.workflowHash },
        nextCall: { tool: 'continue_workflow', arguments: s.next },
      },
    });
    return run;
  }

  get last(): ToolResult {
    return this.history[this.history.length - 1];
  }

  /**
   * advance follows the last reply's nextCall, with notes as the step's
   * output and, in more, artifacts and gap resolutions for that output and
   * context to send.
   */
  async advance(
    notes = 'Did what the step asked.',
    more: { artifacts?: unknown[]; resolvesGaps?: { gapId: string; summary: string }[]; context?: Record<string, unknown> } = {},
  ): Promise<ToolResult> {
    const args = nextArgs(this.last);
    const output = {
      notesMarkdown: notes,
      ...(more.artifacts ? { artifacts: more.artifacts } : {}),
      ...(more.resolvesGaps ? { resolvesGaps: more.resolvesGaps } : {}),
    };
    return this.push('continue_workflow', await this.mcp.call('continue_workflow', {
      ...args,
      output,
      ...(more.context ? { context: more.context } : {}),
    }));
  }

  /** pending is the step the last reply asks for ('' when it asks for none). */
  get pending(): string {
    return String(this.last.structured.pending?.stepId ?? '');
  }

  /** expect throws unless the last reply asks for step. */
  expect(step: string): this {
    if (this.pending !== step) throw new Error(`expected the run at ${step}, it is at "${this.pending}" (${this.last.kind})`);
    return this;
  }

  /** finish advances until the run is complete (at most 20 calls). */
  async finish(notes = 'Did what the step asked.'): Promise<ToolResult> {
    for (let i = 0; i < 20 && this.last.structured.isComplete !== true; i++) await this.advance(notes);
    if (this.last.structured.isComplete !== true) throw new Error('run did not complete in 20 calls');
    return this.last;
  }

  /**
   * rewind goes back to an earlier reply of this run, as a rewound chat
   * does: continue_workflow with that reply's stateToken and no ackToken.
   * Advancing from there records a fork.
   */
  async rewind(to: ToolResult): Promise<ToolResult> {
    const stateToken = to.structured.stateToken;
    if (typeof stateToken !== 'string') throw new Error('rewind: that reply has no stateToken');
    return this.push('continue_workflow', await this.mcp.call('continue_workflow', { stateToken }));
  }

  /** seeded describes the run for the specs. */
  seeded(shape: string): SeededSession {
    const first = this.history[0].structured;
    const next = this.last.structured.nextCall?.arguments;
    return {
      shape,
      sessionId: first.session.sessionId,
      runId: first.session.runId,
      workflowId: first.workflow.workflowId,
      workflowHash: first.workflow.workflowHash,
      kind: this.last.kind,
      ...(next ? { next: { ...next } } : {}),
    };
  }

  private push(tool: string, r: ToolResult): ToolResult {
    if (r.isError || r.kind === 'error') {
      throw new Error(`${tool}: ${r.structured.text ?? JSON.stringify(r.structured)}`);
    }
    this.history.push(r);
    return r;
  }
}

function nextArgs(r: ToolResult): Record<string, unknown> {
  const call = r.structured.nextCall;
  if (call?.tool !== 'continue_workflow' || !call.arguments) {
    throw new Error(`no continue_workflow nextCall in a ${r.kind} reply`);
  }
  return call.arguments;
}

/** A Shape makes one session and returns the run that made it. */
export type Shape = (mcp: Mcp) => Promise<Run>;

/** shapes are the sessions the Console tests can ask for. */
export const shapes: Record<string, Shape> = {
  /** A guided run one step in, waiting for the agent: specs may advance it. */
  'in-progress': async (mcp) => {
    const run = await Run.start(mcp, { workflowId: 'wr.hello' });
    await run.advance('Said hello and named the workflow.');
    return run;
  },
  /** A run followed to its end. */
  completed: async (mcp) => {
    const run = await Run.start(mcp, { workflowId: 'wr.hello' });
    await run.finish('Done: see the step.');
    return run;
  },
  /** Two steps in, rewound to the first, then advanced again: a fork. */
  forked: async (mcp) => {
    const run = await Run.start(mcp, { workflowId: 'wr.hello' });
    const first = run.last;
    await run.advance('Said hello (first branch).');
    await run.advance('Listed: README.md, cmd/, engine/ (first branch).');
    await run.rewind(first);
    await run.advance('Said hello again after the chat was rewound (second branch).');
    return run;
  },
  /** A guided run one step in that the live specs advance (in-progress is the sessions spec's). */
  live: async (mcp) => {
    const run = await Run.start(mcp, { workflowId: 'wr.hello' });
    await run.advance('Said hello; the live spec goes on from here.');
    return run;
  },
  /** A run in full_auto_never_stop, one step in. */
  'full-auto': async (mcp) => {
    const run = await Run.start(mcp, { workflowId: 'wr.hello', mode: 'wr.modes.full_auto_never_stop' });
    await run.advance('Said hello without waiting for the user.');
    return run;
  },
};

/** xssNote is agent text that tries to run script in the Console. */
export const xssNote =
  '**Checked.** <script>window.__xss = 1</script> "><img src=x onerror="window.__xss=2"> [click](javascript:window.__xss=3)';

shapes['xss-notes'] = async (mcp) => {
  const run = await Run.start(mcp, { workflowId: 'wr.hello' });
  await run.advance(xssNote);
  return run;
};

/**
 * A never-stop run that goes past a step only the user can unblock,
 * without the user's answer: WorkRail records a critical gap and goes on.
 */
shapes['gappy'] = async (mcp) => {
  const run = await Run.start(mcp, { workflowId: 'wr.bug_investigation', mode: 'wr.modes.full_auto_never_stop' });
  await run.advance('Triaged: the crash is in the parser.');
  await run.advance('Collected what evidence I could without the user.');
  return run;
};

/**
 * A guided run stopped at a step only the user can unblock: the agent
 * acknowledged it without the user's answer, and WorkRail blocked it.
 */
shapes['blocked'] = async (mcp) => {
  const run = await Run.start(mcp, { workflowId: 'wr.bug_investigation' });
  await run.advance('Triaged: the crash is in the parser.');
  await run.advance('Tried to go on without asking the user.');
  if (run.last.kind !== 'blocked') throw new Error(`blocked shape: got ${run.last.kind}`);
  return run;
};

/** gapsArtifact is the wr.contracts.gaps artifact the loop shape reports. */
export const gapsArtifact = {
  kind: 'wr.contracts.gaps',
  gaps: [
    { summary: 'Could not reproduce on Windows: no machine available.', severity: 'warning', howToResolve: 'Run TestParseTrailingComma on Windows.' },
    { summary: 'The fuzz corpus was not rerun.', severity: 'warning' },
  ],
};

/** loopResolution is how the loop shape's final review resolves the report's second gap. */
export const loopResolution = 'Reran the fuzz corpus for an hour: nothing found.';

/** loopIterations is how many times the loop shape goes round its hypotheses loop. */
export const loopIterations = 3;

/**
 * A guided bug investigation with its reproduction at hand, three times
 * round its two-step hypotheses loop (form → test, the test reporting a
 * wr.contracts.loop_control artifact), then on to its report, which
 * carries a wr.contracts.gaps artifact of two gaps, and through the final
 * review, which resolves the second: the run is complete. Its three
 * iterations fold into one row of the run's graph.
 */
shapes['loop'] = async (mcp) => {
  const run = await Run.start(mcp, { workflowId: 'wr.bug_investigation', context: { hasReproduction: true } });
  await run.expect('triage').advance('Triaged: the parser drops a trailing comma.');
  await run.expect('reproduce').advance('Reproduced: `go test -run TestParseTrailingComma ./parser` fails.');
  await run.expect('localize').advance('Localized to `parser.next()`.');
  for (let i = 1; i <= loopIterations; i++) {
    await run.expect('form-hypothesis').advance(`Hypothesis ${i}: the lexer ${['skips', 'merges', 'drops'][i - 1]} the comma.`);
    const decision = i < loopIterations ? 'continue' : 'stop';
    await run.expect('test-hypothesis').advance(`Experiment ${i}: ${decision === 'stop' ? 'confirmed' : 'refuted'}.`, {
      artifacts: [{ kind: 'wr.contracts.loop_control', decision, reason: `Experiment ${i}.` }],
    });
  }
  await run.expect('root-cause').advance('Root cause: `next()` returns early on a comma before EOF.');
  await run.expect('blast-radius').advance('Blast radius: only the parser.');
  const report = await run.expect('report').advance('Report: fixed nothing yet; see the gaps.', { artifacts: [gapsArtifact] });
  // The review reran the fuzz corpus: it resolves the second gap.
  const fuzz = (report.structured.gapsRecorded ?? []).find((g: any) => g.summary === gapsArtifact.gaps[1].summary);
  if (!fuzz) throw new Error(`loop shape: the report recorded no gap "${gapsArtifact.gaps[1].summary}"`);
  await run.expect('wr-final-review').advance('Reviewed; reran the fuzz corpus.', {
    resolvesGaps: [{ gapId: fuzz.gapId, summary: loopResolution }],
  });
  if (run.last.structured.isComplete !== true) throw new Error(`loop shape: not complete after the review (${run.last.kind})`);
  return run;
};

/** corruptFirstNote and corruptLastNote are the corrupt shape's notes: the damage takes the last. */
export const corruptFirstNote = 'Said hello (this session is damaged later).';
export const corruptLastNote = 'Listed: README.md, cmd/ (this session is damaged later).';

/**
 * A guided wr.hello run two steps in, whose log global setup damages at
 * its last note once the daemon has stopped (corrupt/main.go sets
 * damagedAt): the Console must show what it can read, the first note, and
 * say what is wrong.
 */
shapes['corrupt'] = async (mcp) => {
  const run = await Run.start(mcp, { workflowId: 'wr.hello' });
  await run.advance(corruptFirstNote);
  await run.advance(corruptLastNote);
  return run;
};

/** defaultShapes is what global setup seeds, in this order (so ses_1 is the first). */
export const defaultShapes = ['in-progress', 'completed', 'forked', 'full-auto', 'xss-notes', 'gappy', 'blocked', 'loop', 'live', 'corrupt'];

/** seed makes each named shape through one shim on home and describes them. */
export async function seed(bin: string, home: string, names: string[] = defaultShapes): Promise<Seed> {
  const mcp = await Mcp.open(bin, home);
  try {
    const out: Seed = {};
    for (const name of names) {
      const shape = shapes[name];
      if (!shape) throw new Error(`seed: no shape ${name}; have ${Object.keys(shapes).join(', ')}`);
      out[name] = (await shape(mcp)).seeded(name);
    }
    return out;
  } finally {
    await mcp.close();
  }
}
