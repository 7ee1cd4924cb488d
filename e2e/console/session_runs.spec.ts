// A session holding two runs (seed_sessions.ts): the second started with
// the first run's stateToken. Its page follows seed 004: the heading is
// the session's title in plain words, a runs sidebar, one run shown at a
// time, the notes folded by run and branch with only the latest few open,
// and a timeline with one lane per run.
import { test, expect, shootPhoneAndDesktop } from './fixtures';
import { sessionsSeed } from './seed_sessions';

test('the heading is the title in plain words, the sidebar lists both runs and picks one', async ({ page }) => {
  const seed = sessionsSeed();
  const one = seed['two-runs'];
  const two = seed['two-runs-second'];
  expect(two.sessionId).toBe(one.sessionId);
  await page.goto(`/sessions/${one.sessionId}`);
  const heading = page.getByRole('heading', { level: 2 });
  await expect(heading).toHaveText(`Alice triaged the parser bug ${one.sessionId}`);
  await expect(heading.locator('small')).toHaveText(one.sessionId);
  await expect(page).toHaveTitle('Alice triaged the parser bug · WorkRail');

  const runs = page.getByRole('navigation', { name: 'Runs' });
  const links = runs.getByRole('link');
  await expect(links).toHaveCount(2);
  const first = runs.locator(`li[data-run="${one.runId}"] a`);
  const second = runs.locator(`li[data-run="${two.runId}"] a`);
  await expect(first).toContainText('Codebase exploration');
  await expect(first).toContainText('2 branches');
  await expect(first.getByTestId('status')).toHaveText('▶ in progress');
  await expect(second).toContainText('Hello, WorkRail');
  await expect(second).toContainText(`${two.runId} · 2 steps done`);
  // By default the run touched last is shown.
  await expect(second).toHaveAttribute('aria-current', 'page');
  await expect(first).not.toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('active-run')).toContainText('wr.hello');

  // One run at a time: picking the first shows it alone.
  await first.click();
  await expect(page).toHaveURL(new RegExp(`/sessions/${one.sessionId}\\?run=${one.runId}$`));
  await expect(runs.locator(`li[data-run="${one.runId}"] a`)).toHaveAttribute('aria-current', 'page');
  await expect(runs.locator(`li[data-run="${two.runId}"] a`)).not.toHaveAttribute('aria-current', 'page');
  await expect(page.getByTestId('active-run')).toHaveCount(1);
  await expect(page.getByTestId('active-run')).toContainText('wr.exploration');
  await expect(page.getByTestId('active-run')).not.toContainText('wr.hello');
});

test('notes fold by run and branch, the latest few open', async ({ page }, info) => {
  const seed = sessionsSeed();
  const one = seed['two-runs'];
  const two = seed['two-runs-second'];
  await page.goto(`/sessions/${one.sessionId}?run=${one.runId}`);
  await shootPhoneAndDesktop(page, 'session-two-runs-folded', (f) => info.outputPath(f));
  const notes = page.getByRole('region', { name: 'Session notes' });
  const runs = notes.getByTestId('note-run');
  await expect(runs).toHaveCount(2);
  const mine = notes.locator(`[data-testid="note-run"][data-run="${one.runId}"]`);
  const other = notes.locator(`[data-testid="note-run"][data-run="${two.runId}"]`);
  // The chosen run's notes are open, the other's folded under a count.
  await expect(mine).toHaveAttribute('open', '');
  await expect(other).not.toHaveAttribute('open', '');
  await expect(other.locator('summary')).toContainText('2 notes');
  await expect(other.getByText('Said hello for the same work.')).toBeHidden();

  // The first run: its main line (five notes, two folded) and the branch
  // the rewind made (one note).
  const branches = mine.getByTestId('note-branch');
  await expect(branches).toHaveCount(2);
  const main = branches.first();
  await expect(main.getByRole('heading', { level: 4 })).toHaveText('branch A · 5 notes');
  const earlier = main.getByTestId('note-earlier');
  await expect(earlier.locator('summary')).toHaveText('2 earlier notes');
  await expect(main.locator(':scope > ol.notes > li')).toHaveCount(3);
  await expect(main.locator(':scope > ol.notes > li').last()).toContainText('Studied the parser: it drops a trailing comma.');
  // The first note, folded: its Markdown renders (bold) once unfolded.
  const firstNote = earlier.locator('li').first();
  await expect(firstNote).toBeHidden();
  await earlier.locator('summary').click();
  await expect(firstNote).toBeVisible();
  await expect(firstNote.locator('.note-body strong')).toHaveText('Alice');
  const branch = branches.nth(1);
  await expect(branch.getByRole('heading', { level: 4 })).toHaveText('branch B · 1 note');
  await expect(branch).toContainText('Built again, a second look');

  // The other run unfolds on a click.
  await other.locator('summary').click();
  await expect(other.getByText('Said hello for the same work.')).toBeVisible();
  await shootPhoneAndDesktop(page, 'session-two-runs', (f) => info.outputPath(f));
});

test('the timeline has a lane per run, in log order', async ({ page }) => {
  const seed = sessionsSeed();
  const one = seed['two-runs'];
  const two = seed['two-runs-second'];
  await page.goto(`/sessions/${one.sessionId}`);
  const timeline = page.getByTestId('timeline');
  await expect(timeline).toHaveClass(/\blanes-2\b/);
  const stretches = timeline.locator('li.stretch');
  await expect(stretches).toHaveCount(2);
  await expect(stretches.nth(0)).toHaveAttribute('data-run', one.runId);
  await expect(stretches.nth(0)).toHaveClass(/\blane-1\b/);
  await expect(stretches.nth(0)).toContainText(`${one.runId} started wr.exploration`);
  await expect(stretches.nth(1)).toHaveAttribute('data-run', two.runId);
  await expect(stretches.nth(1)).toHaveClass(/\blane-2\b/);
  await expect(stretches.nth(1)).toContainText(`${two.runId} started wr.hello: greet → look-around → wrap-up`);
  // Side by side on a desktop: the second lane is its own column, right of the first.
  await page.setViewportSize({ width: 1280, height: 800 });
  const [a, b] = [await stretches.nth(0).boundingBox(), await stretches.nth(1).boundingBox()];
  expect(b!.x).toBeGreaterThan(a!.x + a!.width - 1);
  expect(b!.y).toBeGreaterThan(a!.y);
});

test('the sessions list shows the title without its Markdown marks', async ({ page }) => {
  const seed = sessionsSeed();
  const one = seed['two-runs'];
  await page.goto(`/?q=${encodeURIComponent('Alice')}`);
  const row = page.locator(`tr[data-session="${one.sessionId}"]`);
  await expect(row.locator('a.row-link')).toHaveText('Alice triaged the parser bug');
  await expect(row).not.toContainText('**');
  await expect(row).toContainText('2 runs');
});
