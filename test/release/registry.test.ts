// What an integrator gets from a registry, seen whole: every package of the workspace packed and
// published to a real npm registry on 127.0.0.1 (Verdaccio, test/release/registry.ts) with the pack
// command the release workflow runs, then installed from it into empty folders outside this
// repository: the library alone is 2 packages; each `npx` one-liner of the README (read from the
// README, so the two cannot drift) runs as pasted, and the MCP host configs start under a real MCP
// client. Needs the build (npm test builds before vitest runs) and the npm registry, which Verdaccio
// proxies for every name but ours.
import { Client as McpClient, StreamableHTTPClientTransport } from '@modelcontextprotocol/client';
import { StdioClientTransport } from '@modelcontextprotocol/client/stdio';
import { spawn, spawnSync } from 'node:child_process';
import { existsSync, mkdirSync, readdirSync, readFileSync, statSync, writeFileSync } from 'node:fs';
import { createServer, type Server } from 'node:http';
import { connect } from 'node:net';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { readmeHostConfig } from '../support/readme-host-config.js';
import { hasRedis, reportMissingRedis } from '../webhooks/redis-server.js';
import { emptyFolder, freePort, installVerdaccio, ROOT, startRegistry, type LocalRegistry } from './registry.js';

const built = ['dist/index.js', 'packages/mcp/dist/index.js', 'packages/cli/dist/cli.js'].every((file) => existsSync(join(ROOT, file)));
if (!built) console.warn('[svc-sdk] skipping the registry test: a package is not built; run "npm run build" first (npm test does)');
reportMissingRedis();
/** The doctor line's CA file is made with the openssl CLI (.ci/run installs it). */
const hasOpenssl = spawnSync('openssl', ['version']).status === 0;
if (!hasOpenssl && process.env.CI === 'true') throw new Error('openssl is missing, and CI=true requires it: .ci/run installs it (apt-get install openssl)');
if (!hasOpenssl) it.skip('skipped: apt-get install openssl', () => {});
const README = readFileSync(join(ROOT, 'README.md'), 'utf8');
const VERSION = (JSON.parse(readFileSync(join(ROOT, 'package.json'), 'utf8')) as { version: string }).version;

/** The release workflow's own steps: the pack command, and the order its publish loop stages the tarballs in. */
function releaseSteps() {
  type Step = { name?: string; run?: string };
  const jobs = (parse(readFileSync(join(ROOT, '.github/workflows/release.yml'), 'utf8')) as { jobs: Record<string, { steps: Step[] }> }).jobs;
  const pack = jobs.test!.steps.find((step) => step.run?.startsWith('npm pack'))!.run!.trim();
  const loop = /for tarball in ([^;]+); do/.exec(jobs.publish!.steps.at(-1)!.run!)![1]!.trim().split(/\s+/);
  // Each shell glob (./svc-sdk-[0-9]*.tgz) as the regular expression it stands for.
  return { pack, order: loop.map((glob) => new RegExp(`^${glob.replace('./', '').replace(/\./g, '\\.').replace('*', '.*')}$`)) };
}

