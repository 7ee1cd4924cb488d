// Seed data for sessions that hold several runs: an agent starts a second
// workflow in the session of a run it holds, by sending that run's
// stateToken with start_workflow. Global setup calls seedSessions after
// the default shapes, so these sessions come after theirs.
import { Mcp } from './mcp';
import { Run, type Seed } from './seed';

/** twoRunsTitle is the Markdown first note of the two-runs session: its title once the marks are stripped. */
export const twoRunsTitle = '**Alice** triaged the parser bug';

/**
 * seedSessions makes 'two-runs': a guided bug investigation six notes in
 * (a loop iteration included), rewound once to after its reproduction and
 * advanced there (a second branch, one note), then wr.hello started in
 * the same session with the first run's stateToken and advanced twice:
 * the second run, touched last. 'two-runs-second' describes that run.
 */
export async function seedSessions(bin: string, home: string): Promise<Seed> {
  const mcp = await Mcp.open(bin, home);
  try {
    const first = await Run.start(mcp, { workflowId: 'wr.bug_investigation', context: { hasReproduction: true } });
    await first.expect('triage').advance(twoRunsTitle);
    const reproduced = await first.expect('reproduce').advance('Reproduced with `go test ./parser`.');
    await first.expect('localize').advance('Localized to `parser.next()`.');
    await first.expect('form-hypothesis').advance('Hypothesis 1: the lexer skips the comma.');
    await first.expect('test-hypothesis').advance('Experiment 1: refuted.', {
      artifacts: [{ kind: 'wr.contracts.loop_control', decision: 'continue', reason: 'Experiment 1.' }],
    });
    await first.expect('form-hypothesis').advance('Hypothesis 2: the lexer merges the comma.');
    await first.rewind(reproduced);
    await first.expect('localize').advance('Localized, a second look: `lexer.scan()`.');

    const second = await Run.start(mcp, { workflowId: 'wr.hello', stateToken: first.last.structured.stateToken });
    await second.advance('Said hello for the same work.');
    await second.advance('Listed the workspace for the same work.');
    const one = first.seeded('two-runs');
    const two = second.seeded('two-runs-second');
    if (two.sessionId !== one.sessionId) throw new Error(`two-runs: the second run started in ${two.sessionId}, not ${one.sessionId}`);
    return { 'two-runs': one, 'two-runs-second': two };
  } finally {
    await mcp.close();
  }
}
