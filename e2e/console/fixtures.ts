// The fixtures every Console spec imports instead of @playwright/test's:
//   import { test, expect, htmxIdle } from './fixtures';
// baseURL is the daemon global setup started, and every page and request
// carries its owner's login cookie; seed is what it seeded; agent
// is an MCP client over the real shim, for specs that act as an agent
// mid-test. Every page counts htmx requests in flight (for htmxIdle) and
// fails its test on any console error or uncaught exception: CSP
// violations show up there. A spec that expects errors says
// test.use({ allowConsoleErrors: true }) and reads consoleErrors itself.
// Below them: helpers to drive the 2 s change poll on
// a paused clock (pauseClock, pollOnce), to tell an htmx swap from a page
// load (markWindow), and to check a page's width.
import fs from 'node:fs';
import { test as base, expect, type Locator, type Page, type Response } from '@playwright/test';
import { logInAs } from './daemon';
import { Mcp } from './mcp';
import type { Seed } from './seed';

export { expect };

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
  // Every page and request is the owner's: the login cookie global setup
  // got through a login link (login.spec.ts tests that flow). Writes that
  // change what an agent will run need a login made in the last 15
  // minutes, so a run that lasts longer logs in again (the specs run one
  // at a time: the file is this worker's alone).
  storageState: async ({}, use) => {
    const state = env('WORKRAIL_E2E_STATE');
    if (Date.now() - fs.statSync(state).mtimeMs > 10 * 60_000) {
      await logInAs({ root: '', bin: env('WORKRAIL_E2E_BIN'), home: env('WORKRAIL_E2E_HOME') }, state);
    }
    await use(state);
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
    if (!allowConsoleErrors) expect(consoleErrors, 'console errors on the page').toEqual([]);
  },
});

/**
 * countHtmxRequests runs in the page before its scripts. htmx's
 * beforeRequest bubbles to document; its afterRequest does not when the
 * element that sent the request left the page meanwhile (a history
 * restore replaces the body while a poll is in flight), so a request is
 * done when its XHR ends, after htmx's own load handler has swapped.
 */
