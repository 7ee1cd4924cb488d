// What a workflow says about itself, on its page: about (Markdown),
// preconditions, examples, questions, rules, references, functions,
// policies; the output contracts it pins as tables with an example; its
// assessments; and load warnings linked to the line of the source they
// point at; a file in the TypeScript WorkRail's format names its dialect
// and rewrites. The editor refuses to save a dot-less id or that format,
// saying what to change, while the file on disk keeps loading and
// running; its builtins panel shows every kind from the catalog with what
// each takes, and typing a quoted name completes it from there. Every
// workflow here is the spec's own and its file is removed afterwards.
import fs from 'node:fs';
import path from 'node:path';
import { test, expect, expectNoSidewaysScroll, shootPhoneAndDesktop } from './fixtures';

const userDir = () => path.join(process.env.WORKRAIL_E2E_HOME!, 'workflows');

function write(name: string, text: string): string {
  const file = path.join(userDir(), name);
  fs.mkdirSync(userDir(), { recursive: true, mode: 0o700 });
  fs.writeFileSync(file, text);
  return file;
}

const rich = JSON.stringify({
  id: 'user.e2e_about',
  name: 'About check',
  description: 'A workflow that says a lot about itself.',
  version: '1.0.0',
  about: 'Plans a **small** change.\n\n- asks first\n- then plans',
  examples: ['Plan a retry of failed uploads'],
  preconditions: ['The repository builds'],
  clarificationPrompts: ['Which module does it touch?'],
  metaGuidance: ['Say what you assume.'],
  references: [{ id: 'style', title: 'Style guide', source: 'docs/STYLE.md', purpose: 'How code is written here.', authoritative: true }],
  metricsProfile: 'coding',
  functionDefinitions: [{ name: 'checkBuild', definition: 'Run the build.', parameters: [{ name: 'target', type: 'string', required: true }] }],
  assessments: [{ id: 'readiness', purpose: 'Is the plan ready?', dimensions: [
    { id: 'clarity', purpose: 'Could another follow it?', levels: ['low', 'medium', 'high'] },
  ] }],
  contracts: {
    'user.e2e_plan': {
      description: 'The plan in brief.',
      kinds: ['user.e2e_plan_v1'],
      schema: { type: 'object', required: ['kind', 'steps'], properties: {
        kind: { enum: ['user.e2e_plan', 'user.e2e_plan_v1'] },
        steps: { type: 'array', items: { type: 'string' }, description: 'The steps, in order.' },
      } },
      example: { kind: 'user.e2e_plan', steps: ['Rename the key'] },
    },
  },
  notes: 'required',
  steps: [
    { id: 'plan', title: 'Plan', prompt: 'Write the plan.', assessmentRefs: ['readiness'] },
    { id: 'gaps', title: 'Gaps', prompt: 'Say what is missing.', output: { contractRef: 'wr.contracts.gaps' } },
    { id: 'sum', title: 'Sum up', prompt: 'Sum the plan up.', output: { contractRef: 'user.e2e_plan' } },
  ],
}, null, 2) + '\n';

const legacy = '{\n  "name": "Old flow",\n  "description": "A file with a dot-less id.",\n  "id": "e2e_old_flow",\n' +
  '  "version": "1",\n  "steps": [{ "id": "a", "title": "A", "prompt": "Do a." }]\n}\n';