/** Every `npx` line of the README that runs @svc-sdk/cli: in sh blocks (comments cut) and in inline code. */
export function readmeOneLiners(markdown: string): string[] {
  const lines = new Set<string>();
  for (const [, block] of markdown.matchAll(/```sh\n([\s\S]*?)```/g)) {
    for (const line of block!.split('\n')) {
      const command = line.replace(/\s{2,}#.*$/, '').trim();
      if (/(^|\s)npx (-y )?@svc-sdk\/cli\b/.test(command) && !command.startsWith('#')) lines.add(command);
    }
  }
  for (const [, code] of markdown.matchAll(/`(npx [^`]+)`/g)) if (/^npx (-y )?@svc-sdk\/cli \w/.test(code!)) lines.add(code!);
  return [...lines];
}

/** The lines of the README's sh blocks that start with `command ` (the inbox's `redis-server …`). */
function readmeShellLines(markdown: string, command: string): string[] {
  return [...markdown.matchAll(/```sh\n([\s\S]*?)```/g)].flatMap(([, block]) => block!.split('\n')).filter((line) => line.startsWith(`${command} `));
}

/** Resolves once a Redis answers PING on 127.0.0.1:`port` (30 s at most). */
async function redisAnswers(port: number): Promise<void> {
  const ping = () =>
    new Promise<boolean>((resolve) => {
      const socket = connect(port, '127.0.0.1', () => socket.write('PING\r\n'));
      socket.once('data', (chunk) => (socket.destroy(), resolve(String(chunk).startsWith('+PONG'))));
      socket.once('error', () => resolve(false));
    });
  for (const deadline = Date.now() + 30_000; !(await ping()); ) {
    if (Date.now() > deadline) throw new Error(`no Redis answered on 127.0.0.1:${port} in 30 s`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

/** Whether process `pid` still runs (signal 0 checks without sending one). */
function alive(pid: number): boolean {
  try {
    process.kill(pid, 0);
    return true;
  } catch {
    return false;
  }
}

/** Runs one README line with bash in `cwd`, to its end (not spawnSync: this process serves the receivers the lines reach). */
function runLine(line: string, cwd: string, env: NodeJS.ProcessEnv, timeoutMs = 480_000): Promise<{ code: number | null; stdout: string; stderr: string }> {
  return new Promise((resolve, reject) => {
    const child = spawn('bash', ['-c', line], { cwd, env, stdio: ['ignore', 'pipe', 'pipe'], timeout: timeoutMs });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.once('error', reject);
    child.once('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** Starts one README line with bash in `cwd`; resolves once stdout matches `ready`, with a stop that ends its process group. */
async function startLine(line: string, cwd: string, env: NodeJS.ProcessEnv, ready: RegExp) {
  const child = spawn('bash', ['-c', `exec ${line}`], { cwd, env, detached: true, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.once('close', resolve));
  const match = await new Promise<RegExpExecArray>((resolve, reject) => {
    // 480 s: the first npx of a line installs the CLI and its dependencies through the registry, minutes on a loaded machine.
    const timer = setTimeout(() => {
      // Not left installing or running after the test gave up on it.
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
      reject(new Error(`"${line}" printed no ${ready} in 480 s:\n${stdout}\n${stderr}`));
    }, 480_000);
    const check = () => {
      const found = ready.exec(stdout);
      if (!found) return;
      clearTimeout(timer);
      resolve(found);
    };
    child.stdout.on('data', check);
    void exited.then(() => (clearTimeout(timer), reject(new Error(`"${line}" exited before it was ready:\n${stdout}\n${stderr}`))));
  });
  return {
    match,
    output: () => stdout + stderr,
    async stop() {
      try {
        process.kill(-child.pid!, 'SIGTERM');
      } catch {
        // already gone
      }
      return exited;
    },
  };
}

/** A receiver on 127.0.0.1:`port` that answers every request 200 and counts them. */
async function receiver(port: number): Promise<{ server: Server; requests: () => number }> {
  let count = 0;
  const server = createServer((request, response) => {
    count += 1;
    request.resume().on('end', () => response.writeHead(200, { 'content-type': 'application/json' }).end('{"received":true}'));
  });
  await new Promise<void>((resolve, reject) => server.once('error', reject).listen(port, '127.0.0.1', resolve));
  return { server, requests: () => count };
}

/** The packages installed in `dir`'s node_modules (scoped ones by their full name). */
function installedPackages(dir: string): string[] {
  const modules = join(dir, 'node_modules');
  return readdirSync(modules)
    .filter((name) => !name.startsWith('.'))
    .flatMap((name) => (name.startsWith('@') ? readdirSync(join(modules, name)).map((inner) => `${name}/${inner}`) : [name]))
    .sort();
}

/** Bytes of every file under `dir`. */
function sizeOf(dir: string): number {
  return readdirSync(dir, { withFileTypes: true }).reduce((total, entry) => {
    const path = join(dir, entry.name);
    return total + (entry.isDirectory() ? sizeOf(path) : entry.isFile() ? statSync(path).size : 0);
  }, 0);
}

describe.skipIf(!built)('the packages, published to a registry on 127.0.0.1 and installed from it', { timeout: 600_000 }, () => {
  let registry: LocalRegistry;
  const tarballs: string[] = [];

  beforeAll(async () => {
    installVerdaccio();
    registry = await startRegistry();
    // Packed as the release workflow packs (its own command), then published in its order.
    const { pack, order } = releaseSteps();
    const packs = join(registry.home, 'packs');
    mkdirSync(packs);
    const packed = spawnSync('bash', ['-c', `${pack} --pack-destination ${packs} --json`], { cwd: ROOT, env: registry.env, encoding: 'utf8' });
    expect(packed.status, packed.stderr).toBe(0);
    const files = readdirSync(packs);
    expect(files.sort()).toEqual([`svc-sdk-${VERSION}.tgz`, `svc-sdk-cli-${VERSION}.tgz`, `svc-sdk-mcp-${VERSION}.tgz`]);
    tarballs.push(...order.flatMap((glob) => files.filter((file) => glob.test(file))));
    for (const tarball of tarballs) {
      // `npm stage publish` is npmjs.com's; a registry of one's own takes the same tarball by `npm publish`.
      const published = spawnSync('npm', ['publish', join(packs, tarball), '--access', 'public'], { cwd: registry.home, env: registry.env, encoding: 'utf8' });
      expect(published.status, published.stderr).toBe(0);
    }
  }, 600_000);

  afterAll(async () => {
    await registry?.stop();
  }, 120_000);

  it('publishes the library first, then the MCP server, then the CLI that depends on both', () => {
    expect(tarballs).toEqual([`svc-sdk-${VERSION}.tgz`, `svc-sdk-mcp-${VERSION}.tgz`, `svc-sdk-cli-${VERSION}.tgz`]);
    const view = spawnSync('npm', ['view', '@svc-sdk/cli', 'bin', 'dependencies', '--json'], { cwd: registry.home, env: registry.env, encoding: 'utf8' });
    const { bin, dependencies } = JSON.parse(view.stdout) as { bin: Record<string, string>; dependencies: Record<string, string> };
    expect(bin).toEqual({ 'svc-sdk': 'dist/cli.js' });
    expect(dependencies).toMatchObject({ 'svc-sdk': VERSION, '@svc-sdk/mcp': VERSION });
  });

  it('npm install svc-sdk in an empty folder installs 2 packages, svc-sdk and zod, in under 12 MB', async () => {
    const app = emptyFolder(registry, 'library-app');
    const install = await runLine('npm install svc-sdk', app, registry.env);
    expect(install.code, install.stderr).toBe(0);
    expect(installedPackages(app)).toEqual(['svc-sdk', 'zod']);
    expect(existsSync(join(app, 'node_modules', '.bin', 'svc-sdk'))).toBe(false);
    const bytes = sizeOf(join(app, 'node_modules'));
    console.log(`[registry] npm install svc-sdk: 2 packages, ${(bytes / 1e6).toFixed(1)} MB`);
    expect(bytes).toBeLessThan(12e6);
  });

  describe("the README's one-liners, as pasted, from an empty folder", () => {
    const lines = readmeOneLiners(README);
    let app: string;
    let emulator: Awaited<ReturnType<typeof startLine>>;
    let env: NodeJS.ProcessEnv;

    beforeAll(async () => {
      app = emptyFolder(registry, 'cli-app');
      // The first line of the Quick start, exactly: the emulator the other lines run against.
      emulator = await startLine('npx @svc-sdk/cli emulator', app, registry.env, /SVC_BASE_URL=(\S+)[\s\S]*SVC_API_KEY=(\S+)/);
      env = { ...registry.env, SVC_BASE_URL: emulator.match[1], SVC_API_KEY: emulator.match[2] };
    }, 600_000);
    afterAll(async () => {
      await emulator?.stop();
    }, 60_000);

    it('finds the lines the README promises: the emulator, listen, trigger, upload, mcp and the inbox', () => {
      for (const command of ['emulator', 'listen', 'trigger', 'upload', 'mcp', 'inbox demo', 'inbox stats', 'inbox ls']) expect(lines.some((line) => line.includes(`@svc-sdk/cli ${command}`)), command).toBe(true);
    });

    it('each emulator line starts an emulator that answers on the SVC_BASE_URL it prints', async () => {
      await emulator.stop();
      for (const line of lines.filter((candidate) => / emulator\b/.test(candidate) && !candidate.includes(' -- '))) {
        const running = await startLine(line, app, registry.env, /SVC_BASE_URL=(\S+)/);
        const answer = await fetch(`${running.match[1]}/api/v1/webhooks/`, { headers: { authorization: `Bearer ${/--api-key (\S+)/.exec(line)?.[1] ?? 'vdr_any'}` } });
        expect(answer.status, line).toBe(200);
        await running.stop();
      }
      emulator = await startLine('npx @svc-sdk/cli emulator', app, registry.env, /SVC_BASE_URL=(\S+)[\s\S]*SVC_API_KEY=(\S+)/);
      env = { ...registry.env, SVC_BASE_URL: emulator.match[1], SVC_API_KEY: emulator.match[2] };
    });

    it('listen forwards the deliveries that trigger fires to the app, and trigger --url reaches a receiver', async () => {
      const app3000 = await receiver(3000);
      try {
        const listenLine = lines.find((line) => line.includes(' listen --forward-to'))!;
        const listen = await startLine(listenLine, app, env, /Forwarding to/);
        for (const line of lines.filter((candidate) => candidate.includes(' trigger ') && !candidate.includes('--url'))) {
          const run = await runLine(line, app, env);
          expect(run.code, `${line}\n${run.stderr}`).toBe(0);
        }
        await expect.poll(() => app3000.requests(), { timeout: 20_000 }).toBeGreaterThanOrEqual(2);
        // Stopped as Ctrl+C stops it (SIGTERM to its process group): it deletes its registration on the way out.
        await listen.stop();
        expect(listen.output()).toMatch(/SIGTERM: deleted webhook \d+, stopped/);
        const before = app3000.requests();
        for (const line of lines.filter((candidate) => candidate.includes(' trigger ') && candidate.includes('--url'))) {
          const run = await runLine(line, app, env);
          expect(run.code, `${line}\n${run.stderr}`).toBe(0);
          expect(run.stdout).toContain('200');
        }
        expect(app3000.requests()).toBe(before + 1);
      } finally {
        app3000.server.close();
      }
    });

    it('the upload lines upload a folder to room 7, resumably, and keep their manifest', async () => {
      const client = { headers: { authorization: `Bearer ${env.SVC_API_KEY}`, 'content-type': 'application/json' } };
      for (let room = 1; room <= 7; room++) await fetch(`${env.SVC_BASE_URL}/api/v1/rooms`, { method: 'POST', ...client, body: JSON.stringify({ name: `Room ${room}`, room_type: 'company_investment' }) });
      mkdirSync(join(app, 'deal-docs'));
      for (const name of ['memo.txt', 'model.csv']) writeFileSync(join(app, 'deal-docs', name), `${name}\n`);
      const uploads = lines.filter((line) => line.includes(' upload '));
      expect(uploads.length).toBeGreaterThanOrEqual(3);
      for (const line of uploads) {
        const run = await runLine(line, app, env);
        expect(run.code, `${line}\n${run.stdout}${run.stderr}`).toBe(0);
      }
      expect(existsSync(join(app, 'deal-docs.jsonl'))).toBe(true);
    });

    it('mcp --http lines serve the tools to the official v2 client', async () => {
      for (const line of lines.filter((candidate) => candidate.includes(' mcp --http'))) {
        // The credential HTTP clients must send: given by the environment, as the README says one can be.
        const credential = 'registry-test-credential-0123456789';
        const server = await startLine(line, app, { ...env, SVC_MCP_CREDENTIAL: credential }, /listening on (http:\S+)/);
        try {
          const anonymous = await fetch(server.match[1]!, { method: 'POST', headers: { 'content-type': 'application/json', accept: 'application/json, text/event-stream' }, body: '{}' });
          expect(anonymous.status, line).toBe(401);
          const client = new McpClient({ name: 'readme-http', version: '1.0.0' });
          await client.connect(new StreamableHTTPClientTransport(new URL(server.match[1]!), { requestInit: { headers: { authorization: `Bearer ${credential}` } } }));
          const names = (await client.listTools()).tools.map((tool) => tool.name);
          expect(names, line).toContain('room_ask');
          expect(names.includes('deal_create'), line).toBe(line.includes('--allow-writes'));
          await client.close();
        } finally {
          await server.stop();
        }
      }
    });

    it.skipIf(!hasRedis)("the inbox's two commands, as pasted (its redis-server on a port and folder of the test's), then inbox stats and ls read what the demo processed", async () => {
      // The README's own redis-server line, with a free port, a folder of the test's, loopback and a
      // pid file appended (later arguments win): the user's Redis on 6379, if any, is never touched.
      const [redisLine, ...others] = readmeShellLines(README, 'redis-server');
      expect(others, 'one redis-server line in the README').toEqual([]);
      const port = await freePort();
      const dir = join(registry.home, 'redis');
      mkdirSync(dir);
      const pidfile = join(dir, 'redis.pid');
      const started = await runLine(`${redisLine} --port ${port} --dir ${dir} --bind 127.0.0.1 --pidfile ${pidfile}`, app, registry.env, 30_000);
      expect(started.code, started.stderr).toBe(0);
      try {
        await redisAnswers(port);
        const inboxEnv = { ...registry.env, SVC_INBOX_REDIS: `redis://127.0.0.1:${port}` };
        const demoLine = lines.find((line) => line.includes(' inbox demo'))!;
        const demo = await runLine(demoLine, app, inboxEnv);
        expect(demo.code, `${demoLine}\n${demo.stdout}${demo.stderr}`).toBe(0);
        expect(demo.stdout.match(/^processed \S+: document\.uploaded memo-\d+\.pdf/gm), demo.stdout).toHaveLength(5);
        const queue = /worker running on queue (\S+),/.exec(demo.stdout)![1]!;
        // A stats or ls line without --queue reads the inbox's default queue: given the demo's, as the demo names it.
        const onDemoQueue = (line: string) => (line.includes('--queue') ? line : `${line} --queue ${queue}`);
        const statsLines = lines.filter((line) => line.includes(' inbox stats'));
        expect(statsLines.length).toBeGreaterThanOrEqual(1);
        for (const line of statsLines) {
          const stats = await runLine(onDemoQueue(line), app, inboxEnv);
          expect(stats.code, `${line}\n${stats.stderr}`).toBe(0);
          expect(stats.stdout, line).toMatch(/^completed 5$/m);
          expect(stats.stdout, line).toMatch(/^dead {6}0$/m);
        }
        for (const line of lines.filter((candidate) => candidate.includes(' inbox ls'))) {
          const listed = await runLine(onDemoQueue(line), app, inboxEnv);
          expect(listed.code, `${line}\n${listed.stderr}`).toBe(0);
          expect(listed.stdout.match(/^\S+ {2}completed {2}document\.uploaded {2}1 attempt /gm), listed.stdout).toHaveLength(5);
        }
      } finally {
        const pid = Number(readFileSync(pidfile, 'utf8'));
        process.kill(pid, 'SIGTERM');
        await expect.poll(() => alive(pid), { timeout: 20_000 }).toBe(false);
      }
    });

    it.skipIf(!hasOpenssl)("the doctor line, as pasted where its proxy does not exist: it names the route (the password hidden) and the trust, fails the proxy's DNS with a fix, exits 1", async () => {
      const line = lines.find((candidate) => candidate.includes(' doctor'))!;
      const ca = /--ca (\S+)/.exec(line)![1]!;
      // The user's CA file, where the line reads it: any PEM certificate does for the trust line.
      const made = spawnSync('openssl', ['req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=corp root', '-keyout', join(app, 'corp-key.pem'), '-out', join(app, ca)], { encoding: 'utf8' });
      expect(made.status, made.stderr).toBe(0);
      const doctor = await runLine(line, app, { ...registry.env, SVC_BASE_URL: 'https://api.example.com/', SVC_API_KEY: 'vdr_doctor_line' });
      const output = doctor.stdout + doctor.stderr;
      expect(doctor.code, output).toBe(1);
      expect(output).toMatch(/^ok {3}route {4}https:\/\/api\.example\.com\/ through HTTPS_PROXY http:\/\/\[redacted\]@proxy\.corp:3128$/m);
      expect(output).toMatch(/^ok {3}trust {4}the ca option \(1 certificate\)/m);
      expect(output).toMatch(/^fail dns {6}the proxy's host proxy\.corp does not resolve .*; fix: /m);
      expect(output).not.toMatch(/secret|vdr_doctor_line/);
    });

    it('leaves no one-liner untried except the Inspector line (test/mcp/hosts.test.ts runs the Inspector against the built CLI)', () => {
      const tried = (line: string) => / (emulator|listen|trigger|upload|doctor)\b/.test(line) || line.includes(' mcp --http') || / inbox (demo|stats|ls)\b/.test(line);
      expect(lines.filter((line) => !tried(line))).toEqual([expect.stringMatching(/^npx @modelcontextprotocol\/inspector --cli /)]);
    });
  });

  describe("the README's MCP host config, started by a real MCP client as a desktop host starts it", () => {
    const { server, rehearsal } = readmeHostConfig(README);
    let home: string;

    beforeAll(() => {
      home = emptyFolder(registry, 'host-home');
    });

    it('the rehearsal (--emulator) starts and lists its tools', async () => {
      const client = new McpClient({ name: 'desktop-host', version: '1.0.0' });
      await client.connect(new StdioClientTransport({ command: server.command, args: rehearsal.args, cwd: home, env: registry.env as Record<string, string>, stderr: 'pipe' }));
      const names = (await client.listTools()).tools.map((tool) => tool.name);
      expect(names).toEqual(expect.arrayContaining(['deal_create', 'room_create', 'room_ask', 'webhook_list']));
      await client.close();
    });

    it('the config itself, with its env set to a service (an emulator here) and its upload root a folder of the user\'s, answers a read tool', async () => {
      const service = await startLine('npx @svc-sdk/cli emulator --port 0', home, registry.env, /SVC_BASE_URL=(\S+)[\s\S]*SVC_API_KEY=(\S+)/);
      try {
        const client = new McpClient({ name: 'desktop-host', version: '1.0.0' });
        const env = { ...registry.env, ...Object.fromEntries(Object.keys(server.env).map((name) => [name, name === 'SVC_API_KEY' ? service.match[2]! : service.match[1]!])) };
        // The config's --upload-root names the user's folder (/Users/me/Deals): here, one made for the test.
        const deals = join(home, 'Deals');
        mkdirSync(deals, { recursive: true });
        const args = server.args.map((arg, index) => (server.args[index - 1] === '--upload-root' ? deals : arg));
        await client.connect(new StdioClientTransport({ command: server.command, args, cwd: home, env: env as Record<string, string>, stderr: 'pipe' }));
        expect((await client.listTools()).tools.map((tool) => tool.name)).toContain('room_documents_upload');
        const result = (await client.callTool({ name: 'webhook_list', arguments: {} })) as { isError?: boolean };
        expect(result.isError ?? false).toBe(false);
        await client.close();
      } finally {
        await service.stop();
      }
    });
  });
});

// Kept apart from the run above: the extraction itself, on a README of three lines.
describe('readmeOneLiners', () => {
  it('takes npx lines of @svc-sdk/cli from sh blocks (comments cut) and inline code, once each', () => {
    const markdown = ['Run `npx @svc-sdk/cli emulator` first.', '```sh', 'npx @svc-sdk/cli emulator   # same', 'npm install x', '# npx @svc-sdk/cli nope', 'SVC_X=1 npx @svc-sdk/cli trigger a --url u', '```'].join('\n');
    expect(readmeOneLiners(markdown).sort()).toEqual(['SVC_X=1 npx @svc-sdk/cli trigger a --url u', 'npx @svc-sdk/cli emulator']);
  });
});

