// Small truths and the Console at 390 px and in the dark: a run links the
// snapshot it is pinned to, which still opens after its workflow file is
// removed; a search no session matches says so; mode and reasons read in
// words; Markdown in notes keeps its lists and code blocks; the graph's
// marks hold 3:1 on the panel in both schemes, measured from the page;
// a node's link lands on its panel on a phone, with and without JS. The
// spec's sessions and workflow files are its own.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { test, expect, expectNoSidewaysScroll, htmxIdle, shootPhoneAndDesktop } from './fixtures';
import { Run } from './seed';

const home = () => process.env.WORKRAIL_E2E_HOME!;

function writeFlow(name: string, version: string): string {
  const file = path.join(home(), 'workflows', name);
  fs.mkdirSync(path.dirname(file), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, JSON.stringify({
    id: 'user.truths_pinned', name: `Pinned truths v${version}`, description: 'A workflow the truths spec removes.', version,
    steps: [
      { id: 'first', title: 'First', prompt: 'Do the first thing.' },
      { id: 'second', title: 'Second', prompt: 'Then the second.' },
    ],
  }, null, 2));
  return file;
}

test('a run links its pinned snapshot, which opens from the store after its file is removed', async ({ page, agent }, info) => {
  const file = writeFlow('truths_pinned.json', '1.0.0');
  try {
    const run = await Run.start(agent, { workflowId: 'user.truths_pinned' });
    await run.expect('first').advance('Did the first thing.');
    const { sessionId, runId } = run.history[0].structured.session;

    await page.goto(`/sessions/${sessionId}/runs/${runId}`);
    await expect(page.getByTestId('run-header').getByTestId('mode')).toHaveText('Guided; risk conservative');
    const link = page.getByTestId('run-header').getByTestId('pinned-link');
    await expect(link).toContainText('version 1.0.0');
    const href = (await link.getAttribute('href'))!;
    expect(href).toMatch(/^\/workflows\/user\.truths_pinned\?view=pinned&hash=sha256:[0-9a-f]{64}$/);

    // Edited: the pinned view still titles itself with the pinned version.
    writeFlow('truths_pinned.json', '2.0.0');
    await link.click();
    await expect(page).toHaveURL(new RegExp(`${href.replace(/[?.]/g, "\\$&")}$`));
    await expect(page.getByTestId('workflow-heading')).toContainText('Pinned truths v1.0.0');
    await expect(page.locator('main')).toContainText('pinned version 1.0.0');
    await expect(page.locator('main')).toContainText('the current definition is version 2.0.0');

    // Removed: the snapshot is read from the store.
    fs.rmSync(file);
    const r = await page.goto(href);
    expect(r?.status()).toBe(200);
    await expect(page.getByTestId('workflow-heading')).toContainText('Pinned truths v1.0.0');
    await expect(page.locator('main')).toContainText('no workflow source defines user.truths_pinned any more');
    await expect(page.getByTestId('workflow-document')).toContainText('Do the first thing.');
    // The sidebar's sentence stays a sentence: its links are inline.
    const display = await page.getByTestId('pinned-versions').locator('a').first().evaluate((a) => getComputedStyle(a).display);
    expect(display).toBe('inline');
    await shootPhoneAndDesktop(page, 'pinned-removed', (f) => info.outputPath(f));

    await page.goto(`/sessions/${sessionId}/runs/${runId}`);
    await expect(page.getByTestId('drift-banner')).toContainText('no longer defined');
    await shootPhoneAndDesktop(page, 'run-removed-workflow', (f) => info.outputPath(f));
  } finally {
    fs.rmSync(file, { force: true });
  }
});

test('a search no session matches says so before the sessions it offers instead', async ({ page }, info) => {
  await page.goto('/search?q=no-such-word-anywhere');
  const miss = page.getByTestId('no-match');
  await expect(miss).toContainText('No session matches "no-such-word-anywhere".');
  const first = await page.locator('[data-testid="no-match"], [data-testid="match"]').first().getAttribute('data-testid');
  expect(first).toBe('no-match');
  await shootPhoneAndDesktop(page, 'search-no-match', (f) => info.outputPath(f));
});