function countHtmxRequests() {
  const s = { inFlight: 0, sent: 0, done: 0 };
  (window as any).__wrHtmx = s;
  document.addEventListener('htmx:beforeRequest', (e) => {
    s.inFlight++;
    s.sent++;
    (e as CustomEvent).detail.xhr.addEventListener('loadend', () => { s.inFlight--; s.done++; });
  });
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
 * as pollOnce below does.
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

/** pollMs is the period of every page's change-cursor poll (#live, hx-trigger "every 2s"). */
export const pollMs = 2_000;

/** isPoll says whether url is the change-cursor poll, GET /changes?since=…. */
export function isPoll(url: string): boolean {
  return new URL(url).pathname === '/changes';
}

/**
 * pauseClock installs a paused clock before the page loads (call it
 * before goto): htmx's poll then fires only when pollOnce ticks it.
 */
export async function pauseClock(page: Page) {
  const t0 = Date.parse('2026-01-01T09:00:00Z');
  await page.clock.install({ time: t0 });
  await page.clock.pauseAt(t0 + 1_000);
}

/**
 * pollOnce fires the page's 2 s poll on the paused clock, waits for every
 * request it led to (a 200 makes each live panel fetch itself), lets the
 * swaps settle, waits for htmx to be idle and returns the poll's response.
 */
export async function pollOnce(page: Page): Promise<Response> {
  const response = page.waitForResponse((r) => isPoll(r.url()));
  await page.clock.runFor(pollMs);
  const r = await response;
  await htmxRequestsDone(page);
  await page.clock.runFor(htmxSettleMs);
  await htmxIdle(page);
  return r;
}

/** settle waits for htmx requests in flight to finish and their swaps to settle on a paused clock. */
export async function settle(page: Page) {
  await htmxRequestsDone(page);
  await page.clock.runFor(htmxSettleMs);
  await htmxIdle(page);
}

/**
 * requestsOf records the path and query of every request the page sends
 * from now on (the document, fragments, assets), in order.
 */
export function requestsOf(page: Page): string[] {
  const seen: string[] = [];
  page.on('request', (r) => {
    const u = new URL(r.url());
    seen.push(u.pathname + u.search);
  });
  return seen;
}

/**
 * livePanels are the URLs the page's live panels fetch on wr-changed, one
 * per panel (#sessions, #status, #session, #run…), sorted: after a poll
 * that found a change the page asks for exactly these.
 */
export function livePanels(page: Page): Promise<string[]> {
  return page.locator('[hx-trigger="wr-changed from:body"]').evaluateAll((els) => els.map((e) => e.getAttribute('hx-get')!).sort());
}

/**
 * markWindow sets a property on the page's window: it survives htmx swaps
 * and history changes, and is gone after any full page load.
 */
export async function markWindow(page: Page) {
  await page.evaluate(() => { (window as any).__wrMarker = 'still this document'; });
}

/** windowMarked says whether the window markWindow marked is still the page's. */
export function windowMarked(page: Page): Promise<boolean> {
  return page.evaluate(() => (window as any).__wrMarker === 'still this document');
}

/**
 * expectNoSidewaysScroll asserts the document is no wider than the viewport:
 * wide tables and the graph scroll inside their own boxes. It measures once
 * the page has loaded: a click's navigation is done when the new page
 * commits, and a layout read while its stylesheet is still on the way has
 * none of the rules that keep wide boxes in their place.
 */
export async function expectNoSidewaysScroll(page: Page, what: string, soft = false) {
  await page.waitForLoadState('load');
  const { scrollWidth, clientWidth } = await page.evaluate(() => ({
    scrollWidth: document.documentElement.scrollWidth,
    clientWidth: document.documentElement.clientWidth,
  }));
  const wide = scrollWidth > clientWidth ? await page.evaluate(widest) : '';
  (soft ? expect.soft : expect)(scrollWidth, `${what}: page width at a ${clientWidth} px viewport${wide}`).toBeLessThanOrEqual(clientWidth);
}

/**
 * widest runs in the page: the innermost elements that reach past the
 * viewport's right edge, outside any box that scrolls or clips them.
 */
function widest(): string {
  const right = document.documentElement.clientWidth;
  const out: string[] = [];
  const walk = (el: Element) => {
    const r = el.getBoundingClientRect();
    const over = r.right > right + 0.5 && r.width > 0;
    if (!over && getComputedStyle(el).overflowX !== 'visible') return;
    const before = out.length;
    for (const c of el.children) walk(c);
    if (over && out.length === before) {
      const cls = typeof el.className === 'string' && el.className.trim() ? `.${el.className.trim().split(/\s+/).join('.')}` : '';
      const testid = el.getAttribute('data-testid') ? `[data-testid=${el.getAttribute('data-testid')}]` : '';
      out.push(`${el.tagName.toLowerCase()}${el.id ? `#${el.id}` : ''}${cls}${testid} (right edge ${Math.round(r.right)} px)`);
    }
  };
  walk(document.body);
  return out.length ? `; too wide: ${out.slice(0, 6).join(', ')}` : '';
}

/**
 * screenshots says whether this run writes the screenshots the specs take
 * for a person to look at. `.ci/tasks console-e2e` writes them; the test
 * command sets WORKRAIL_E2E_SCREENSHOTS=off and checks the same pages
 * without them: a full-page screenshot costs chromium about a sixth of a
 * CPU-second, about 45 of the suite's 160 for its 281, and CI keeps none.
 */
export const screenshots = process.env.WORKRAIL_E2E_SCREENSHOTS !== 'off';

/** screenshot writes target (the page, or a part of it) to path when this run writes screenshots. */
export async function screenshot(target: Page | Locator, path: string, fullPage = false) {
  if (!screenshots) return;
  if ('goto' in target) await target.screenshot({ path, fullPage });
  else await target.screenshot({ path });
}

/**
 * shootLightAndDark writes the page (or the part of it `of` names) in
 * light and in dark to file(scheme), when this run writes screenshots. It
 * leaves the page in light.
 */
export async function shootLightAndDark(page: Page, file: (scheme: 'light' | 'dark') => string, opts: { fullPage?: boolean; of?: Locator } = {}) {
  if (!screenshots) return;
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    await screenshot(opts.of ?? page, file(scheme), opts.fullPage);
  }
  await page.emulateMedia({ colorScheme: 'light' });
}

/**
 * shootPhoneAndDesktop checks the page as it is at a 390 px phone and a
 * 1280 px desktop: it must not scroll sideways, and a full-page
 * screenshot of each, in light and dark, goes to
 * out(name-width-scheme.png) for a person to look at. It leaves the page
 * at its size, in light.
 */
export async function shootPhoneAndDesktop(page: Page, name: string, out: (file: string) => string) {
  const size = page.viewportSize()!;
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 844 });
    await htmxIdle(page);
    await expectNoSidewaysScroll(page, `${name} at ${width} px`);
    await shootLightAndDark(page, (scheme) => out(`${name}-${width}-${scheme}.png`), { fullPage: true });
  }
  await page.setViewportSize(size);
}
