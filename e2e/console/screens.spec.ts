// Every Console page at a 390 px wide phone: the document never scrolls
// sideways (wide tables and the graph scroll inside their own boxes); and,
// when the run writes screenshots (fixtures.ts), one of each in light and
// dark, at phone and desktop width, into the test output for a person to
// look at. The fixture fails the test on any console error on any of them.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { test, expect, expectNoSidewaysScroll, htmxIdle, shootLightAndDark } from './fixtures';
import type { Seed } from './seed';

// The editor is shot on a workflow of this spec's own, with a typo, so
// its problems show marked; the file is gone after the spec.
const editorFile = () => path.join(process.env.WORKRAIL_E2E_HOME!, 'workflows', 'user.e2e_screens.json');
test.beforeAll(() => {
  fs.mkdirSync(path.dirname(editorFile()), { recursive: true, mode: 0o700 });
  fs.writeFileSync(editorFile(), JSON.stringify({
    id: 'user.e2e_screens', name: 'Screens', description: 'The editor, shot with a typo.', version: '1',
    steps: [{ id: 'only', title: 'Only step', promt: 'A key with a typo, marked where it is.' }],
  }, null, 2));
});
test.afterAll(() => fs.rmSync(editorFile(), { force: true }));

// Each test walks every page twice (light and dark) at full length: far
// past the suite's 30 s per test on a busy machine, so it gets its own.
test.describe.configure({ timeout: 120_000 });

/** pagesOf names every kind of Console page the seed can show. */
function pagesOf(seed: Seed): Record<string, string> {
  const f = seed['forked'];
  const b = seed['blocked'];
  const l = seed['loop'];
  const c = seed['corrupt'];
  const g = seed['gappy'];
  return {
    sessions: '/',
    search: '/?q=bug_investigation&status=blocked',
    'no-match': '/?q=no-such-session-anywhere',
    session: `/sessions/${f.sessionId}`,
    events: `/sessions/${f.sessionId}/events`,
    'session-loop': `/sessions/${l.sessionId}`,
    'session-gaps': `/sessions/${g.sessionId}`,
    'session-corrupt': `/sessions/${c.sessionId}`,
    run: `/sessions/${f.sessionId}/runs/${f.runId}?expand=node_2&node=node_4`,
    'run-loop': `/sessions/${l.sessionId}/runs/${l.runId}`,
    'run-loop-expanded': `/sessions/${l.sessionId}/runs/${l.runId}?expand=node_4&node=node_6`,
    'run-artifact': `/sessions/${l.sessionId}/runs/${l.runId}?node=node_13`,
    'run-blocked': `/sessions/${b.sessionId}/runs/${b.runId}?filter=blocked&node=node_2`,
    'run-corrupt': `/sessions/${c.sessionId}/runs/${c.runId}`,
    gaps: '/gaps',
    workflows: '/workflows',
    workflow: '/workflows/wr.bug_investigation?view=compiled',
    editor: '/workflows/user.e2e_screens/edit',
    'fork-workflow': '/workflows/wr.hello/edit',
    'new-workflow': '/workflows/new',
    config: '/config',
  };
}

/**
 * shoot opens path, checks it does not scroll sideways (softly: every page
 * is checked and shot even when one fails) and takes it in light and dark.
 */
async function shoot(page: Page, name: string, path: string, out: (file: string) => string) {
  const r = await page.goto(path);
  expect(r?.status(), path).toBe(200);
  await htmxIdle(page);
  await expectNoSidewaysScroll(page, name, true);
  await shootLightAndDark(page, (scheme) => out(`${name}-${scheme}.png`), { fullPage: true });
}

test.describe('on a 390 px wide phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('no page scrolls sideways; screenshots in light and dark', async ({ page, seed }, info) => {
    for (const [name, path] of Object.entries(pagesOf(seed))) {
      await shoot(page, name, path, (f) => info.outputPath(`phone-${f}`));
    }
  });
});

test('desktop screenshots in light and dark', async ({ page, seed }, info) => {
  await page.setViewportSize({ width: 1280, height: 800 });
  for (const [name, path] of Object.entries(pagesOf(seed))) {
    await shoot(page, name, path, (f) => info.outputPath(`desktop-${f}`));
  }
});
