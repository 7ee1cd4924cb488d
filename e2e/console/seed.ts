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
  /** kind of the run's last reply: step, blocked, complete. */
  kind: string;
  /** next is nextCall.arguments of the last reply, if it has one: the call an agent would make next. */
  next?: Record<string, unknown>;
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
        workflow: { workflowId: s.workflowId },
        nextCall: { tool: 'continue_workflow', arguments: s.next },
      },
    });
    return run;
  }

  get last(): ToolResult {
    return this.history[this.history.length - 1];
  }

  /** advance follows the last reply's nextCall, with notes as the step's output. */
  async advance(notes = 'Did what the step asked.'): Promise<ToolResult> {
    const args = nextArgs(this.last);
    return this.push('continue_workflow', await this.mcp.call('continue_workflow', { ...args, output: { notesMarkdown: notes } }));
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

/** defaultShapes is what global setup seeds, in this order (so ses_1 is the first). */
export const defaultShapes = ['in-progress', 'completed', 'forked', 'full-auto', 'xss-notes', 'gappy', 'blocked'];

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
