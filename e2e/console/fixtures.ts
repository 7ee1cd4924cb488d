// The fixtures every Console spec imports instead of @playwright/test's:
//   import { test, expect, htmxIdle } from './fixtures';
// baseURL is the daemon global setup started; seed is what it seeded; agent
// is an MCP client over the real shim, for specs that act as an agent
// mid-test. Every page counts htmx requests in flight (for htmxIdle) and
// fails its test on any console error or uncaught exception other than the
// knownConsoleErrors below: CSP violations show up there. A spec that
// expects errors says test.use({ allowConsoleErrors: true }) and reads
// consoleErrors itself.
import { test as base, expect, type Page } from '@playwright/test';
import { Mcp } from './mcp';
import type { Seed } from './seed';

export { expect };

/**
 * knownConsoleErrors are the errors today's Console is known to log. Each
 * is a Console bug (to fix in console/ or web/, not here): the page
 * fixture lets them through so that every spec still fails on any new
 * error, and the strict, fixme'd test in sessions.spec.ts tolerates none.
 * Delete an entry once its bug is fixed.
 */
export const knownConsoleErrors: { pattern: RegExp; why: string }[] = [];

/** unexpectedConsoleErrors drops the knownConsoleErrors from errors. */
export function unexpectedConsoleErrors(errors: string[]): string[] {
  return errors.filter((e) => !knownConsoleErrors.some((k) => k.pattern.test(e)));
}

function env(name: string): string {
  const v = process.env[name];
  if (!v) throw new Error(`${name} is not set: run the specs through playwright.config.ts, whose global setup sets it`);
  return v;
}

type Fixtures = {
  /** seed maps each seeded shape (seed.ts) to its session. */
  seed: Seed;
  /** agent is an initialized `workrail mcp` on the test daemon's home. */
  agent: Mcp;
  /** consoleErrors collects the page's console errors and uncaught exceptions. */
  consoleErrors: string[];
  /** allowConsoleErrors turns off the check that consoleErrors stays empty. */
  allowConsoleErrors: boolean;
};

export const test = base.extend<Fixtures>({
  baseURL: async ({}, use) => {
    await use(env('WORKRAIL_E2E_URL'));
  },
  seed: async ({}, use) => {
    await use(JSON.parse(env('WORKRAIL_E2E_SEED')));
  },
  agent: async ({}, use) => {
    const mcp = await Mcp.open(env('WORKRAIL_E2E_BIN'), env('WORKRAIL_E2E_HOME'));
    await use(mcp);
    await mcp.close();
  },
  allowConsoleErrors: [false, { option: true }],
  consoleErrors: async ({}, use) => {
    await use([]);
  },
  page: async ({ page, consoleErrors, allowConsoleErrors }, use) => {
    page.on('console', (m) => {
      if (m.type() === 'error') consoleErrors.push(`console.error: ${m.text()} (${m.location().url})`);
    });
    page.on('pageerror', (e) => consoleErrors.push(`uncaught: ${e.message}`));
    await page.addInitScript(countHtmxRequests);
    await use(page);
    if (!allowConsoleErrors) expect(unexpectedConsoleErrors(consoleErrors), 'console errors on the page').toEqual([]);
  },
});

/** countHtmxRequests runs in the page before its scripts: htmx events bubble to document. */
function countHtmxRequests() {
  const s = { inFlight: 0, sent: 0, done: 0 };
  (window as any).__wrHtmx = s;
  document.addEventListener('htmx:beforeRequest', () => { s.inFlight++; s.sent++; });
  document.addEventListener('htmx:afterRequest', () => { s.inFlight = Math.max(0, s.inFlight - 1); s.done++; });
}

/** HtmxCounts is how many htmx requests a page has sent and seen finish. */
export type HtmxCounts = { inFlight: number; sent: number; done: number };

export function htmxCounts(page: Page): Promise<HtmxCounts> {
  return page.evaluate(() => ({ ...(window as any).__wrHtmx }));
}

/** htmxSettleMs is past htmx's settle delay (20 ms by default): how far to tick a paused clock after a swap. */
export const htmxSettleMs = 100;

/**
 * htmxIdle waits until no htmx request is in flight and no element is
 * still being swapped or settled. It polls from the test side, so it works
 * while page.clock holds the page's timers; but a swap settles on a timer,
 * so with a paused clock tick it first (page.clock.runFor(htmxSettleMs)),
 * as pollOnce in sessions.spec.ts does.
 */
export async function htmxIdle(page: Page) {
  await expect
    .poll(() => page.evaluate(htmxBusy), { message: 'htmx requests in flight or swaps settling' })
    .toEqual([]);
}

/** htmxBusy runs in the page: what htmx is still doing, [] when idle. */
function htmxBusy(): string[] {
  const busy: string[] = [];
  const inFlight = (window as any).__wrHtmx?.inFlight ?? 0;
  if (inFlight) busy.push(`${inFlight} request(s) in flight`);
  for (const cls of ['htmx-request', 'htmx-swapping', 'htmx-settling']) {
    const n = document.querySelectorAll(`.${cls}`).length;
    if (n) busy.push(`${n} element(s) .${cls}`);
  }
  return busy;
}

/** htmxRequestsDone waits until every htmx request sent has finished (swaps may still settle). */
export async function htmxRequestsDone(page: Page) {
  await expect
    .poll(() => page.evaluate(() => (window as any).__wrHtmx?.inFlight ?? 0), { message: 'htmx requests in flight' })
    .toBe(0);
}
