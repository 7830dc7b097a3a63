// The cross-runtime stage of `npm test` (`npm run test:runtimes`): builds and packs the package,
// installs the tarball into a throwaway consumer project, checks the package as npm would publish
// it, then runs one scenario (test/runtimes/consumer/scenario.mjs) in the oldest Node that
// `engines` admits, Node 22, 24 and 26 (import and require), Bun, Deno, workerd and Chromium, runs
// svc-sdk/inbox on Cloudflare Queues in workerd (the receiver and the queue's consumer in one Worker,
// lib/workerd-queue.mjs), builds and serves the README's Next.js recipe, and type-checks TypeScript
// consumers. The tools come from test/runtimes/package.json, installed on demand by the first row,
// never by the root install.
// Rows run one after another (CI has 2 cores); each prints `runtime  version  result  seconds`,
// and the stage ends with `N passed, N failed, N skipped` and a non-zero exit code when any row
// failed. Only a row that needs a system package (Chromium) may skip, and only outside CI.
// RUNTIMES_ROWS=<part>[,<part>…] runs only the rows whose name contains one of the parts (case
// ignored), besides the tools, build and pack rows every row needs, and the server when a selected
// row talks to it; e.g. `RUNTIMES_ROWS='queues' npm run test:runtimes`. Unset (as in CI): every row.
// A selection that matches no row fails the run (a misspelt name must not pass on the setup rows alone).
import { spawn } from 'node:child_process';
import { access, mkdtemp, readdir, readFile, rm, stat } from 'node:fs/promises';
import os from 'node:os';
import path from 'node:path';
import { fileURLToPath } from 'node:url';
import { checkBrowserBuilds, measureSizes, VERIFY_BUDGET_BYTES } from './lib/bundles.mjs';
import { installConsumer, installWarnings, pack, TYPECHECK_PROJECTS } from './lib/consumer.mjs';
import { checkNextRecipe } from './lib/nextjs.mjs';
import { checkPublint, checkPublishFiles, checkTypes } from './lib/packaging.mjs';
import { killGroup, quietNpm, run, scenarioResult, tail } from './lib/process.mjs';
import {
  CHROMIUM_PATH,
  INSTALL_CHROMIUM,
  installMatrixTools,
  matrixBin,
  nodeBinary,
  packageVersion,
  REQUIRE_SYSTEM_PACKAGES,
  versionOf,
} from './lib/runtimes.mjs';

const root = fileURLToPath(new URL('../../', import.meta.url));
const here = path.join(root, 'test', 'runtimes');
// Node: the oldest release package.json's `engines` admits (what it promises), then each
// supported major at its latest.
const NODE_MAJORS = ['22', '24', '26'];
const counts = { passed: 0, failed: 0, skipped: 0 };

/** The rows every other row needs: they run whatever RUNTIMES_ROWS selects (the server joins them when a selected row needs it). */
const ALWAYS_RUN = new Set(['matrix tools (npm install)', 'build (npm run build)', 'npm pack + install']);
/** What RUNTIMES_ROWS selects (lowercase parts of row names), or undefined for every row. */
const ROW_FILTER = process.env.RUNTIMES_ROWS?.trim()
  ? process.env.RUNTIMES_ROWS.split(',').map((part) => part.trim().toLowerCase()).filter(Boolean)
  : undefined;
let unselected = 0;
/** Rows run because RUNTIMES_ROWS named them (the setup rows aside). */
let chosen = 0;

/** Whether the row `runtime` runs: every row, unless RUNTIMES_ROWS names others. */
function selected(runtime) {
  return !ROW_FILTER || ALWAYS_RUN.has(runtime) || ROW_FILTER.some((part) => runtime.toLowerCase().includes(part));
}

/** Thrown by a row whose system package is missing outside CI: the row reports `skip` and why. */
class Skipped extends Error {}

/**
 * Runs one row: `body(meta)` resolves with `{ note }` or throws (a `Skipped` for a skip); the row
 * line says which. The body sets `meta.version` as soon as it knows it, so a failed row still shows
 * what was tested.
 */
