// The configuration page: desired (config.json on disk) against applied
// (the running daemon), key by key. An edit on disk shows up on an open
// page by the 2 s poll; a runtime-safe change is applied without a
// restart; a restart-required one puts a banner on every page with a
// Restart button, which restarts the daemon in place. The spec runs its own
// daemon, so no other spec sees its restarts.
import fs from 'node:fs';
import path from 'node:path';
import { test, expect, screenshot, shootLightAndDark } from './fixtures';
import { Daemon, loginLink, makeWorkspace, readInfo, type Workspace } from './daemon';

let daemon: Daemon;
let home: string;
let ws: Workspace;

test.beforeAll(async () => {
  ws = { ...makeWorkspace(), bin: process.env.WORKRAIL_E2E_BIN! };
  home = ws.home;
  daemon = await Daemon.start(ws);
});

// This daemon has a home, and so an owner's cookie, of its own: log in to it.
test.beforeEach(async ({ page }) => {
  await page.goto(loginLink(ws));
});

test.afterAll(async () => {
  await daemon.stop();
});

function writeConfig(config: object | string) {
  const text = typeof config === 'string' ? config : JSON.stringify(config, null, 2);
  fs.writeFileSync(path.join(home, 'config.json'), text, { mode: 0o600 });
}

const row = (page: import('@playwright/test').Page, key: string) => page.locator(`tr[data-key="${key}"]`);

/** shots takes the top of page at phone and desktop width, light and dark, for a person to look at. */
async function shots(page: import('@playwright/test').Page, name: string, out: (file: string) => string) {
  for (const [width, height] of [[390, 844], [1280, 800]]) {
    await page.setViewportSize({ width, height });
    await shootLightAndDark(page, (scheme) => out(`${name}-${width}-${scheme}.png`));
  }
}

test('an edit of config.json shows as desired vs applied; runtime-safe applies live, restart-required waits for the Restart button', async ({ page }, info) => {
  // A daemon restart and a dozen screenshots: on a busy 2-core machine
  // (the Go tests run beside this suite) that outlasts the default 30 s.
  test.setTimeout(90_000);
  const url = daemon.info.url;
  await page.goto(url + '/config');
  await expect(page.getByRole('heading', { name: 'Configuration' })).toBeVisible();
  await expect(row(page, 'workflowPaths').getByTestId('class')).toHaveText('restart-required');
  await expect(row(page, 'retentionDays').getByTestId('class')).toHaveText('runtime-safe');
  await expect(page.getByTestId('restart-banner')).toHaveCount(0);
  const firstHash = await page.getByTestId('applied-hash').textContent();
  expect(firstHash).toMatch(/^sha256:[0-9a-f]{12}$/);

  // Runtime-safe: applied as soon as the daemon sees the file; no banner.
  writeConfig({ console: { pageSize: 10 } });
  await expect(row(page, 'console.pageSize').locator('td[data-label="applied"] code')).toHaveText('10', { timeout: 10_000 });
  await expect(row(page, 'console.pageSize').getByTestId('differs')).toHaveCount(0);
  await expect(page.getByTestId('restart-banner')).toHaveCount(0);
  await expect(page.getByTestId('applied-hash')).not.toHaveText(firstHash!);
  // The refreshed panel keeps its Copy button.
  await expect(page.getByRole('button', { name: 'Copy' })).toBeVisible();
  expect(readInfo(home)!.appliedConfigHash).toContain(await page.getByTestId('applied-hash').textContent());

  // Restart-required: the row differs and the banner appears, here and on
  // every other page.
  writeConfig({ console: { pageSize: 10 }, features: { start_session: true } });
  const flag = row(page, 'features.start_session');
  await expect(flag.getByTestId('differs')).toBeVisible({ timeout: 10_000 });
  await expect(flag.locator('td[data-label="desired"] code')).toHaveText('true');
  await expect(flag.locator('td[data-label="applied"] code')).toHaveText('false');
  const banner = page.getByTestId('restart-banner');
  await expect(banner).toContainText('features.start_session');
  await expect(banner).toContainText("restart the daemon, then reload your IDE's MCP server");
  await shots(page, 'config-pending', (f) => info.outputPath(f));
  await page.goto(url + '/workflows');
  await expect(page.getByTestId('restart-banner')).toBeVisible();
  await shots(page, 'workflows-banner', (f) => info.outputPath(f));

  // A config.json that cannot be read is said instead; no restart offered.
  writeConfig('{"features": ');
  await expect(page.getByTestId('config-problem')).toBeVisible({ timeout: 10_000 });
  await expect(page.getByTestId('restart-daemon')).toHaveCount(0);
  await shots(page, 'config-problem', (f) => info.outputPath(f));
  writeConfig({ console: { pageSize: 10 }, features: { start_session: true } });
  await expect(page.getByTestId('restart-banner')).toBeVisible({ timeout: 10_000 });

  // Restart: the same process runs again and applies the flag.
  const before = readInfo(home)!;
  await page.getByTestId('restart-daemon').click();
  await expect(page.getByTestId('restarting')).toBeVisible();
  // The page that says so is styled: its stylesheet loads before the daemon goes away.
  await expect.poll(() => page.locator('.banner.restarting').evaluate((e) => getComputedStyle(e).borderLeftStyle)).toBe('solid');
  await screenshot(page, info.outputPath('restarting.png'));
  await expect(page).toHaveURL(url + '/config', { timeout: 15_000 });
  await expect(page.getByRole('heading', { name: 'Configuration' })).toBeVisible();
  await expect(page.getByTestId('restart-banner')).toHaveCount(0);
  await expect(flag.locator('td[data-label="applied"] code')).toHaveText('true');
  const after = readInfo(home)!;
  expect(after.pid).toBe(before.pid);
  expect(after.appliedConfigHash).not.toBe(before.appliedConfigHash);
});

test('the restart is refused without the CSRF token, and nothing restarts', async ({ page }) => {
  const url = daemon.info.url;
  await page.goto(url + '/config');
  const info = path.join(home, 'daemon.json');
  const before = fs.statSync(info).mtimeMs;
  const res = await page.request.post(url + '/config/restart', { form: {} });
  expect(res.status()).toBe(403);
  expect(await res.text()).toContain('nothing was changed');
  // The daemon still answers, as the same process that wrote daemon.json.
  await page.goto(url + '/config');
  await expect(page.getByRole('heading', { name: 'Configuration' })).toBeVisible();
  expect(fs.statSync(info).mtimeMs).toBe(before);
});
