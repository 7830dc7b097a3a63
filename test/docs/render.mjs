// The API reference renders in a browser (part of `npm run test:docs`, after `npm run docs`): headless
// Chromium opens the built pages from docs/ and the script checks what its scripts rendered, not
// only the HTML TypeDoc wrote: the landing page is the README, the navigation (filled in by the
// site's JavaScript) lists the four modules, the Client page shows the class with its constructor,
// `request` and its resources, the webhook functions are listed as functions with their examples.
//   node test/docs/render.mjs [--screenshot file.png]   also saves a screenshot of the Client page
// Chromium is a system package: without it the check is skipped locally and fails under CI=true.
import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { mkdtemp, rm } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';

const CHROMIUM = process.env.CHROMIUM_PATH ?? '/usr/bin/chromium';
const FLAGS = [
  '--headless',
  '--no-sandbox',
  '--disable-gpu',
  '--disable-background-networking',
  '--disable-component-update',
  '--disable-sync',
  '--no-first-run',
  '--hide-scrollbars',
  // Let the site's scripts run (navigation, search index) before the DOM is taken.
  '--virtual-time-budget=10000',
];

const docs = fileURLToPath(new URL('../../docs/', import.meta.url));
const screenshotIndex = process.argv.indexOf('--screenshot');
const screenshot = screenshotIndex === -1 ? undefined : path.resolve(process.argv[screenshotIndex + 1]);

if (!existsSync(CHROMIUM)) {
  if (process.env.CI === 'true') {
    console.error(`test:docs: Chromium is required under CI=true and ${CHROMIUM} is missing: apt-get install chromium`);
    process.exit(1);
  }
  console.log('test:docs: render check skipped: apt-get install chromium');
  process.exit(0);
}
const clientPage = path.join(docs, 'classes', 'svc-sdk.Client.html');
if (!existsSync(path.join(docs, 'index.html')) || !existsSync(clientPage)) {
  console.error(`test:docs: ${path.join(docs, 'index.html')} or the Client page is missing: run \`npm run docs\` first`);
  process.exit(1);
}

const profile = await mkdtemp(path.join(os.tmpdir(), 'svc-sdk-docs-chromium-'));
const problems = [];
try {
  const index = await chromium(['--dump-dom', pathToFileURL(path.join(docs, 'index.html')).href]);
  const client = await chromium(['--dump-dom', pathToFileURL(clientPage).href]);
  expect(index, /<h1>svc-sdk - v\d+\.\d+\.\d+<\/h1>/, 'the index page has the title svc-sdk and its version');
  // The modules' list is its own page now that the README is the landing page.
  const modules = await chromium(['--dump-dom', pathToFileURL(path.join(docs, 'modules.html')).href]);
  expect(index, /href="modules\.html"/, 'the index page links to the list of modules');
  for (const module of ['svc-sdk.html', 'svc-sdk_webhooks.html', 'svc-sdk_testing.html', 'svc-sdk_otel.html']) {
    expect(modules, new RegExp(`href="modules/${module.replace('.', '\\.')}"`), `the modules page links to ${module}`);
  }
  expect(client, /<h1>Class Client<\/h1>/, 'the Client page has the heading "Class Client"');
  // Empty in the HTML TypeDoc writes; only the page's scripts fill it in.
  expect(client, /id="tsd-nav-container"><li>/, 'the navigation was rendered by the page\'s scripts');
  expect(client, /href="\.\.\/modules\/svc-sdk_webhooks\.html"/, 'the navigation lists svc-sdk/webhooks');
  for (const member of ['constructor', 'request', 'deals', 'documents', 'webhooks']) {
    expect(client, new RegExp(`id="${member}"`), `the Client page documents ${member}`);
  }
  // The landing page is the README (typedoc.json "readme"), not an empty page.
  for (const heading of ['quick-start', 'receiving-webhooks', 'command-line']) {
    expect(index, new RegExp(`<h[2-4] id="${heading}"`), `the index page shows the README's section #${heading}`);
  }
  // Callable consts (the webhook functions) are listed as functions, each with its @example
  // (test/docs/typedoc-plugin.mjs), and no longer as variables.
  const webhooksModule = await chromium(['--dump-dom', pathToFileURL(path.join(docs, 'modules', 'svc-sdk_webhooks.html')).href]);
  for (const name of ['verifyWebhook', 'verifySignature', 'signPayload', 'createWebhookHandler']) {
    expect(webhooksModule, new RegExp(`href="\\.\\./functions/svc-sdk_webhooks\\.${name}\\.html"`), `svc-sdk/webhooks lists ${name} under Functions`);
    if (existsSync(path.join(docs, 'variables', `svc-sdk_webhooks.${name}.html`))) problems.push(`${name} is still listed under Variables`);
    const page = path.join(docs, 'functions', `svc-sdk_webhooks.${name}.html`);
    if (existsSync(page)) expect(await chromium(['--dump-dom', pathToFileURL(page).href]), /<h4[^>]*>Example/, `the ${name} page shows its example`);
  }
  // A resource method shows its example (every public method has one: test/docs/hover.test.ts).
  const rooms = path.join(docs, 'interfaces', 'svc-sdk.Rooms.html');
  if (existsSync(rooms)) expect(await chromium(['--dump-dom', pathToFileURL(rooms).href]), /id="create"[\s\S]*<h4[^>]*>Example/, 'the Rooms page shows the example of create');
  else problems.push('the Rooms page is missing');
  if (screenshot) {
    await chromium([`--screenshot=${screenshot}`, '--window-size=1280,1000', pathToFileURL(clientPage).href]);
    console.log(`test:docs: screenshot of the Client page in ${screenshot}`);
  }
} finally {
  await rm(profile, { recursive: true, force: true });
}

for (const problem of problems) console.error(`test:docs: ${problem}`);
console.log(`test:docs: the API reference renders in Chromium: ${problems.length ? `${problems.length} problems` : 'ok'}`);
process.exitCode = problems.length ? 1 : 0;

function expect(dom, pattern, what) {
  if (!pattern.test(dom)) problems.push(`expected ${what} (${pattern})`);
}

/** Runs headless Chromium with its own profile; resolves with what it printed (the DOM for --dump-dom). */
function chromium(args) {
  return new Promise((resolve, reject) => {
    const child = spawn(CHROMIUM, [...FLAGS, `--user-data-dir=${profile}`, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const timer = setTimeout(() => child.kill('SIGKILL'), 60_000);
    child.on('close', (code) => {
      clearTimeout(timer);
      if (code === 0) resolve(stdout);
      else reject(new Error(`chromium exited with ${code}: ${stderr.trim().split('\n').slice(-5).join('\n')}`));
    });
  });
}