async function row(runtime, body) {
  if (!selected(runtime)) {
    unselected += 1;
    return true;
  }
  if (!ALWAYS_RUN.has(runtime)) chosen += 1;
  const started = performance.now();
  const meta = {};
  let outcome;
  try {
    outcome = { ok: true, ...(await body(meta)) };
  } catch (error) {
    outcome = error instanceof Skipped
      ? { ok: true, skipped: true, version: meta.version, note: `skipped: ${error.message}` }
      : { ok: false, version: meta.version, detail: error.message ?? String(error) };
  }
  outcome.version ??= meta.version;
  const seconds = ((performance.now() - started) / 1000).toFixed(1);
  const result = outcome.skipped ? 'skip' : outcome.ok ? 'pass' : 'FAIL';
  counts[outcome.skipped ? 'skipped' : outcome.ok ? 'passed' : 'failed'] += 1;
  const cells = [runtime.padEnd(26), String(outcome.version ?? '-').padEnd(18), result.padEnd(5), `${seconds}s`.padStart(7)];
  console.log(`${cells.join(' ')}${outcome.note ? `  ${outcome.note}` : ''}`);
  if (!outcome.ok) console.log(indent(outcome.detail));
  return outcome.ok;
}

/** A row that cannot run because a step it needs failed: counted as failed, never skipped. */
function notRun(runtime, reason) {
  return row(runtime, () => {
    throw new Error(`not run: ${reason}`);
  });
}

function indent(text, prefix = '    | ') {
  return String(text)
    .split('\n')
    .map((line) => prefix + line)
    .join('\n');
}

/** Runs a scenario entry; resolves with what the scenario observed, or throws its output. */
async function scenario(command, args, { cwd, env, timeoutMs = 90_000 }) {
  const result = await run(command, args, { cwd, env, timeoutMs });
  const observed = scenarioResult(result.stdout);
  if (result.code !== 0 || !observed) {
    const why = result.timedOut ? `timed out after ${timeoutMs / 1000}s` : `exit code ${result.code ?? result.signal}`;
    throw new Error(`${why}\n${tail(`${result.stderr}\n${result.stdout}`, 80)}`);
  }
  return observed;
}

/** The short account of a scenario run that follows its row. */
function summarize(observed) {
  const verify = observed.verify;
  return (
    `deal ${observed.dealId}, room ${observed.roomId}, doc ${observed.documentId}, progress events ${observed.progressEvents}; ` +
    `404 ${observed.errorName}; verify good=${verify.good} tampered=${verify.tampered}; ` +
    `handler ${observed.handler.signed}/${observed.handler.tampered}` +
    (observed.nodeUploads ? `; fileFromPath doc ${observed.nodeUploads.fromDisk}, Readable doc ${observed.nodeUploads.fromStream}` : '')
  );
}

