// Sharing a session: its page downloads the bundle (note bodies left out
// on request) and the Markdown; the Import page (linked in the header)
// checks an upload with a dry run, shows what it would create or why it
// is refused, imports it on Confirm and links the new session. The
// imported session is a new one on this spec's daemon: specs after this
// one see one session more. Screenshots of the import pages, at a phone's
// and a desktop's width in light and dark, go to the test output.
import fs from 'node:fs';
import type { Page, TestInfo } from '@playwright/test';
import { test, expect, expectNoSidewaysScroll, shootLightAndDark } from './fixtures';

/** shots checks the page does not scroll sideways at 390 px and takes it at 390 and 1280 px, light and dark. */
async function shots(page: Page, info: TestInfo, name: string) {
  const size = page.viewportSize()!;
  for (const width of [390, 1280]) {
    await page.setViewportSize({ width, height: 844 });
    if (width === 390) await expectNoSidewaysScroll(page, name);
    await shootLightAndDark(page, (scheme) => info.outputPath(`${name}-${width}-${scheme}.png`), { fullPage: true });
  }
  await page.setViewportSize(size);
}

test.describe('Share a session', () => {
  // The refused upload's 422 is a console error of its own: the test
  // checks it is the only one.
  test.use({ allowConsoleErrors: true });
  test.describe.configure({ timeout: 90_000 });

  test('exports a session, imports the bundle through its preview and Confirm, and opens the new session', async ({ page, seed, consoleErrors }, info) => {
    const s = seed['forked'];
    await page.goto(`/sessions/${s.sessionId}`);
    const share = page.getByTestId('share');
    await expect(share.getByTestId('export-bundle')).toBeVisible();
    await shots(page, info, 'session');

    // The Markdown: a download named for the session.
    let download = page.waitForEvent('download');
    await share.getByTestId('export-markdown').click();
    const md = await download;
    expect(md.suggestedFilename()).toBe(`${s.sessionId}.md`);
    const mdText = fs.readFileSync(await md.path(), 'utf8');
    expect(mdText).toContain('second branch');

    // The bundle with the note bodies left out, then whole.
    await share.getByTestId('export-redact').check();
    download = page.waitForEvent('download');
    await share.getByTestId('export-bundle').click();
    const redacted = fs.readFileSync(await (await download).path(), 'utf8');
    expect(redacted).toContain('[redacted]');
    expect(redacted).not.toContain('second branch');
    await share.getByTestId('export-redact').uncheck();

    // Everything written redacted, as a bundle and as Markdown.
    await share.getByTestId('export-redact-all').check();
    download = page.waitForEvent('download');
    await share.getByTestId('export-bundle').click();
    const all = fs.readFileSync(await (await download).path(), 'utf8');
    expect(all).toContain('"redaction":"all"');
    expect(all).not.toContain('second branch');
    download = page.waitForEvent('download');
    await share.getByTestId('export-markdown').click();
    const allMd = fs.readFileSync(await (await download).path(), 'utf8');
    expect(allMd).toContain('Redacted:');
    expect(allMd).not.toContain('second branch');
    await share.getByTestId('export-redact-all').uncheck();
    download = page.waitForEvent('download');
    await share.getByTestId('export-bundle').click();
    const bundle = await download;
    expect(bundle.suggestedFilename()).toBe(`${s.sessionId}.json`);
    const file = info.outputPath(`${s.sessionId}.json`);
    await bundle.saveAs(file);
    const text = fs.readFileSync(file, 'utf8');
    expect(text).toContain('second branch');

    // The Import page, from the header.
    await page.getByRole('navigation', { name: 'Main' }).getByRole('link', { name: 'Import' }).click();
    await expect(page).toHaveURL(/\/import$/);
    await expect(page.getByTestId('import-what')).toContainText('never merged into one');
    await shots(page, info, 'import');

    // A changed note is refused, in words, with the manifest entry and
    // both digests; nothing is offered to confirm.
    const tampered = info.outputPath('tampered.json');
    fs.writeFileSync(tampered, text.replace('second branch', 'second brunch'));
    await page.getByTestId('import-file').setInputFiles(tampered);
    await page.getByTestId('import-check').click();
    const refused = page.getByTestId('import-refused');
    await expect(refused).toContainText('tampered.json was refused; nothing was written.');
    await expect(refused.getByTestId('import-code')).toHaveText('BUNDLE_INVALID');
    const details = refused.getByTestId('import-details');
    await expect(details).toContainText('digest_mismatch');
    await expect(details).toContainText(/entry\s*manifest\./);
    await expect(details).toContainText(/expected\s*sha256:/);
    await expect(page.getByTestId('import-confirm')).toHaveCount(0);
    await shots(page, info, 'import-refused');
    expect(consoleErrors).toHaveLength(1);
    expect(consoleErrors[0]).toContain('422');

    // The real one: the preview says what would be created, Confirm
    // imports it and links the new session.
    await page.getByTestId('import-file').setInputFiles(file);
    await page.getByTestId('import-check').click();
    const preview = page.getByTestId('import-preview');
    await expect(preview).toContainText(`Checked: ${s.sessionId}.json`);
    await expect(preview.getByTestId('import-report')).toContainText(s.sessionId);
    await expect(preview.getByTestId('report-runs')).toHaveText('1');
    await expect(preview.getByTestId('report-workflows')).toContainText(s.workflowId);
    await expect(preview.getByTestId('import-already')).toHaveCount(0);
    await shots(page, info, 'import-preview');
    await page.getByTestId('import-confirm').click();
    await expect(page).toHaveURL(/\/import\/[0-9a-f]{64}$/);
    const done = page.getByTestId('import-done');
    await expect(done).toContainText(`Imported ${s.sessionId} as`);
    const link = done.getByTestId('imported-session');
    const imported = (await link.textContent())!.trim();
    expect(imported).toMatch(/^ses_\d+$/);
    expect(imported).not.toBe(s.sessionId);
    await shots(page, info, 'import-done');

    // A reload of the result page imports nothing more.
    await page.reload();
    await expect(page.getByTestId('imported-session')).toHaveText(imported);

    await link.click();
    await expect(page).toHaveURL(new RegExp(`/sessions/${imported}$`));
    await expect(page.getByRole('heading', { level: 2 }).locator('small')).toHaveText(imported);
    await expect(page.getByTestId('health')).toHaveText('healthy');
    await expect(page.getByTestId('active-run')).toContainText(s.workflowId);
    await expect(page.locator('.notes').last()).toContainText('second branch');

    // The same bundle again: the preview says it was imported here already.
    await page.goto('/import');
    await page.getByTestId('import-file').setInputFiles(file);
    await page.getByTestId('import-check').click();
    const again = page.getByTestId('import-already');
    await expect(again).toContainText(`this is ${s.sessionId} as of the same last event, imported before as ${imported}`);
    await expect(again.getByRole('link', { name: imported })).toHaveAttribute('href', `/sessions/${imported}`);
    await shots(page, info, 'import-again');
    expect(consoleErrors).toHaveLength(1);
  });
});
