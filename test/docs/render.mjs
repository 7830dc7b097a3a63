// The API reference renders in a browser (part of `npm run test:docs`, after `npm run docs`): headless
// Chromium opens the built pages from docs/ and the script checks what its scripts rendered, not
// only the HTML TypeDoc wrote: the landing page is the README, the navigation (filled in by the
// site's JavaScript) lists the packages and entry points in their order, the library's Client first
// with its resources under it and the params, responses and other types in collapsed categories
// (test/docs/typedoc-plugin.mjs), the Client page shows the class with its constructor, `request`
// and its resources, the webhook functions are listed as functions with their examples.
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

/**
 * The entries of the sidebar, in the order a reader sees them: the library's entry points as
 * typedoc.json lists them (another may come between them), then the tool packages.
 */
const ENTRIES = ['svc-sdk', 'svc-sdk/webhooks', 'svc-sdk/testing', 'svc-sdk/otel', 'svc-sdk/inbox'];
const PACKAGES = ['@svc-sdk/mcp'];
/** The Client's resources, as its properties declare them. */
const RESOURCES = ['Deals', 'Rooms', 'Transactions', 'Documents', 'Search', 'Webhooks'];
/** A type of each folded category, where a reader looks for it. */
const FOLDED = { 'Params and options': 'DealCreateParams', Responses: 'Deal', 'Webhook events': 'DocumentUploadedData', 'Hooks and logging': 'ClientHooks' };

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
  // The sidebar, as the page's scripts built it: the entries in order, the Client first, the types folded away.
  checkNavigation(navigationOf(index), 'the index page', { current: undefined });
  checkNavigation(navigationOf(client), 'the Client page', { current: 'svc-sdk$Client' });
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
    // A profile of its own: the sidebar as a first visit shows it, not as the pages opened above left it.
    const fresh = await mkdtemp(path.join(os.tmpdir(), 'svc-sdk-docs-chromium-'));
    try {
      await chromium([`--screenshot=${screenshot}`, '--window-size=1280,1000', pathToFileURL(clientPage).href], fresh);
    } finally {
      await rm(fresh, { recursive: true, force: true });
    }
    console.log(`test:docs: screenshot of the Client page in ${screenshot}`);
  }
} finally {
  await rm(profile, { recursive: true, force: true });
}

for (const problem of problems) console.error(`test:docs: ${problem}`);
console.log(`test:docs: the API reference renders in Chromium: ${problems.length ? `${problems.length} problems` : 'ok'}`);
process.exitCode = problems.length ? 1 : 0;

function checkNavigation(nav, page, { current }) {
  const top = nav.map((node) => node.key ?? node.href);
  const library = top.filter((key) => !key.startsWith('@'));
  const order = library.filter((key) => ENTRIES.includes(key));
  if (top[0] !== 'svc-sdk' || order.join() !== ENTRIES.join() || top.slice(library.length).join() !== PACKAGES.join() || top.slice(0, library.length).join() !== library.join()) {
    problems.push(`${page}: the sidebar lists ${top.join(', ')}; expected ${ENTRIES.join(', ')} (in this order, others between them allowed), then ${PACKAGES.join(', ')}`);
  }
  const sdk = nav.find((node) => node.key === 'svc-sdk');
  if (!sdk) return;
  const [first, ...rest] = sdk.children;
  if (first?.key !== 'svc-sdk$Client' || !first.href?.endsWith('classes/svc-sdk.Client.html')) problems.push(`${page}: the Client is not the first entry of svc-sdk (${first?.key ?? first?.href})`);
  const resources = (first?.children ?? []).map((node) => node.href?.match(/interfaces\/svc-sdk\.(\w+)\.html$/)?.[1]);
  if (resources.join() !== RESOURCES.join()) problems.push(`${page}: the Client's resources under it are ${resources.join(', ')}; expected ${RESOURCES.join(', ')}`);
  // Every other entry of svc-sdk is a category, and none is open unless it holds the current page.
  const loose = rest.filter((node) => !node.key || node.href).map((node) => node.href ?? node.key);
  if (loose.length) problems.push(`${page}: svc-sdk lists ${loose.length} entries outside a category: ${loose.slice(0, 5).join(', ')}${loose.length > 5 ? ', ...' : ''}`);
  const open = rest.filter((node) => node.key && !node.href && node.open && node.key !== current).map((node) => node.key);
  if (open.length) problems.push(`${page}: categories open by default: ${open.join(', ')}`);
  for (const [category, name] of Object.entries(FOLDED)) {
    const node = rest.find((n) => n.key === `svc-sdk$${category}`);
    if (!node) problems.push(`${page}: svc-sdk has no category "${category}"`);
    else if (!node.children.some((c) => new RegExp(`/svc-sdk\\.${name}\\.html$`).test(c.href ?? ''))) problems.push(`${page}: ${name} is not in the category "${category}"`);
  }
  if (sdk.open !== (current !== undefined)) problems.push(`${page}: svc-sdk is ${sdk.open ? 'open' : 'closed'} in the sidebar`);
}

/**
 * The sidebar's tree from the DOM the page's scripts built: each item has the accordion key of its
 * <summary> (the path of titles joined by $), the href of its link, whether it is open, its children.
 */
function navigationOf(dom) {
  const start = dom.indexOf('id="tsd-nav-container"');
  if (start === -1) return [];
  const root = { children: [] };
  const stack = [root];
  for (const [, close, tag, attributes] of dom.slice(start).matchAll(/<(\/?)(li|details|summary|a|ul)\b([^>]*)>/g)) {
    const node = stack.at(-1);
    if (tag === 'ul' && close && stack.length === 1) break;
    if (tag === 'li' && !close) stack.push({ children: [] });
    else if (tag === 'li' && node !== root) {
      stack.pop();
      stack.at(-1).children.push(node);
    }
    else if (tag === 'details' && !close) node.open = /\sopen(=|\s|$)/.test(attributes);
    else if (tag === 'summary' && !close) node.key = attributes.match(/data-key="([^"]*)"/)?.[1];
    else if (tag === 'a' && !close) node.href ??= attributes.match(/href="([^"]*)"/)?.[1];
  }
  return root.children;
}

function expect(dom, pattern, what) {
  if (!pattern.test(dom)) problems.push(`expected ${what} (${pattern})`);
}

/** Runs headless Chromium with its own profile; resolves with what it printed (the DOM for --dump-dom). */
function chromium(args, userDataDir = profile) {
  return new Promise((resolve, reject) => {
    const child = spawn(CHROMIUM, [...FLAGS, `--user-data-dir=${userDataDir}`, ...args], { stdio: ['ignore', 'pipe', 'pipe'] });
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
