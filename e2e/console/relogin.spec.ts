// A write that changes what an agent will run (here: saving a workflow)
// needs a login made in the last 15 minutes. A browser whose login is
// older gets its page back with the notice and its text kept; after a new
// login in another tab, pressing Save again saves. The spec runs its own
// daemon on a home whose logins.json holds a login made 20 minutes ago,
// as an earlier daemon left it (only the id's SHA-256 is in the file).
import crypto from 'node:crypto';
import fs from 'node:fs';
import path from 'node:path';
import { test, expect, shootLightAndDark } from './fixtures';
import { Daemon, loginLink, makeWorkspace, type Workspace } from './daemon';

let daemon: Daemon;
let ws: Workspace;
const id = crypto.randomBytes(32).toString('base64url');
const file = () => path.join(ws.home, 'workflows', 'user.relogin.json');
const workflow = (prompt: string) => JSON.stringify({
  id: 'user.relogin', name: 'Relogin', description: 'Saved after a new login.', version: '1',
  steps: [{ id: 'only', title: 'Only step', prompt }],
}, null, 2) + '\n';

test.beforeAll(async () => {
  ws = { ...makeWorkspace(), bin: process.env.WORKRAIL_E2E_BIN! };
  fs.mkdirSync(path.dirname(file()), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file(), workflow('Say hi.'));
  const minutesAgo = (m: number) => new Date(Date.now() - m * 60_000).toISOString();
  fs.writeFileSync(path.join(ws.home, 'logins.json'), JSON.stringify({
    version: 1,
    logins: [{ sha256: crypto.createHash('sha256').update(id).digest('hex'), at: minutesAgo(20), used: minutesAgo(1) }],
  }), { mode: 0o600 });
  daemon = await Daemon.start(ws);
});

test.afterAll(async () => {
  await daemon.stop();
});

test.use({ storageState: { cookies: [], origins: [] }, allowConsoleErrors: true });

test('an old login saving a workflow is asked to log in again, keeps its text, and saves after a new login', async ({ page, context, consoleErrors }, info) => {
  test.setTimeout(60_000);
  const base = daemon.info.url;
  await context.addCookies([{ name: `workrail_console_${new URL(base).port}`, value: id, url: base }]);
  await page.goto(base + '/workflows/user.relogin/edit');
  const text = page.locator('textarea#text');
  await text.fill(workflow('Say hello, in words typed before the new login.'));
  const refused = page.waitForResponse((r) => r.request().method() === 'POST' && r.url().endsWith('/workflows/user.relogin/edit'));
  await page.getByRole('button', { name: 'Save', exact: true }).click();
  expect((await refused).status()).toBe(401);
  const notice = page.getByTestId('relogin');
  await expect(notice).toContainText('Log in again to make this change');
  await expect(notice).toContainText('in the last 15 minutes');
  await expect(notice).toContainText('workrail console');
  await expect(text).toHaveValue(/typed before the new login/);
  expect(fs.readFileSync(file(), 'utf8'), 'nothing was saved').toContain('Say hi.');
  for (const [width, height] of [[390, 844], [1280, 800]]) {
    await page.setViewportSize({ width, height });
    await shootLightAndDark(page, (scheme) => info.outputPath(`relogin-${width}-${scheme}.png`));
  }

  // `workrail console` opens its link in a new tab of the same browser.
  const tab = await context.newPage();
  await tab.goto(loginLink(ws));
  await expect(tab.getByRole('heading', { name: 'Sessions', exact: true })).toBeVisible();
  await tab.close();

  await page.getByRole('button', { name: 'Save', exact: true }).click();
  await expect(page).toHaveURL(/\/workflows\/user\.relogin\?/);
  expect(fs.readFileSync(file(), 'utf8')).toContain('typed before the new login');
  // The refused save's 401 is the only error the page saw.
  expect(consoleErrors).toEqual([expect.stringContaining('status of 401 (Unauthorized) (http://127.0.0.1:')]);
});