test('Markdown in notes keeps its lists and code blocks', async ({ page, agent }, info) => {
  const run = await Run.start(agent, { workflowId: 'wr.hello' });
  await run.advance('Checked two places:\n\n- the parser\n- the lexer\n\n```\nfor i := range 3 {\n\tfmt.Println(i)\n}\n```\n\nand `go vet` is clean.');
  const { sessionId } = run.history[0].structured.session;
  await page.goto(`/sessions/${sessionId}`);
  const body = page.locator('.note-body').filter({ hasText: 'Checked two places' }).first();
  await expect(body.locator('li')).toHaveCount(2);
  // A list item is a list item, not a card: no border, no panel of its own.
  for (const li of await body.locator('li').all()) {
    expect(await li.evaluate((e) => getComputedStyle(e).borderTopWidth)).toBe('0px');
  }
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const pre = await body.locator('pre').evaluate((e) => ({ bg: getComputedStyle(e).backgroundColor, page: getComputedStyle(document.body).backgroundColor }));
    expect(pre.bg, `the code block's background in ${scheme}`).not.toBe('rgba(0, 0, 0, 0)');
    expect(pre.bg).not.toBe(pre.page);
  }
  await page.emulateMedia({ colorScheme: 'light' });
  await shootPhoneAndDesktop(page, 'notes-markdown', (f) => info.outputPath(f));
});

/** luminance is WCAG 2's relative luminance of an rgb(…) or #rrggbb colour. */
function luminance(color: string): number {
  const m = color.startsWith('#')
    ? [1, 3, 5].map((i) => parseInt(color.slice(i, i + 2), 16))
    : color.match(/\d+(\.\d+)?/g)!.slice(0, 3).map(Number);
  const [r, g, b] = m.map((v) => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  });
  return 0.2126 * r + 0.7152 * g + 0.0722 * b;
}

function ratio(a: string, b: string): number {
  const [la, lb] = [luminance(a), luminance(b)];
  return (Math.max(la, lb) + 0.05) / (Math.min(la, lb) + 0.05);
}

/** graphInks are the colours the run graph's drawing marks nodes and edges with (white is only ever a hollow mark's inside). */
async function graphInks(page: Page): Promise<string[]> {
  const src = (await page.locator('.graph img').getAttribute('src'))!;
  const svg = await (await page.request.get(src)).text();
  const inks = new Set([...svg.matchAll(/(?:fill|stroke)="(#[0-9a-fA-F]{6})"/g)].map((m) => m[1].toLowerCase()));
  inks.delete('#ffffff');
  return [...inks];
}

test('the graph holds 3:1 on its panel in light and in dark, measured from the page', async ({ page, seed }) => {
  const l = seed['loop'];
  await page.goto(`/sessions/${l.sessionId}/runs/${l.runId}?expand=node_4`);
  const inks = await graphInks(page);
  expect(inks.length).toBeGreaterThanOrEqual(3);
  const ratios: Record<string, string> = {};
  for (const scheme of ['light', 'dark'] as const) {
    await page.emulateMedia({ colorScheme: scheme });
    const panel = await page.locator('.graph').evaluate((e) => getComputedStyle(e).backgroundColor);
    for (const ink of inks) {
      const r = ratio(ink, panel);
      ratios[`${scheme} ${ink} on ${panel}`] = r.toFixed(2);
      expect(r, `${ink} on the ${scheme} panel ${panel}`).toBeGreaterThanOrEqual(3);
    }
  }
  await page.emulateMedia({ colorScheme: 'light' });
  test.info().annotations.push({ type: 'contrast', description: JSON.stringify(ratios) });
});

