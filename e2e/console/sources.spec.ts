// The sources page: where workflows come from, each repository of
// workflowRepos with the commit it serves, when it was fetched and why a
// fetch failed, and "Sync now", a CSRF-checked post that fetches at once.
// The spec runs its own daemon over two file:// repositories it makes
// with git, one of them missing, and pushes a commit mid-test.
import { execFileSync } from 'node:child_process';
import fs from 'node:fs';
import path from 'node:path';
import { test, expect, htmxIdle, shootPhoneAndDesktop } from './fixtures';
import { Daemon, loginLink, makeWorkspace, type Workspace } from './daemon';

let daemon: Daemon;
let ws: Workspace;
let work: string;
let bare: string;

const gitEnv = {
  ...process.env, GIT_CONFIG_GLOBAL: '/dev/null', GIT_CONFIG_NOSYSTEM: '1',
  GIT_AUTHOR_NAME: 'WorkRail Test', GIT_AUTHOR_EMAIL: 'test@workrail.invalid',
  GIT_COMMITTER_NAME: 'WorkRail Test', GIT_COMMITTER_EMAIL: 'test@workrail.invalid',
};
const git = (cwd: string, ...args: string[]) => execFileSync('git', args, { cwd, env: gitEnv, encoding: 'utf8' }).trim();

/** commit writes team.review at version v in the work tree, commits and pushes it; it returns the commit. */
function commit(v: string): string {
  fs.writeFileSync(path.join(work, 'workflows', 'review.json'), JSON.stringify({
    id: 'team.review', name: 'Team review', description: `The team's review, version ${v}.`, version: v,
    steps: [{ id: 'read', title: 'Read', prompt: 'Read the diff.' }],
  }));
  git(work, 'add', '-A');
  git(work, 'commit', '-q', '-m', `version ${v}`);
  git(work, 'push', '-q', 'origin', 'main');
  return git(work, 'rev-parse', 'HEAD');
}

test.beforeAll(async () => {
  ws = { ...makeWorkspace(), bin: process.env.WORKRAIL_E2E_BIN! };
  bare = path.join(ws.root, 'team-workflows.git');
  work = path.join(ws.root, 'work');
  git(ws.root, 'init', '-q', '--bare', '-b', 'main', bare);
  fs.mkdirSync(path.join(work, 'workflows'), { recursive: true });
  git(work, 'init', '-q', '-b', 'main');
  git(work, 'remote', 'add', 'origin', bare);
  commit('1');
  fs.writeFileSync(path.join(ws.home, 'config.json'), JSON.stringify({
    workflowReposSyncMinutes: 0,
    workflowRepos: [{ url: `file://${bare}`, path: 'workflows' }, { url: `file://${ws.root}/gone.git` }],
  }), { mode: 0o600 });
  daemon = await Daemon.start(ws);
});

test.beforeEach(async ({ page }) => {
  await page.goto(loginLink(ws));
});

test.afterAll(async () => {
  await daemon.stop();
});

test('the sources page lists each repository with its commit, and Sync now fetches a pushed commit', async ({ page }, info) => {
  test.setTimeout(90_000);
  const url = daemon.info.url;
  const team = page.locator('[data-testid="source-row"][data-kind="repo"]').filter({ hasText: 'team-workflows.git' });
  const gone = page.locator('[data-testid="source-row"][data-kind="repo"]').filter({ hasText: 'gone.git' });
  const first = git(work, 'rev-parse', 'HEAD');
  // The daemon fetched in the background after it started.
  await expect(async () => {
    await page.goto(url + '/sources');
    await expect(team.getByTestId('source-commit')).toHaveText(first.slice(0, 12), { timeout: 500 });
  }).toPass({ timeout: 20_000 });
  await expect(page.locator('[data-testid="source-row"]')).toHaveCount(4); // bundled, the user's folder, two repositories
  await expect(team.getByTestId('source-state')).toContainText('up to date');
  await expect(gone.getByTestId('source-state')).toContainText('not fetched');
  await expect(gone.getByTestId('source-error')).toContainText('no repository at this address');
  await shootPhoneAndDesktop(page, 'sources', (f) => info.outputPath(f));

  // The Workflows page lists the repository's workflow under it and warns of the missing one.
  await page.goto(url + '/workflows');
  await expect(page.getByTestId('repo-line')).toContainText(`team-workflows.git at ${first.slice(0, 12)}`);
  await expect(page.getByTestId('source-warning')).toContainText('gone.git could not be fetched');
  await shootPhoneAndDesktop(page, 'workflows-repos', (f) => info.outputPath(f));
  await page.getByTestId('sources-link').click();
  await expect(page).toHaveURL(url + '/sources');

  // A pushed commit: Sync now fetches it and shows the page as it left it.
  const second = commit('2');
  await page.getByTestId('sync-now').click();
  await expect(page.getByTestId('synced')).toContainText('Fetched 2 repositories; 1 fetch failed');
  await htmxIdle(page);
  await expect(team.getByTestId('source-commit')).toHaveText(second.slice(0, 12));
  await expect(page).toHaveURL(url + '/sources'); // swapped in place: no page load
  await shootPhoneAndDesktop(page, 'sources-synced', (f) => info.outputPath(f));
  await page.goto(url + '/workflows/team.review');
  await expect(page.getByTestId('workflow-commit')).toHaveText(second.slice(0, 12));

  // Without the form's CSRF token a sync is refused, and nothing is fetched.
  const refused = await page.request.post(url + '/sources/sync', { form: {}, headers: { 'X-CSRF-Token': '' } });
  expect(refused.status()).toBe(403);
});