test('a workflow page shows its metadata, its contracts as tables and its assessments', async ({ page }) => {
  const file = write('e2e_about.json', rich);
  try {
    await page.goto('/workflows/user.e2e_about');
    const about = page.getByTestId('about');
    await expect(about.getByTestId('about-text').locator('strong')).toHaveText('small');
    await expect(about.getByTestId('about-text').locator('li')).toHaveText(['asks first', 'then plans']);
    await expect(about.getByTestId('preconditions')).toHaveText('The repository builds');
    await expect(about.getByTestId('examples')).toHaveText('Plan a retry of failed uploads');
    await expect(about.getByTestId('clarifications')).toHaveText('Which module does it touch?');
    await expect(about.getByTestId('rules')).toHaveText('Say what you assume.');
    await expect(about.getByTestId('references')).toContainText('Style guide');
    await expect(about.getByTestId('functions')).toContainText('checkBuild(target string)');
    await expect(about.getByTestId('policies')).toContainText('Metrics profile coding');
    await expect(about.getByTestId('policies')).toContainText('Every step needs notes');

    const gaps = page.locator('[data-testid="contract"][data-ref="wr.contracts.gaps"]');
    await expect(gaps.getByTestId('contract-kind')).toHaveText(['wr.contracts.gaps']);
    const kind = gaps.locator('[data-testid="contract-field"][data-field="kind"]');
    await expect(kind.locator('td')).toHaveText(['kind', 'always "wr.contracts.gaps"', 'required', '']);
    await expect(gaps.locator('[data-testid="contract-field"][data-field="gaps"] td').nth(1)).toHaveText('array of object');
    await gaps.getByText('Example').click();
    await expect(gaps.getByTestId('contract-example')).toContainText('"kind": "wr.contracts.gaps"');

    const plan = page.locator('[data-testid="contract"][data-ref="user.e2e_plan"]');
    await expect(plan).toContainText('declared by this workflow');
    await expect(plan.getByTestId('contract-kind')).toHaveText(['user.e2e_plan', 'user.e2e_plan_v1']);
    await expect(plan.locator('[data-testid="contract-field"][data-field="steps"] td'))
      .toHaveText(['steps', 'array of string', 'required', 'The steps, in order.']);

    const clarity = page.locator('[data-testid="dimension"][data-dimension="clarity"]');
    await expect(clarity.locator('td')).toHaveText(['clarity', 'low · medium · high', 'Could another follow it?']);
    await expect(page.getByTestId('load-warnings')).toHaveCount(0);
  } finally {
    fs.rmSync(file, { force: true });
  }
});

