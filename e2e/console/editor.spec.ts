// The workflow editor: a new workflow from the starter, an error typed
// and seen at its line and column as you type, fixed and saved; a save
// over a file changed on disk (409, both versions, nothing lost); wr.hello
// forked to user.hello and started through the shim; a POST without the
// Console's token refused with nothing written; and, without JavaScript,
// the same check and save through plain forms. Every workflow here is the
// spec's own and its file is removed afterwards, so no other spec's pages
// change.
import fs from 'node:fs';
import path from 'node:path';
import type { Page } from '@playwright/test';
import { test, expect, htmxIdle } from './fixtures';
import { Run } from './seed';

const userDir = () => path.join(process.env.WORKRAIL_E2E_HOME!, 'workflows');
const fileOf = (id: string) => path.join(userDir(), `${id}.json`);

function workflowText(id: string, version: string): string {
  return JSON.stringify({
    id,
    name: 'Editor check',
    description: 'A workflow the editor spec edits.',
    version,
    steps: [{ id: 'only', title: 'Only step', prompt: 'Do the one thing.' }],
  }, null, 2) + '\n';
}

/** select puts the textarea's selection on [from, to) of its text. */
async function select(page: Page, from: number, to = from) {
  await page.locator('#text').evaluate((t: HTMLTextAreaElement, [a, b]) => {
    t.focus();
    t.setSelectionRange(a, b);
  }, [from, to]);
}

const value = (page: Page) => page.locator('#text').inputValue();

test('a typed error shows at its line and column, marked; fixed, the workflow saves', async ({ page }) => {
  const file = fileOf('user.e2e_editor');
  try {
    await page.goto('/workflows');
    await page.getByTestId('new-workflow').click();
    await page.getByRole('textbox', { name: 'Name' }).fill('e2e_editor');
    await page.getByRole('button', { name: 'Create and edit' }).click();
    await expect(page).toHaveURL(/\/workflows\/user\.e2e_editor\/edit$/);
    const summary = page.locator('#check-summary');
    await expect(summary).toHaveText('No problems: user.e2e_editor version 0.1.0 loads');
    expect(fs.readFileSync(file, 'utf8')).toContain('"id": "user.e2e_editor"');

    // Type a typo: "prompt" loses its second p, by the keyboard.
    const text = await value(page);
    const key = text.indexOf('"prompt": "Carry out');
    const lines = text.slice(0, key).split('\n');
    const line = lines.length;
    const col = lines[lines.length - 1].length + 1;
    await select(page, key + 5, key + 6);
    await page.keyboard.press('Backspace');
    await expect(summary).toHaveText(/problems: not saved until they are fixed/);
    const problem = page.locator(`[data-testid="problem"][data-line="${line}"][data-col="${col}"]`);
    await expect(problem).toContainText(`${line}:${col}`);
    await expect(problem).toContainText('unknown key "promt"');
    await expect(problem.getByTestId('did-you-mean')).toHaveText('Did you mean prompt?');
    // The line is shown with a caret under the column.
    await expect(problem.locator('pre.mark')).toContainText('"promt": "Carry out');
    await expect(problem.locator('.caret')).toHaveText(' '.repeat(col - 1) + '^');
    await expect(page.getByTestId('preview')).toHaveCount(0);

    // Its link puts the textarea's cursor on the problem.
    await select(page, 0);
    await problem.locator('a.jump').click();
    await expect(page.locator('#text')).toBeFocused();
    expect(await page.locator('#text').evaluate((t: HTMLTextAreaElement) => t.selectionStart)).toBe(key);

    // Fixed, and a builtin put at the cursor: the preview shows the step it adds.
    await select(page, key + 5);
    await page.keyboard.type('p');
    await expect(summary).toHaveText('No problems: user.e2e_editor version 0.1.0 loads');
    const features = (await value(page)).indexOf('"wr.features.durable_notes"') + '"wr.features.durable_notes"'.length;
    await select(page, features);
    await page.keyboard.type(', ');
    await page.locator('[data-builtin="wr.features.final_review"]').getByRole('button', { name: 'Insert wr.features.final_review' }).click();
    expect(await value(page)).toContain('"features": ["wr.features.durable_notes", "wr.features.final_review"]');
    await expect(page.getByTestId('preview')).toContainText('wr-final-review');

    // Tab indents at the cursor and Shift+Tab takes it back.
    await select(page, 0);
    await page.keyboard.press('Tab');
    expect((await value(page)).startsWith('  {')).toBe(true);
    await page.keyboard.press('Shift+Tab');
    expect((await value(page)).startsWith('{')).toBe(true);
    await expect(page.locator('#text')).toBeFocused();

    await htmxIdle(page);
    const saved = await value(page);
    await page.getByRole('button', { name: 'Save', exact: true }).click();
    await expect(page).toHaveURL(/\/workflows\/user\.e2e_editor\?view=source$/);
    await expect(page.getByTestId('workflow-document')).toContainText('wr.features.final_review');
    expect(fs.readFileSync(file, 'utf8')).toBe(saved);
  } finally {
    fs.rmSync(file, { force: true });
  }
});

