// One screenshot of every Console page, at desktop and phone width, in
// light and dark, for a person to look at; and at phone width no page
// scrolls sideways.
import { test, expect } from './fixtures';

const widths = { desktop: { width: 1280, height: 800 }, phone: { width: 390, height: 844 } };

test('every page, desktop and phone, light and dark', async ({ page, seed }, info) => {
  const f = seed['forked'];
  const b = seed['blocked'];
  const pages: Record<string, string> = {
    home: '/',
    session: `/sessions/${f.sessionId}`,
    run: `/sessions/${f.sessionId}/runs/${f.runId}?expand=node_2&node=node_4`,
    blocked: `/sessions/${b.sessionId}/runs/${b.runId}?node=node_2`,
    gaps: '/gaps',
  };
  for (const [wname, size] of Object.entries(widths)) {
    await page.setViewportSize(size);
    for (const scheme of ['light', 'dark'] as const) {
      await page.emulateMedia({ colorScheme: scheme });
      for (const [name, path] of Object.entries(pages)) {
        await page.goto(path);
        await page.screenshot({ path: info.outputPath(`${name}-${wname}-${scheme}.png`), fullPage: true });
        if (wname === 'phone') {
          const width = await page.evaluate(() => document.documentElement.scrollWidth);
          expect(width, `${name} at 390 px`).toBeLessThanOrEqual(390);
        }
      }
    }
  }
});
