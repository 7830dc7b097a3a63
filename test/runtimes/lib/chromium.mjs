// Runs the scenario in Debian's Chromium, driven by playwright-core: bundles consumer/browser.mjs
// from the packed package (browser conditions), serves the page from its own origin (the API is
// on another port, so every call crosses CORS), and reads the outcome the page leaves.
// Usage: chromium.mjs <consumerDir> <apiUrl> <workDir>.
import { createServer } from 'node:http';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import path from 'node:path';
import * as esbuild from 'esbuild';
import { chromium } from 'playwright-core';
import { CHROMIUM_PATH } from './runtimes.mjs';

const [consumerDir, apiUrl, workDir] = process.argv.slice(2);

const built = await esbuild.build({
  entryPoints: [path.join(consumerDir, 'browser.mjs')],
  absWorkingDir: consumerDir,
  bundle: true,
  write: false,
  format: 'esm',
  platform: 'browser',
  target: 'es2023',
  logLevel: 'silent',
});
const files = {
  '/index.html': { type: 'text/html', body: await readFile(path.join(consumerDir, 'index.html')) },
  '/bundle.js': { type: 'text/javascript', body: built.outputFiles[0].contents },
  '/favicon.ico': { type: 'image/x-icon', body: new Uint8Array(0) }, // keeps a 404 out of the console
};
const pages = createServer((request, response) => {
  const file = files[new URL(request.url, 'http://page.test').pathname];
  if (!file) return response.writeHead(404).end();
  response.writeHead(200, { 'content-type': file.type }).end(file.body);
});
await new Promise((resolve) => pages.listen(0, '127.0.0.1', resolve));
const pageUrl = `http://127.0.0.1:${pages.address().port}/index.html?api=${encodeURIComponent(apiUrl)}`;

// Playwright adds --headless and --user-data-dir itself (a fresh profile each run); the flags below
// keep Chromium off the network it cannot reach here (background services, QUIC, updates, sync).
const userDataDir = await mkdtemp(path.join(workDir, 'chromium-profile-'));
const context = await chromium.launchPersistentContext(userDataDir, {
  executablePath: CHROMIUM_PATH,
  headless: true,
  args: [
    '--no-sandbox',
    '--disable-gpu',
    '--disable-quic',
    '--no-first-run',
    '--disable-background-networking',
    '--disable-component-update',
    '--disable-sync',
  ],
});
const logs = [];
try {
  const page = context.pages()[0] ?? (await context.newPage());
  page.on('console', (message) => logs.push(`console.${message.type()}: ${message.text()}`));
  page.on('pageerror', (error) => logs.push(`page error: ${error.message}`));
  await page.goto(pageUrl);
  await page.waitForFunction(() => window.__svcOutcome !== undefined, null, { timeout: 30_000 });
  const outcome = await page.evaluate(() => window.__svcOutcome);
  if (!outcome.ok) throw new Error(`${outcome.error}\n${logs.join('\n')}`);
  console.log(`SCENARIO_RESULT ${JSON.stringify(outcome.observed)}`);
} catch (error) {
  if (logs.length) console.error(logs.join('\n'));
  throw error;
} finally {
  await context.close();
  pages.close();
  await rm(userDataDir, { recursive: true, force: true });
}