test.describe('a conflicting save', () => {
  // Chromium logs a document answered with 409 as a console error.
  test.use({ allowConsoleErrors: true });

  test('a save over a file changed on disk is a 409 with both versions, and the text is kept', async ({ page, consoleErrors }) => {
    const file = fileOf('user.e2e_conflict');
    fs.mkdirSync(userDir(), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, workflowText('user.e2e_conflict', '1.0.0'));
    try {
      await page.goto('/workflows/user.e2e_conflict/edit');
      const mine = workflowText('user.e2e_conflict', '2.0.0');
      await page.locator('#text').fill(mine);
      // Another editor saves meanwhile.
      fs.writeFileSync(file, workflowText('user.e2e_conflict', '1.5.0'));

      const [response] = await Promise.all([
        page.waitForResponse((r) => r.request().method() === 'POST' && new URL(r.url()).pathname.endsWith('/edit')),
        page.getByRole('button', { name: 'Save', exact: true }).click(),
      ]);
      expect(response.status()).toBe(409);
      await expect(page.getByRole('heading', { level: 2 })).toHaveText('Not saved: user.e2e_conflict changed on disk');
      await expect(page.getByTestId('disk-version')).toContainText('"version": "1.5.0"');
      const diff = page.getByTestId('workflow-diff');
      await expect(diff.locator('.del')).toHaveText(['-  "version": "1.5.0",']);
      await expect(diff.locator('.add')).toHaveText(['+  "version": "2.0.0",']);
      expect(await value(page)).toBe(mine);
      expect(fs.readFileSync(file, 'utf8')).toContain('"version": "1.5.0"');

      // Saving again, having seen the file on disk, replaces it.
      await page.getByRole('button', { name: 'Save mine over the file on disk' }).click();
      await expect(page).toHaveURL(/\/workflows\/user\.e2e_conflict\?view=source$/);
      expect(fs.readFileSync(file, 'utf8')).toBe(mine);
      // The one error the page logged is the 409 itself.
      expect(consoleErrors).toEqual([expect.stringContaining('status of 409 (Conflict)')]);
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});

test('wr.hello is read-only: forked to user.hello, it opens in the editor and runs through the shim', async ({ page, agent }) => {
  const file = fileOf('user.hello');
  try {
    await page.goto('/workflows/wr.hello');
    await expect(page.getByTestId('edit')).toHaveCount(0);
    await expect(page.getByTestId('read-only')).toContainText('Read-only: bundled with WorkRail');
    await page.getByTestId('fork').click();
    await expect(page.locator('textarea')).toHaveCount(0);
    await expect(page.getByRole('textbox', { name: 'Name', exact: true })).toHaveValue('hello');
    await expect(page.getByTestId('fork-title')).toHaveValue('Hello, WorkRail (fork)');
    await page.getByRole('button', { name: 'Fork to my namespace' }).click();
    await expect(page).toHaveURL(/\/workflows\/user\.hello\/edit$/);
    await expect(page.locator('#check-summary')).toHaveText(/^No problems: user\.hello version/);
    const bundled = fs.readFileSync(path.join(__dirname, '..', '..', 'workflows', 'wr.hello.json'), 'utf8');
    expect(fs.readFileSync(file, 'utf8')).toBe(bundled.replace('"id": "wr.hello"', '"id": "user.hello"').replace('"name": "Hello, WorkRail"', '"name": "Hello, WorkRail (fork)"'));

    const run = await Run.start(agent, { workflowId: 'user.hello' });
    expect(run.last.kind).toBe('step');
    expect(run.last.structured.workflow.workflowId).toBe('user.hello');
  } finally {
    fs.rmSync(file, { force: true });
  }
});

test('a POST without the token, or from another origin, is refused and writes nothing', async ({ page, request, baseURL }) => {
  const file = fileOf('user.e2e_token');
  fs.mkdirSync(userDir(), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, workflowText('user.e2e_token', '1.0.0'));
  const before = () => Object.fromEntries(fs.readdirSync(userDir()).map((f) => [f, fs.readFileSync(path.join(userDir(), f), 'utf8')]));
  const was = before();
  try {
    await page.goto('/workflows/user.e2e_token/edit');
    const form: Record<string, string> = {};
    for (const name of ['base', 'eol', 'kind', 'folder', 'file']) {
      form[name] = (await page.locator(`input[name="${name}"]`).getAttribute('value'))!;
    }
    const token = (await page.locator('input[name="csrf"]').first().getAttribute('value'))!;
    const posts: [string, Record<string, string>][] = [
      ['/workflows/user.e2e_token/edit', { ...form, text: workflowText('user.e2e_token', '6.6.6'), action: 'save' }],
      ['/workflows/wr.hello/fork', { name: 'e2e_token_fork' }],
      ['/workflows/new', { name: 'e2e_token_new' }],
    ];
    for (const [url, fields] of posts) {
      const bare = await request.post(url, { form: fields });
      expect(bare.status(), `${url} without the token`).toBe(403);
      expect(await bare.text()).toContain('nothing was changed');
      const foreign = await request.post(url, { form: { ...fields, csrf: token }, headers: { Origin: 'http://evil.example' } });
      expect(foreign.status(), `${url} from another origin`).toBe(403);
    }
    expect(before()).toEqual(was);
    // The same save with the token goes through: the refusals were the token's and the origin's.
    const ok = await request.post('/workflows/user.e2e_token/edit', {
      form: { ...form, text: workflowText('user.e2e_token', '7.0.0'), action: 'save', csrf: token },
      headers: { Origin: baseURL! },
      maxRedirects: 0,
    });
    expect(ok.status()).toBe(303);
    expect(fs.readFileSync(file, 'utf8')).toContain('"version": "7.0.0"');
  } finally {
    fs.rmSync(file, { force: true });
  }
});

test.describe('without JavaScript', () => {
  test.use({ javaScriptEnabled: false });

  test('the editor checks, marks and saves with plain forms', async ({ page }) => {
    const file = fileOf('user.e2e_nojs');
    fs.mkdirSync(userDir(), { recursive: true, mode: 0o700 });
    fs.writeFileSync(file, workflowText('user.e2e_nojs', '1.0.0'));
    try {
      await page.goto('/workflows/user.e2e_nojs');
      await page.getByTestId('edit').click();
      // No script: the builtins' Insert buttons stay hidden, their snippets are there to copy.
      await expect(page.getByRole('button', { name: 'Insert wr.features.final_review' })).toBeHidden();
      const typo = workflowText('user.e2e_nojs', '2.0.0').replace('"prompt"', '"promt"');
      await page.locator('#text').fill(typo);
      await page.getByRole('button', { name: 'Check without saving' }).click();
      const before = typo.slice(0, typo.indexOf('"promt"')).split('\n');
      const col = before[before.length - 1].length + 1;
      const problem = page.locator(`[data-testid="problem"][data-line="${before.length}"][data-col="${col}"]`);
      await expect(problem).toContainText('Did you mean prompt?');
      await expect(problem.locator('.caret')).toHaveText(' '.repeat(col - 1) + '^');
      expect(await value(page)).toBe(typo);
      expect(fs.readFileSync(file, 'utf8')).toContain('"version": "1.0.0"');

      await page.locator('#text').fill(workflowText('user.e2e_nojs', '2.0.0'));
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect(page).toHaveURL(/\/workflows\/user\.e2e_nojs\?view=source$/);
      expect(fs.readFileSync(file, 'utf8')).toBe(workflowText('user.e2e_nojs', '2.0.0'));
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});