/** Starts serve.mjs in the consumer project; resolves with its URL and process id. */
async function startServer(consumerDir) {
  const child = spawn(process.execPath, ['serve.mjs'], { cwd: consumerDir, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stderr = '';
  child.stderr.on('data', (chunk) => (stderr += chunk));
  return new Promise((resolve, reject) => {
    const timer = setTimeout(() => {
      killGroup(child.pid);
      reject(new Error(`the server did not start in 30s:\n${stderr}`));
    }, 30_000);
    let buffered = '';
    child.stdout.on('data', (chunk) => {
      buffered += chunk;
      const line = buffered.split('\n').find((candidate) => candidate.startsWith('{'));
      if (!line) return;
      clearTimeout(timer);
      resolve({ ...JSON.parse(line), pid: child.pid, stderr: () => stderr });
    });
    child.on('exit', (code) => {
      clearTimeout(timer);
      reject(new Error(`the server exited with ${code}:\n${stderr}`));
    });
  });
}

const WORK_DIR_PREFIX = 'svc-sdk-runtimes-';

/** Removes consumer projects that failed runs kept over an hour ago (a run still going is younger). */
async function removeStaleWorkDirs() {
  const hourAgo = Date.now() - 3_600_000;
  for (const name of await readdir(os.tmpdir())) {
    if (!name.startsWith(WORK_DIR_PREFIX)) continue;
    const dir = path.join(os.tmpdir(), name);
    const info = await stat(dir).catch(() => undefined);
    if (info && info.mtimeMs < hourAgo) await rm(dir, { recursive: true, force: true });
  }
}

/** The oldest version a `>=X[.Y[.Z]]` engines range admits, as X.Y.Z. */
function engineFloor(range) {
  const match = /^>=\s*v?(\d+)(?:\.(\d+))?(?:\.(\d+))?$/.exec(range?.trim() ?? '');
  if (!match) throw new Error(`[runtimes] engines.node must be ">=X[.Y[.Z]]" to derive the oldest Node to test (got ${range})`);
  return `${match[1]}.${match[2] ?? 0}.${match[3] ?? 0}`;
}

const kb = (bytes) => (bytes >= 1000 ? `${(bytes / 1000).toFixed(2)} kB` : `${bytes} B`);

async function main() {
  console.log(`svc-sdk runtime matrix: the packed package in each runtime (runner: Node ${process.versions.node})`);
  console.log(['runtime'.padEnd(26), 'version'.padEnd(18), 'result'.padEnd(5), 'seconds'.padStart(7)].join(' '));
  await removeStaleWorkDirs();
  const workDir = await mkdtemp(path.join(os.tmpdir(), WORK_DIR_PREFIX));
  const npm = `npm ${await versionOf('npm').catch(() => '?')}`;
  const typescript = `typescript ${await packageVersion('typescript', root)}`;
  const esbuild = `esbuild ${await packageVersion('esbuild', root)}`;
  let packed;
  let consumer;
  let server;

  const tools = await row('matrix tools (npm install)', async (meta) => {
    meta.version = npm;
    return { note: `test/runtimes/package.json: ${await installMatrixTools()}` };
  });
  const built = await row('build (npm run build)', async (meta) => {
    meta.version = npm;
    const result = await run('npm', ['run', 'build'], { cwd: root, timeoutMs: 300_000 });
    if (result.code !== 0) throw new Error(tail(quietNpm(`${result.stdout}\n${result.stderr}`), 40));
  });
  const installed = built && tools
    ? await row('npm pack + install', async (meta) => {
        meta.version = npm;
        packed = await pack(root, workDir);
        consumer = await installConsumer({ root, workDir, tarball: packed.tarball });
        const peers = consumer.peers.length ? `, peers: ${consumer.peers.join(', ')}` : '';
        return { note: `${path.basename(packed.tarball)}, ${kb(packed.size)} packed${peers}` };
      })
    : await notRun('npm pack + install', tools ? 'the build failed' : 'the matrix tools are not installed');
  const unpacked = 'the package was not packed and installed';
  await (installed
    ? row('npm install (no warnings)', async (meta) => {
        meta.version = npm;
        const warnings = await installWarnings(workDir, packed.tarball);
        if (warnings.length) throw new Error(`npm warned a user installing the package:\n${warnings.join('\n')}`);
        return { note: 'the tarball alone, in a fresh project' };
      })
    : notRun('npm install (no warnings)', unpacked));

  // Packaging: what npm would publish, and what tools and bundlers make of it.
  const packaging = [
    ['npm publish --dry-run', async () => ({ version: npm, note: await checkPublishFiles(root) })],
    ['publint --strict', async () => ({ version: `publint ${await packageVersion('publint')}`, note: await checkPublint(root, packed.tarball) })],
    ['attw (packed tarball)', async () => ({ version: `attw ${await packageVersion('@arethetypeswrong/cli')}`, note: await checkTypes(root, packed.tarball) })],
    ['browser builds (esbuild)', async () => ({ version: esbuild, note: await checkBrowserBuilds(consumer.consumerDir) })],
  ];
  for (const [name, body] of packaging) await (installed ? row(name, body) : notRun(name, unpacked));

  let sizes;
  await (installed
    ? row('size budget (min+gzip)', async (meta) => {
        meta.version = esbuild;
        sizes = await measureSizes(consumer.consumerDir, root);
        const note = `webhooks verify-only ${sizes.verify.gzipped} B (budget ${VERIFY_BUDGET_BYTES} B)`;
        if (!sizes.withinBudget) throw new Error(`${note}: over budget`);
        return { note };
      })
    : notRun('size budget (min+gzip)', unpacked));
  if (sizes) printSizes(sizes);

  const blocked = installed ? 'the server did not start' : unpacked;
  const cwd = consumer?.consumerDir;

  const floor = engineFloor(JSON.parse(await readFile(path.join(root, 'package.json'), 'utf8')).engines?.node);
  const nodeRuntimes = [
    { spec: floor, name: `node ${floor}` },
    ...NODE_MAJORS.map((major) => ({ spec: major, name: `node ${major}` })),
  ];
  const scenarioRows = [];
  for (const { spec, name } of nodeRuntimes) {
    let binary;
    for (const [kind, entry] of [['import', 'node-import.mjs'], ['require', 'node-require.cjs']]) {
      scenarioRows.push([`${name} (${kind})`, async (meta) => {
        binary ??= await nodeBinary(spec);
        meta.version = (await versionOf(binary)).replace(/^v/, '');
        return scenario(binary, [entry, server.url, `node${spec}-${kind}`], { cwd });
      }]);
    }
  }
  scenarioRows.push(
    ['bun', async (meta) => {
      const bun = matrixBin('bun');
      meta.version = await versionOf(bun);
      return scenario(bun, ['node-import.mjs', server.url, 'bun'], { cwd });
    }],
    ['deno', async (meta) => {
      const deno = matrixBin('deno');
      meta.version = (await versionOf(deno)).split(' ')[1];
      // Deno reads the consumer's node_modules (package.json present); its own cache stays in workDir.
      const env = { ...process.env, DENO_DIR: path.join(workDir, 'deno-dir'), DENO_NO_UPDATE_CHECK: '1', NO_COLOR: '1' };
      // Write access to the temp dir only: the Node-only checks upload a file they write there.
      const args = ['run', '--allow-net=127.0.0.1', '--allow-env', '--allow-read', `--allow-write=${os.tmpdir()}`, 'node-import.mjs', server.url, 'deno'];
      return scenario(deno, args, { cwd, env });
    }],
    ['workerd (miniflare)', async (meta) => {
      const workerd = (await versionOf(matrixBin('workerd'))).split(' ')[1];
      meta.version = `${workerd} (mf ${(await packageVersion('miniflare')).split('.')[0]})`;
      return scenario(process.execPath, [path.join(here, 'lib/workerd.mjs'), cwd, server.url], { cwd: root });
    }],
    ['chromium (playwright)', async (meta) => {
      await access(CHROMIUM_PATH).catch(() => {
        // Chromium needs root to install: a contributor's `npm test` skips the row, CI requires it.
        if (!REQUIRE_SYSTEM_PACKAGES) throw new Skipped(`${CHROMIUM_PATH} is missing: ${INSTALL_CHROMIUM}`);
        throw new Error(`${CHROMIUM_PATH} is missing (required under CI=true): ${INSTALL_CHROMIUM}`);
      });
      meta.version = (await versionOf(CHROMIUM_PATH)).match(/[\d.]+/)?.[0];
      const args = [path.join(here, 'lib/chromium.mjs'), cwd, server.url, workDir];
      return scenario(process.execPath, args, { cwd: root, timeoutMs: 120_000 });
    }],
  );

  // The service the scenario talks to, served over HTTP on 127.0.0.1 by the consumer project itself.
  const SERVER_ROW = 'server (serve.mjs)';
  if (scenarioRows.some(([name]) => selected(name))) ALWAYS_RUN.add(SERVER_ROW);
  if (installed) {
    await row(SERVER_ROW, async (meta) => {
      meta.version = `node ${process.versions.node}`;
      server = await startServer(consumer.consumerDir);
      return { note: `the emulator of svc-sdk/testing at ${server.url}, with CORS` };
    });
  }

  try {
    for (const [name, body] of scenarioRows) {
      if (!server) {
        await notRun(name, blocked);
        continue;
      }
      await row(name, async (meta) => ({ note: summarize(await body(meta)) }));
    }

    // svc-sdk/inbox on Cloudflare Queues: the receiver and the queue's consumer in one Worker, under
    // Miniflare (lib/workerd-queue.mjs); it needs no emulator, only the packed package.
    const queuesRow = 'workerd queues (inbox)';
    await (installed
      ? row(queuesRow, async (meta) => {
          const workerd = (await versionOf(matrixBin('workerd'))).split(' ')[1];
          meta.version = `${workerd} (mf ${(await packageVersion('miniflare')).split('.')[0]})`;
          const observed = await scenario(process.execPath, [path.join(here, 'lib/workerd-queue.mjs'), cwd], { cwd: root, timeoutMs: 60_000 });
          const { dlv_normal: normal, dlv_throw_once: flaky, dlv_always_throws: failing } = observed;
          return {
            note:
              `forged ${observed.statuses.forged}, never queued; a delivery and its retry answered ${observed.statuses.normal}/${observed.statuses.retry}, ` +
              `queued ${normal.seen}x, on run ${normal.runs}x; on throwing once: delivered ${flaky.seen}x, done ${flaky.done}x; ` +
              `on always throwing: run ${failing.runs}x, dead-lettered ${failing.dead}x; over 128 KB: ${observed.statuses.oversized}, onError told why`,
          };
        })
      : notRun(queuesRow, unpacked));

    // Next.js: the README's App Router recipe built (without SVC_WEBHOOK_SECRET) and served by Next itself.
    await (installed
      ? row('next build + start', async (meta) => {
          try {
            const { version, note } = await checkNextRecipe(workDir, packed.tarball);
            meta.version = `next ${version}`;
            return { note };
          } catch (error) {
            if (error.version) meta.version = `next ${error.version}`;
            throw error;
          }
        })
      : notRun('next build + start', unpacked));

    // TypeScript consumers: the package's types under each moduleResolution, with the project's tsc.
    for (const { name, compilerOptions } of TYPECHECK_PROJECTS) {
      const label = `tsc ${name}`;
      if (!installed) {
        await notRun(label, unpacked);
        continue;
      }
      await row(label, async (meta) => {
        meta.version = typescript;
        const tsc = path.join(root, 'node_modules/typescript/bin/tsc');
        const project = path.join(cwd, `types-${name}`);
        const result = await run(process.execPath, [tsc, '-p', project], { cwd: project, timeoutMs: 120_000 });
        if (result.code !== 0) throw new Error(tail(`${result.stdout}\n${result.stderr}`, 30));
        return { note: `moduleResolution ${compilerOptions.moduleResolution}` };
      });
    }
  } finally {
    if (server) {
      const serverErrors = server.stderr().trim();
      if (serverErrors) console.log(`server stderr:\n${indent(tail(serverErrors, 20))}`);
      killGroup(server.pid);
    }
  }

  if (unselected) console.log(`RUNTIMES_ROWS=${process.env.RUNTIMES_ROWS}: ${unselected} rows not run`);
  if (ROW_FILTER && chosen === 0) {
    console.log(`RUNTIMES_ROWS=${process.env.RUNTIMES_ROWS} matches no row: name a part of a row's name, as printed`);
    counts.failed += 1;
  }
  if (counts.failed === 0) await rm(workDir, { recursive: true, force: true });
  else console.log(`consumer project kept for inspection: ${workDir}`);
  console.log(`${counts.passed} passed, ${counts.failed} failed, ${counts.skipped} skipped`);
  process.exitCode = counts.failed ? 1 : 0;
}

function printSizes({ verify, handler, client, ky, zodMini }) {
  const share = Object.entries(client.byPackage)
    .filter(([name]) => name !== 'entry')
    .sort(([, a], [, b]) => b - a)
    .map(([name, bytes]) => `${name} ${Math.round((bytes / client.minified) * 100)}%`)
    .join(', ');
  const lines = [
    `svc-sdk/webhooks, verifySignature only        ${kb(verify.gzipped).padStart(9)}  (${kb(verify.minified)} min; budget ${VERIFY_BUDGET_BYTES} B)`,
    `svc-sdk/webhooks, createWebhookHandler        ${kb(handler.gzipped).padStart(9)}  (${kb(handler.minified)} min)`,
    `svc-sdk, every export (Client, errors, hooks) ${kb(client.gzipped).padStart(9)}  (${kb(client.minified)} min: ${share})`,
    `ky alone                                      ${kb(ky.gzipped).padStart(9)}  (${kb(ky.minified)} min)`,
    `zod/mini, whole namespace                     ${kb(zodMini.gzipped).padStart(9)}  (${kb(zodMini.minified)} min)`,
    `ky + zod/mini (sum of the two)                ${kb(ky.gzipped + zodMini.gzipped).padStart(9)}`,
  ];
  console.log(indent(lines.join('\n'), '    '));
}

await main().catch((error) => {
  // A failure of the runner itself still ends with the closing line CI reads.
  console.log(indent(error?.stack ?? String(error)));
  console.log(`${counts.passed} passed, ${counts.failed + 1} failed, ${counts.skipped} skipped`);
  process.exitCode = 1;
});
