// The long shape: a run of about 300 steps, as a long never-ending agent
// session makes one, for the phone spec (long.spec.ts). Its workflow is a
// user workflow written into the daemon's home: 150 steps in a row, then a
// loop of three steps run 50 times, then a wrap-up. Global setup calls
// seedLong after the other shapes; the run is left in the loop's last
// iteration, so its page says both "step k of N" and "iteration i (at most M)".
import fs from 'node:fs';
import path from 'node:path';
import { Mcp } from './mcp';
import { Run, type SeededSession } from './seed';

/** longLinear is how many steps come before the loop; longIterations how often the loop runs. */
export const longLinear = 150;
export const longIterations = 50;
/** longBody is the loop's steps, in order. */
export const longBody = ['measure', 'compare', 'record'];
/** longAdvances is how many steps the seed does: all but the last two. */
export const longAdvances = longLinear + longIterations * longBody.length - 2;

/** longStep is the id of linear step i (1-based): s001 … s150. */
export const longStep = (i: number) => `s${String(i).padStart(3, '0')}`;
/** longNote is the note the seed writes for its n-th advance (1-based). */
export const longNote = (n: number) => `Step ${n} of the long run: done.`;

function workflow() {
  return {
    id: 'user.e2e_long',
    name: 'Long run',
    description: 'About 300 steps: a row of steps, then a loop run many times, for the phone spec.',
    version: '1',
    steps: [
      ...Array.from({ length: longLinear }, (_, i) => ({ id: longStep(i + 1), title: `Check item ${i + 1}`, prompt: `Check item ${i + 1}.` })),
      {
        id: 'rounds',
        title: 'Measure, compare, record',
        loop: { kind: 'for', count: longIterations, maxIterations: longIterations },
        body: longBody.map((id) => ({ id, title: id[0].toUpperCase() + id.slice(1) + ' this round', prompt: `${id} this round.` })),
      },
      { id: 'wrap-up', title: 'Wrap up', prompt: 'Wrap up.' },
    ],
  };
}

/** seedLong writes the long workflow into home's user folder and runs it longAdvances steps through the shim. */
export async function seedLong(bin: string, home: string): Promise<SeededSession> {
  const file = path.join(home, 'workflows', 'user.e2e_long.json');
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, JSON.stringify(workflow(), null, 2));
  const mcp = await Mcp.open(bin, home);
  try {
    const run = await Run.start(mcp, { workflowId: 'user.e2e_long', mode: 'wr.modes.full_auto_never_stop' });
    for (let n = 1; n <= longAdvances; n++) {
      await run.advance(longNote(n));
      // Keep only the last reply: 300 replies of prompts are memory for nothing.
      if (run.history.length > 2) run.history.splice(1, run.history.length - 2);
    }
    run.expect(longBody[1]);
    return run.seeded('long');
  } finally {
    await mcp.close();
  }
}

/** longSeed is what seedLong made, as global setup handed it on. */
export function longSeed(): SeededSession {
  const raw = process.env.WORKRAIL_E2E_LONG;
  if (!raw) throw new Error('WORKRAIL_E2E_LONG is not set: run the specs through global-setup.ts');
  return JSON.parse(raw);
}
