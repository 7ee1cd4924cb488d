// Seed data for sessions that hold several runs: an agent starts a second
// workflow in the session of a run it holds, by sending that run's
// stateToken with start_workflow. Global setup calls seedSessions after
// the default shapes, so these sessions come after theirs, and hands them
// to the specs in WORKRAIL_E2E_SESSIONS (sessionsSeed reads it).
import { Mcp } from './mcp';
import { Run, type Seed } from './seed';

/** twoRunsTitle is the Markdown first note of the two-runs session: its title once the marks are stripped. */
export const twoRunsTitle = '**Alice** triaged the parser bug';

/**
 * seedSessions makes 'two-runs': a guided exploration five notes in (its
 * one focus area's deep dive included), rewound once to after its first
 * step and advanced there (a second branch, one note), then wr.hello
 * started in the same session with the first run's stateToken and
 * advanced twice: the second run, touched last. 'two-runs-second'
 * describes that run. They are kept apart from the default seed (whose
 * specs expect one run per session) in WORKRAIL_E2E_SESSIONS.
 */
export async function seedSessions(bin: string, home: string): Promise<Seed> {
  const mcp = await Mcp.open(bin, home);
  try {
    const first = await Run.start(mcp, { workflowId: 'wr.exploration', context: { depth: 'standard', focusAreas: ['parser'] } });
    const oriented = await first.expect('orient').advance(twoRunsTitle);
    await first.expect('build-and-run').advance('Built with `go build ./...`; the tests pass.');
    await first.expect('map-architecture').advance('Mapped: lexer → parser → printer.');
    await first.expect('trace-flow').advance('Traced one file through `parser.next()`.');
    await first.expect('deep-dive').advance('Studied the parser: it drops a trailing comma.');
    await first.rewind(oriented);
    await first.expect('build-and-run').advance('Built again, a second look: `go vet` is clean.');

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

/** sessionsSeed is what seedSessions made, as global setup handed it on. */
export function sessionsSeed(): Seed {
  const raw = process.env.WORKRAIL_E2E_SESSIONS;
  if (!raw) throw new Error('WORKRAIL_E2E_SESSIONS is not set: run the specs through global-setup.ts');
  return JSON.parse(raw);
}
