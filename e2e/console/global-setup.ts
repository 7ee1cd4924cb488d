// Global setup: one real daemon for the whole run. It builds the binary,
// makes a temp home (0700), starts `workrail daemon` on port 0, seeds it
// through the real shim and hands the specs the Console URL, the binary,
// the home and the seed in environment variables (fixtures.ts reads them).
// Between seeding and the specs it stops the daemon, damages one event of
// the corrupt shape's session on disk (corrupt/main.go) and starts the
// daemon again on the same home, as after a bad disk.
// The function it returns is the global teardown: SIGTERM, then remove the
// home.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { build, Daemon, killStrays, logInAs, makeWorkspace, repoRoot } from './daemon';
import { seed } from './seed';
import { seedSessions } from './seed_sessions';
import { seedLong } from './seed_long';
import './seed_review'; // adds the review shape to the seeded ones

export default async function globalSetup() {
  const ws = makeWorkspace();
  let daemon: Daemon | undefined;
  const teardown = async () => {
    await daemon?.stop();
    const strays = killStrays(ws.bin);
    fs.rmSync(ws.root, { recursive: true, force: true });
    if (strays.length) throw new Error(`teardown: killed stray daemons ${strays.join(', ')}`);
  };
  try {
    build(ws);
    daemon = await Daemon.start(ws);
    const sessions = await seed(ws.bin, ws.home);
    process.env.WORKRAIL_E2E_SESSIONS = JSON.stringify(await seedSessions(ws.bin, ws.home));
    process.env.WORKRAIL_E2E_LONG = JSON.stringify(await seedLong(ws.bin, ws.home));
    const damaged = sessions['corrupt'];
    if (damaged) {
      await daemon.stop();
      const db = path.join(ws.home, 'workrail.db');
      const out = execFileSync('go', ['run', './e2e/console/corrupt', '-db', db, '-session', damaged.sessionId, '-last', 'node_output_appended'], {
        cwd: repoRoot,
        encoding: 'utf8',
        stdio: ['ignore', 'pipe', 'inherit'],
      });
      damaged.damagedAt = Number(out.trim());
      daemon = await Daemon.start(ws);
    }
    // The Console is its owner's: log in as the owner does (a one-time
    // link from `workrail console --print`), and hand the specs the
    // login cookie it set as a storage state.
    const state = path.join(ws.root, 'owner.json');
    await logInAs(ws, state);
    process.env.WORKRAIL_E2E_STATE = state;
    process.env.WORKRAIL_E2E_URL = daemon.info.url;
    process.env.WORKRAIL_E2E_BIN = ws.bin;
    process.env.WORKRAIL_E2E_HOME = ws.home;
    process.env.WORKRAIL_E2E_SEED = JSON.stringify(sessions);
  } catch (e) {
    await teardown();
    throw e;
  }
  return teardown;
}
