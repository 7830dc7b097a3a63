// The README's Next.js App Router recipe as a real Next.js app: `next build` without
// SVC_WEBHOOK_SECRET (Next evaluates route modules while building, so a handler that needs its
// secret at import fails there), then `next start` on 127.0.0.1 with the secret set, and a signed
// delivery (200) and a tampered one (401) to the built route. Next, React and their types come in
// the versions test/runtimes/package.json lists, installed into the app from the npm cache.
import { createHmac } from 'node:crypto';
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import { createServer } from 'node:net';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { extractBlocks } from '../../readme/extract.mjs';
import { killGroup, quietNpm, run, tail } from './process.mjs';
import { spawn } from 'node:child_process';

const ROOT = fileURLToPath(new URL('../../../', import.meta.url));
const MATRIX_MANIFEST = fileURLToPath(new URL('../package.json', import.meta.url));
/** The recipe's route file, named in the README block itself. */
const ROUTE = 'app/api/webhooks/route.ts';
const SECRET = 'whsec_next_matrix';

/** The README's TypeScript block that names app/api/webhooks/route.ts: the recipe under test. */
export async function nextRecipe() {
  const blocks = extractBlocks(await readFile(path.join(ROOT, 'README.md'), 'utf8'), 'README.md');
  const block = blocks.find((candidate) => candidate.extension === '.ts' && candidate.code.includes(ROUTE));
  if (!block) throw new Error(`README.md has no TypeScript block naming ${ROUTE} (the Next.js recipe)`);
  return block;
}

/** A free port on 127.0.0.1. */
function freePort() {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address();
      server.close(() => resolve(port));
    });
  });
}

/** Installs an app of the recipe in `workDir/next-app` with the packed tarball; resolves with its directory. */
async function createApp(workDir, tarball) {
  const dir = path.join(workDir, 'next-app');
  const { devDependencies: tools } = JSON.parse(await readFile(MATRIX_MANIFEST, 'utf8'));
  const { devDependencies: own } = JSON.parse(await readFile(path.join(ROOT, 'package.json'), 'utf8'));
  // Next, React and React's types from the matrix's manifest; TypeScript and @types/node as the project pins them.
  const pick = (...names) => Object.fromEntries(names.map((name) => [name, tools[name] ?? own[name]]));
  await mkdir(path.join(dir, path.dirname(ROUTE)), { recursive: true });
  const manifest = {
    name: 'svc-sdk-next-recipe',
    private: true,
    dependencies: { 'svc-sdk': `file:${path.relative(dir, tarball)}`, ...pick('next', 'react', 'react-dom') },
    devDependencies: { ...pick('typescript', '@types/react', '@types/node') },
  };
  await writeFile(path.join(dir, 'package.json'), `${JSON.stringify(manifest, null, 2)}\n`);
  await writeFile(path.join(dir, ROUTE), (await nextRecipe()).code);
  const install = await run('npm', ['install', '--no-audit', '--no-fund', '--prefer-offline', '--no-package-lock', '--loglevel=error'], {
    cwd: dir,
    timeoutMs: 600_000,
  });
  if (install.code !== 0) throw new Error(`npm install of the Next.js app failed:\n${tail(quietNpm(install.stderr + install.stdout))}`);
  return dir;
}

/** The environment of `next`: the machine's, without SVC_WEBHOOK_SECRET, plus `extra`. */
function nextEnv(extra = {}) {
  const env = { ...process.env, NEXT_TELEMETRY_DISABLED: '1', ...extra };
  if (!('SVC_WEBHOOK_SECRET' in extra)) delete env.SVC_WEBHOOK_SECRET;
  return env;
}

/** Starts `next start` and resolves once it answers; `stop()` ends its process group. */
async function start(dir, port) {
  const child = spawn(process.execPath, [path.join(dir, 'node_modules/next/dist/bin/next'), 'start', '-H', '127.0.0.1', '-p', String(port)], {
    cwd: dir,
    env: nextEnv({ SVC_WEBHOOK_SECRET: SECRET }),
    detached: true,
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  let output = '';
  child.stdout.on('data', (chunk) => (output += chunk));
  child.stderr.on('data', (chunk) => (output += chunk));
  const stop = () => killGroup(child.pid);
  for (let waited = 0; waited < 60_000; waited += 250) {
    if (child.exitCode !== null) throw new Error(`next start exited ${child.exitCode}:\n${tail(output)}`);
    const ready = await fetch(`http://127.0.0.1:${port}/`, { signal: AbortSignal.timeout(2000) }).then(() => true, () => false);
    if (ready) return { stop, output: () => output };
    await new Promise((resolve) => setTimeout(resolve, 250));
  }
  stop();
  throw new Error(`next start did not answer within 60 s:\n${tail(output)}`);
}

/** Builds the app without the secret, serves it, and sends a signed and a tampered delivery. */
export async function checkNextRecipe(workDir, tarball) {
  const dir = await createApp(workDir, tarball);
  const next = path.join(dir, 'node_modules/next/dist/bin/next');
  const version = JSON.parse(await readFile(path.join(dir, 'node_modules/next/package.json'), 'utf8')).version;
  const build = await run(process.execPath, [next, 'build'], { cwd: dir, env: nextEnv(), timeoutMs: 600_000 });
  if (build.code !== 0) throw Object.assign(new Error(`next build without SVC_WEBHOOK_SECRET failed:\n${tail(`${build.stdout}\n${build.stderr}`, 30)}`), { version });
  const port = await freePort();
  const server = await start(dir, port);
  try {
    const body = JSON.stringify({ event: 'credit.low', version: '1.0', delivery_id: crypto.randomUUID(), timestamp: new Date().toISOString(), data: { balance: 90, threshold: 100 } });
    const signature = `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}`;
    const url = `http://127.0.0.1:${port}/api/webhooks`;
    const post = (payload, header) => fetch(url, { method: 'POST', headers: { 'content-type': 'application/json', 'x-svc-signature': header }, body: payload });
    const signed = await post(body, signature);
    const tampered = await post(body.replace('"balance":90', '"balance":9'), signature);
    if (signed.status !== 200 || tampered.status !== 401) {
      throw Object.assign(new Error(`signed delivery: ${signed.status} (want 200), tampered: ${tampered.status} (want 401)\n${tail(server.output())}`), { version });
    }
    return { version, note: `next build without SVC_WEBHOOK_SECRET, then next start: signed 200, tampered 401 at /api/webhooks` };
  } finally {
    server.stop();
  }
}