/** panelInView says whether the node panel's heading is inside the viewport. */
async function panelInView(page: Page): Promise<boolean> {
  return page.evaluate(() => {
    const h = document.getElementById('panel-h');
    if (!h) return false;
    const r = h.getBoundingClientRect();
    return r.top >= 0 && r.top < window.innerHeight;
  });
}

test.describe('on a phone, a node link lands on its panel', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('with htmx', async ({ page, seed }) => {
    const l = seed['loop'];
    await page.goto(`/sessions/${l.sessionId}/runs/${l.runId}?expand=node_4`);
    const last = page.locator('[data-testid="row"][data-kind="node"] a').last();
    const node = await last.evaluate((a) => a.closest('li')!.getAttribute('data-node'));
    await last.scrollIntoViewIfNeeded();
    await last.click();
    await expect(page).toHaveURL(new RegExp(`node=${node}#panel-h$`));
    await htmxIdle(page);
    await expect(page.getByTestId('node-panel')).toContainText(node!);
    await expect.poll(() => panelInView(page)).toBe(true);
    await expectNoSidewaysScroll(page, 'a run with a node open at 390 px');
  });
});

test('without JavaScript, a node link lands on its panel on a phone', async ({ browser, seed }) => {
  const l = seed['loop'];
  const ctx = await browser.newContext({
    javaScriptEnabled: false, viewport: { width: 390, height: 844 },
    baseURL: process.env.WORKRAIL_E2E_URL, storageState: process.env.WORKRAIL_E2E_STATE,
  });
  try {
    const page = await ctx.newPage();
    await page.goto(`/sessions/${l.sessionId}/runs/${l.runId}?expand=node_4`);
    const last = page.locator('[data-testid="row"][data-kind="node"] a').last();
    await last.click();
    await expect(page).toHaveURL(/#panel-h$/);
    await expect.poll(() => panelInView(page)).toBe(true);
  } finally {
    await ctx.close();
  }
});

test('artifact tables keep their words whole', async ({ page, seed }) => {
  const l = seed['loop'];
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 844 });
    // node_12 is where the report was pending: its row's panel holds the report's gaps table.
    await page.goto(`/sessions/${l.sessionId}/runs/${l.runId}?node=node_12`);
    const heads = page.locator('.artifact th');
    expect(await heads.count()).toBeGreaterThan(0);
    // A cell of one word is one line: the word is never broken.
    const broken = await heads.evaluateAll((ths) => ths.filter((th) => {
      const text = th.textContent!.trim();
      if (!text || /\s/.test(text)) return false;
      const range = document.createRange();
      range.selectNodeContents(th);
      return range.getClientRects().length > 1;
    }).map((th) => th.textContent));
    expect(broken, `headers broken mid-word at ${width} px`).toEqual([]);
  }
});

test('the error box shows what went wrong and links the session the call was about', async ({ page, agent }, info) => {
  const a = await Run.start(agent, { workflowId: 'wr.hello' });
  const b = await Run.start(agent, { workflowId: 'wr.hello' });
  // An ackToken of another run: refused, about a's session (its stateToken verifies).
  const r = await agent.call('continue_workflow', { stateToken: a.last.structured.stateToken, ackToken: b.last.structured.ackToken });
  expect(r.kind).toBe('error');
  expect(r.structured.error.code).toBe('TOKEN_SCOPE_MISMATCH');
  const { sessionId } = a.history[0].structured.session;
  await page.goto('/');
  const err = page.getByTestId('recent-error').first();
  await expect(err).toContainText('TOKEN_SCOPE_MISMATCH');
  // In words, from the code: the log never keeps a message, which may quote what the agent sent.
  await expect(err).toContainText("The call's tokens belong to different steps or runs.");
  await expect(err).not.toContainText('tool call answered with an error');
  await err.getByTestId('error-session').click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${sessionId}$`));
  await page.goBack();
  await shootPhoneAndDesktop(page, 'recent-errors', (f) => info.outputPath(f));
});
