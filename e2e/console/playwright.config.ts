// Playwright tests of the Console: run `task console-e2e` from the repo root
// (or `npx playwright test -c console` in e2e/ after `npm ci`). They run in
// Debian's headless Chromium (/usr/bin/chromium-headless-shell, package
// chromium-headless-shell); Playwright never downloads a browser.
import { defineConfig } from '@playwright/test';

export default defineConfig({
  testDir: '.',
  testMatch: '*.spec.ts',
  // Under e2e/, where .gitignore already keeps it out of the repo.
  outputDir: '../test-results',
  globalSetup: './global-setup.ts',
  // One daemon serves every spec and some specs advance its runs: run the
  // tests one at a time, in file order, so each sees a known state.
  workers: 1,
  fullyParallel: false,
  forbidOnly: !!process.env.CI,
  retries: 0,
  timeout: 30_000,
  expect: { timeout: 5_000 },
  reporter: [['list']],
  use: {
    browserName: 'chromium',
    headless: true,
    // Chromium's headless shell, the build Playwright itself runs headless
    // tests in: the same Blink and V8 as Debian's `chromium`, without the
    // desktop browser's windows and profile services. A fresh context and
    // page cost about 0.2 CPU-seconds in it against 0.7 in `chromium
    // --headless`, whose browser process builds a window and its toolbar's
    // renderer for every page: the suite takes about 130 CPU-seconds
    // instead of 280, and a quarter to a third less time, for the same
    // passes.
    launchOptions: { executablePath: '/usr/bin/chromium-headless-shell' },
    // No trace: recording one for every test (to keep a failed test's)
    // cost the suite about an eighth of its CPU, and CI keeps only what the
    // run prints. To debug a failure, run its spec again with
    // `--trace retain-on-failure` and open the trace with
    // `npx playwright show-trace`. A failed test still leaves its
    // screenshot and its page's accessibility snapshot in test-results.
    trace: 'off',
    screenshot: 'only-on-failure',
  },
});
