// A real npm registry on 127.0.0.1 for test/release/registry.test.ts: Verdaccio (installed on demand
// into test/registry/), holding the packages this workspace publishes and proxying every other name to
// the registry npm is configured with. Each npm and npx command of the test runs against it alone, in
// a folder outside this repository (Node's and npx's resolution walk up parent folders: a folder under
// ours would find our node_modules), with a cache and a user config of its own.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';

export const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const VERDACCIO = join(ROOT, 'test', 'registry', 'node_modules', 'verdaccio', 'bin', 'verdaccio');

/** A free port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer();
    server.once('error', reject);
    server.listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
  });
}

/** A running local registry: its URL, the environment that points npm and npx at it, and a stop. */
export interface LocalRegistry {
  url: string;
  /** A folder outside the repository, removed by `stop`. */
  home: string;
  /** The environment of every npm / npx run against the registry (no npm_* variable of the test's own npm run). */
  env: NodeJS.ProcessEnv;
  stop(): Promise<void>;
}

/** Installs Verdaccio into test/registry/ (once; about 30 s the first time, 1 s after). */
export function installVerdaccio(): void {
  const install = spawnSync(process.execPath, [join(ROOT, 'scripts', 'install-deps.mjs'), 'test/registry'], { cwd: ROOT, encoding: 'utf8' });
  if (install.status !== 0) throw new Error(`[svc-sdk] installing Verdaccio into test/registry failed: ${install.stderr}`);
}

/** The registry npm would use here (the machine's), which Verdaccio proxies for every name but ours. */
function upstreamRegistry(): string {
  const run = spawnSync('npm', ['config', 'get', 'registry'], { encoding: 'utf8' });
  return run.stdout.trim() || 'https://registry.npmjs.org/';
}

/** The test's environment without npm's own variables (an `npm run` sets npm_config_* that would win over the user config). */
function cleanEnv(): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [name, value] of Object.entries(process.env)) if (!/^npm_/i.test(name) && !name.startsWith('SVC_')) env[name] = value;
  // The Node running the tests (24, from node_modules/.bin) first: npx's bins run on it, not on the machine's.
  env.PATH = [dirname(process.execPath), process.env.PATH].join(delimiter);
  return env;
}

/** Starts Verdaccio on a free port with its storage in a new folder outside the repository, and a publishing user. */
export async function startRegistry(): Promise<LocalRegistry> {
  const home = mkdtempSync(join(tmpdir(), 'svc-sdk-registry-'));
  const port = await freePort();
  const url = `http://127.0.0.1:${port}/`;
  const config = join(home, 'config.yaml');
  writeFileSync(
    config,
    [
      `storage: ${join(home, 'storage')}`,
      'auth:',
      '  htpasswd:',
      `    file: ${join(home, 'htpasswd')}`,
      '    max_users: 10',
      'uplinks:',
      '  upstream:',
      `    url: ${upstreamRegistry()}`,
      '    timeout: 60s',
      'packages:',
      // Ours are local only: never fetched from upstream, so what installs is what this test published.
      "  'svc-sdk':",
      '    access: $all',
      '    publish: $authenticated',
      "  '@svc-sdk/*':",
      '    access: $all',
      '    publish: $authenticated',
      "  '**':",
      '    access: $all',
      '    proxy: upstream',
      'log: { type: stdout, format: pretty, level: warn }',
      'web: { enable: false }',
      '',
    ].join('\n'),
  );
  const child: ChildProcess = spawn(process.execPath, [VERDACCIO, '--config', config, '--listen', `127.0.0.1:${port}`], { stdio: ['ignore', 'pipe', 'pipe'], env: cleanEnv() });
  let output = '';
  child.stdout!.on('data', (chunk) => (output += chunk));
  child.stderr!.on('data', (chunk) => (output += chunk));
  const exited = new Promise<void>((resolve) => child.once('exit', () => resolve()));
  // 120 s: on a loaded machine (CI, or seven engineers on two cores) Verdaccio has taken more than 30 s to answer.
  const deadline = Date.now() + 120_000;
  for (;;) {
    const up = await fetch(`${url}-/ping`).then((response) => response.ok, () => false);
    if (up) break;
    if (child.exitCode !== null || Date.now() > deadline) throw new Error(`[svc-sdk] Verdaccio did not start on ${url}: ${output}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  // A user, as `npm adduser` makes one: the answer's token authenticates publishing.
  const user = `ci${Date.now()}`;
  const answer = await fetch(`${url}-/user/org.couchdb.user:${user}`, {
    method: 'PUT',
    headers: { 'content-type': 'application/json' },
    body: JSON.stringify({ name: user, password: 'local-registry-only', type: 'user', roles: [], date: new Date().toISOString() }),
  });
  const { token } = (await answer.json()) as { token?: string };
  if (!answer.ok || !token) throw new Error(`[svc-sdk] Verdaccio refused the user: ${answer.status}`);
  const npmrc = join(home, '.npmrc');
  writeFileSync(npmrc, `registry=${url}\n//127.0.0.1:${port}/:_authToken=${token}\n`);
  mkdirSync(join(home, 'cache'));
  // The tools' state (the MCP server's commit key, credential, secrets) in the registry's home, not the user's.
  const env = { ...cleanEnv(), XDG_STATE_HOME: join(home, 'state'), npm_config_userconfig: npmrc, npm_config_registry: url, npm_config_cache: join(home, 'cache'), npm_config_update_notifier: 'false', npm_config_fund: 'false', npm_config_audit: 'false' };
  return {
    url,
    home,
    env,
    async stop() {
      child.kill('SIGTERM');
      const killed = setTimeout(() => child.kill('SIGKILL'), 5000);
      await exited;
      clearTimeout(killed);
      rmSync(home, { recursive: true, force: true, maxRetries: 3 });
    },
  };
}

/** A new empty folder under the registry's home (outside the repository), with a package.json of an app. */
export function emptyFolder(registry: LocalRegistry, name: string): string {
  const dir = join(registry.home, name);
  mkdirSync(dir);
  writeFileSync(join(dir, 'package.json'), `${JSON.stringify({ name, private: true, type: 'module' })}\n`);
  return dir;
}
