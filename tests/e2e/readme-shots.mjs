// Refreshes the README screenshots of the preview panel (www/screenshots/):
// the seed at 1440x900 in English, the whole-panel view, the seed on a phone
// in Chinese. Needs pkg/ built and tests/e2e/node_modules (npm ci).
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
const root = path.resolve(path.dirname(fileURLToPath(import.meta.url)), '..', '..');
const { chromium } = await import(pathToFileURL(path.join(root, 'tests/e2e/node_modules/playwright-core/index.mjs')).href);
const { startServer } = await import(pathToFileURL(path.join(root, 'www', 'serve.mjs')).href);
const srv = await startServer({});
const port = srv.address ? srv.address().port : srv.port;
const browser = await chromium.launch({ executablePath: '/usr/bin/chromium', args: ['--no-sandbox', '--headless', '--disable-gpu', '--no-first-run', '--disable-background-networking', '--disable-component-update', '--disable-sync'] });
for (const [name, vp, lang, example] of [['desktop-en', { width: 1440, height: 900 }, 'en', 'seed-federated-middle'], ['phone-zh', { width: 390, height: 844 }, 'zh', 'seed-federated-middle'], ['panel-en', { width: 1440, height: 900 }, 'en', 'panel-backup']]) {
  const ctx = await browser.newContext({ viewport: vp, deviceScaleFactor: 1 });
  await ctx.addInitScript((l) => localStorage.setItem('hop-policy-lang', l), lang);
  const page = await ctx.newPage();
  await page.goto(`http://127.0.0.1:${port}/www/`);
  await page.waitForFunction(() => window.hopPreview && window.hopPreview.ready);
  if (example !== 'seed-federated-middle') {
    await page.selectOption('#example', example);
    await page.waitForFunction(() => document.querySelectorAll('#fleet-body tbody tr').length > 0);
  }
  await page.waitForTimeout(300);
  await page.screenshot({ path: path.join(root, 'www/screenshots', `${name}.png`) });
  await ctx.close();
}
await browser.close(); srv.close && srv.close();
process.exit(0);