test('a load warning links to the source line it points at, from the source and the compiled view', async ({ page }) => {
  const file = write('e2e_old_flow.json', legacy);
  try {
    await page.goto('/workflows/e2e_old_flow?view=compiled');
    const warning = page.locator('[data-testid="load-warning"][data-code="LEGACY_WORKFLOW_ID"]');
    await expect(warning).toContainText('/id');
    await expect(warning).toContainText('user.e2e_old_flow');
    await warning.getByTestId('warning-line').click();
    await expect(page).toHaveURL(/view=source#L4$/);
    const line = page.locator('#L4');
    await expect(line).toContainText('"id": "e2e_old_flow"');
    await expect(line).toHaveCSS('outline-style', 'solid');
  } finally {
    fs.rmSync(file, { force: true });
  }
});

// A file in the TypeScript WorkRail's format: a wr.* id from the user
// folder, outputContract, and not_equals on an undeclared variable.
const tsFile = JSON.stringify({
  id: 'wr.e2e-ts',
  name: 'TS file',
  description: 'A file in the TypeScript format.',
  version: '1.0.0',
  steps: [
    { id: 'ask', title: 'Ask', prompt: 'Ask which size.', outputContract: { contractRef: 'wr.contracts.gaps' } },
    { id: 'big', title: 'Big', prompt: 'Do it big.', runCondition: { var: 'size', not_equals: 'small' } },
  ],
}, null, 2) + '\n';

test('a legacy file names its dialect and rewrites, and each rewrite links to its line', async ({ page }) => {
  const file = write('e2e-ts.json', tsFile);
  try {
    await page.goto('/workflows');
    const row = page.locator('[data-workflow="user.e2e-ts"]');
    await expect(row.getByTestId('dialect-badge')).toHaveText('workrail-ts');
    await expect(row.getByTestId('warnings-badge')).toHaveText('△ 4 load warnings');
    await row.getByRole('link', { name: 'TS file' }).click();

    await expect(page.getByTestId('dialect')).toContainText("the TypeScript WorkRail's format (workrail-ts)");
    await expect(page.getByTestId('rewrite')).toHaveText(['CONTEXT_SYNTHESIZED', 'NOT_EQUALS', 'OUTPUT_CONTRACT']);
    await expect(page.locator('[data-testid="load-warning"][data-code="RESERVED_ID_RENAMED"]')).toContainText('user.e2e-ts');
    const notEquals = page.locator('[data-testid="load-warning"][data-rewrite="NOT_EQUALS"]');
    await expect(notEquals).toContainText('/steps/1/runCondition/not_equals');
    const lineNo = tsFile.split('\n').findIndex((l) => l.includes('"not_equals"')) + 1;
    await notEquals.getByTestId('warning-line').click();
    await expect(page).toHaveURL(new RegExp(`#L${lineNo}$`));
    await expect(page.locator(`#L${lineNo}`)).toContainText('"not_equals": "small"');
  } finally {
    fs.rmSync(file, { force: true });
  }
});

test.describe('a refused save', () => {
  // Chromium logs a document answered with 422 as a console error.
  test.use({ allowConsoleErrors: true });

  test('the editor will not save a dot-less id, says what to change, and saves once it is renamed', async ({ page, consoleErrors }) => {
    const file = write('e2e_old_flow.json', legacy);
    try {
      await page.goto('/workflows/e2e_old_flow/edit');
      const summary = page.locator('#check-summary');
      await expect(summary).toContainText('Loads, but not saved from here');
      await expect(summary).toContainText('change it to "user.e2e_old_flow"');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect(page.getByTestId('save-error')).toContainText('Files already on disk with a legacy id keep loading and running');
      expect(fs.readFileSync(file, 'utf8')).toBe(legacy);
      expect(consoleErrors).toEqual([expect.stringContaining('status of 422 (Unprocessable Entity)')]);

      const text = page.locator('#text');
      await text.fill(legacy.replace('"e2e_old_flow"', '"user.e2e_old_flow"'));
      await expect(summary).toHaveText('No problems: user.e2e_old_flow version 1 loads');
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect(page).toHaveURL(/\/workflows\/user\.e2e_old_flow\?view=source$/);
      // The same file, saved under the namespaced id.
      expect(fs.readFileSync(file, 'utf8')).toContain('"user.e2e_old_flow"');
    } finally {
      fs.rmSync(file, { force: true });
    }
  });

  test('the editor will not save the TypeScript format, and the file keeps running', async ({ page, consoleErrors, agent }) => {
    const ts = tsFile.replace('"wr.e2e-ts"', '"user.e2e-ts"');
    const file = write('e2e-ts.json', ts);
    try {
      await page.goto('/workflows/user.e2e-ts/edit');
      await expect(page.locator('#check-summary')).toContainText("Loads, but not saved from here: the text is in the TypeScript WorkRail's format");
      await page.getByRole('button', { name: 'Save', exact: true }).click();
      await expect(page.getByTestId('save-error')).toContainText('files already in that format keep loading and running as they are');
      expect(consoleErrors).toEqual([expect.stringContaining('status of 422 (Unprocessable Entity)')]);
      expect(fs.readFileSync(file, 'utf8')).toBe(ts);
      const started = await agent.call('start_workflow', { workflowId: 'user.e2e-ts' });
      expect(started.kind).toBe('step');
    } finally {
      fs.rmSync(file, { force: true });
    }
  });
});

test('the builtins panel lists every kind from the catalog, with what each takes and who defines it', async ({ page }) => {
  const file = write('e2e_about.json', rich);
  try {
    await page.goto('/workflows/user.e2e_about/edit');
    const panel = page.getByTestId('builtins');
    for (const [kind, name] of [['loop', 'forEach'], ['loop_variable', 'indexVar'], ['criterion', 'regex'],
      ['effect', 'require_followup'], ['user_dependency', 'needs_user_choice'], ['metrics_profile', 'coding'], ['notes_policy', 'required']]) {
      await expect(panel.locator(`[data-testid="builtin"][data-kind="${kind}"][data-builtin="${name}"]`)).toHaveCount(1);
    }
    const each = panel.locator('[data-testid="builtin"][data-kind="loop"][data-builtin="forEach"]');
    await panel.getByText(/^Loops \(4\)$/).click();
    await expect(each.getByTestId('builtin-origin')).toHaveText('From WorkRail (engine/workflow/model.go).');
    await each.getByText('What it takes (JSON Schema)').click();
    await expect(each.getByTestId('builtin-schema')).toContainText('"itemsRequired"');
  } finally {
    fs.rmSync(file, { force: true });
  }
});

test('typing a quoted name in the editor offers the builtins that start with it, from the catalog', async ({ page }) => {
  const file = write('e2e_about.json', rich);
  try {
    await page.goto('/workflows/user.e2e_about/edit');
    const text = page.locator('#text');
    const v = await text.inputValue();
    const at = v.indexOf('wr.contracts.gaps');
    await text.evaluate((t: HTMLTextAreaElement, [a, b]) => { t.focus(); t.setSelectionRange(a, b); }, [at, at + 'wr.contracts.gaps'.length]);
    await page.keyboard.type('wr.contracts.re');
    const list = page.getByRole('listbox', { name: 'Builtin names' });
    await expect(list.getByRole('option')).toHaveText(['wr.contracts.review_verdict contract']);
    await expect(text).toHaveAttribute('aria-activedescendant', 'completion-0');
    await page.keyboard.press('Enter');
    await expect(list).toBeHidden();
    expect(await text.inputValue()).toContain('"contractRef": "wr.contracts.review_verdict"');

    // A prefix of several: arrows move, Escape closes and leaves the text alone.
    await page.keyboard.type('", "x": "wr.features.');
    await expect(list.getByRole('option')).not.toHaveCount(0);
    await page.keyboard.press('ArrowDown');
    await expect(text).toHaveAttribute('aria-activedescendant', 'completion-1');
    await page.keyboard.press('Escape');
    await expect(list).toBeHidden();
    expect(await text.inputValue()).toContain('"x": "wr.features."');
  } finally {
    fs.rmSync(file, { force: true });
  }
});

test.describe('on a 390 px wide phone', () => {
  test.use({ viewport: { width: 390, height: 844 } });

  test('the metadata, contract tables, assessments and warnings fit, and so does the editor with its schemas open', async ({ page }) => {
    const file = write('e2e_about.json', rich);
    const ts = write('e2e-ts.json', tsFile);
    try {
      await page.goto('/workflows/user.e2e_about');
      for (const d of await page.locator('[data-testid="contract"] details').all()) await d.locator('summary').click();
      await expectNoSidewaysScroll(page, 'a workflow page with metadata, contracts and assessments');
      await page.goto('/workflows/user.e2e-ts?view=compiled');
      await expectNoSidewaysScroll(page, "a legacy file's compiled view with its warnings");
      await page.goto('/workflows/user.e2e_about/edit');
      const each = page.locator('[data-testid="builtin"][data-kind="contract"][data-builtin="wr.contracts.differentiation_handoff"]');
      await page.getByText(/^Contract packs \(\d+\)$/).click();
      await each.getByText('What it takes (JSON Schema)').click();
      await expectNoSidewaysScroll(page, 'the editor with a contract schema open');
    } finally {
      fs.rmSync(file, { force: true });
      fs.rmSync(ts, { force: true });
    }
  });
});

test('screenshots of the workflow page and a legacy file, phone and desktop, light and dark', async ({ page }, info) => {
  test.setTimeout(90_000);
  const file = write('e2e_about.json', rich);
  const ts = write('e2e-ts.json', tsFile);
  try {
    for (const [name, url] of [['workflow-about', '/workflows/user.e2e_about'], ['workflow-legacy', '/workflows/user.e2e-ts'],
      ['workflow-legacy-compiled', '/workflows/user.e2e-ts?view=compiled']] as const) {
      await page.goto(url);
      await shootPhoneAndDesktop(page, name, (f) => info.outputPath(f));
    }
    await expect(page.getByTestId('dialect')).toBeVisible();
  } finally {
    fs.rmSync(file, { force: true });
    fs.rmSync(ts, { force: true });
  }
});
