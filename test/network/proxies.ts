// Real proxies and a TLS origin on loopback for the network tests, each started and stopped by the
// test: tinyproxy (CONNECT), squid (basic proxy authentication through its ncsa helper), mitmproxy
// (mitmdump, intercepting TLS with its own CA), and a node:https origin with a self-signed
// certificate made by the openssl CLI. A missing one skips its tests with how to install it, unless
// CI=true (.ci/run installs them), where it fails.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { chmodSync, existsSync, mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createServer as createHttpsServer } from 'node:https';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { test } from 'vitest';
import { freePort } from '../webhooks/redis-server.js';

const has = (command: string, args: string[]) => spawnSync(command, args).status === 0;
export const tools = {
  openssl: has('openssl', ['version']),
  tinyproxy: has('tinyproxy', ['-v']),
  squid: has('squid', ['-v']) && existsSync('/usr/lib/squid/basic_ncsa_auth'),
  mitmdump: has('mitmdump', ['--version']),
};
const INSTALL: Record<keyof typeof tools, string> = {
  openssl: 'apt-get install openssl',
  tinyproxy: 'apt-get install tinyproxy',
  squid: 'apt-get install squid',
  mitmdump: 'apt-get install mitmproxy',
};
for (const [name, present] of Object.entries(tools)) {
  if (!present && process.env.CI === 'true') throw new Error(`${name} is missing, and CI=true requires it: .ci/run installs it (${INSTALL[name as keyof typeof tools]})`);
}

/** Declares a skipped test saying how to install each tool of `names` that is missing. */
export function reportMissing(...names: (keyof typeof tools)[]): void {
  for (const name of names) if (!tools[name]) test.skip(`skipped: ${INSTALL[name]}`, () => {});
}

/** A temporary folder, removed by `remove()`. */
export function scratch(prefix: string): { dir: string; remove: () => void } {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  return { dir, remove: () => rmSync(dir, { recursive: true, force: true }) };
}

/** A self-signed certificate for 127.0.0.1 and localhost, made by the openssl CLI: its PEM key and certificate. */
export function selfSigned(dir: string): { key: string; cert: string; certFile: string } {
  const keyFile = join(dir, 'origin-key.pem');
  const certFile = join(dir, 'origin-cert.pem');
  const made = spawnSync('openssl', [
    'req', '-x509', '-newkey', 'rsa:2048', '-nodes', '-days', '1', '-subj', '/CN=svc-sdk test origin',
    '-addext', 'subjectAltName=IP:127.0.0.1,DNS:localhost', '-keyout', keyFile, '-out', certFile,
  ], { encoding: 'utf8' });
  if (made.status !== 0) throw new Error(`openssl failed: ${made.stderr}`);
  return { key: readFileSync(keyFile, 'utf8'), cert: readFileSync(certFile, 'utf8'), certFile };
}

/** A TLS origin answering like the service: a list of webhooks, paginated by `?page=` (3 pages), and an upload. */
export async function startOrigin(tls: { key: string; cert: string }): Promise<{ url: string; requests: string[]; close: () => Promise<void> }> {
  const requests: string[] = [];
  const server = createHttpsServer(tls, (request, response) => {
    requests.push(`${request.method} ${request.url}`);
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const url = new URL(request.url!, 'https://127.0.0.1');
      let body: unknown;
      if (request.method === 'POST') body = { success: true, data: { id: 1, original_filename: 'a.txt', size: Buffer.concat(chunks).length } };
      else {
        const page = Number(url.searchParams.get('page') ?? 1);
        const next = page < 3 ? `https://127.0.0.1:${port}${url.pathname}?page=${page + 1}` : null;
        body = { results: [{ id: page, url: 'https://example.com/hook', name: `hook ${page}`, event_types: null, failure_count: 0 }], next };
      }
      const text = JSON.stringify(body);
      response.writeHead(200, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
      response.end(text);
    });
  });
  const port = await freePort();
  await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
  return {
    url: `https://127.0.0.1:${port}`,
    requests,
    close: () => new Promise((resolve) => { server.closeAllConnections(); server.close(() => resolve()); }),
  };
}

/** A running proxy: its URL (without credentials), its log so far, and a stop that waits for its exit. */
export interface RunningProxy {
  url: string;
  port: number;
  log: () => string;
  stop: () => Promise<void>;
}

/** Starts `command` and resolves once `ready(output)` is true, or rejects when it exits first. */
function launch(command: string, args: string[], ready: (output: string) => boolean, logFile?: string): Promise<{ child: ChildProcess; output: () => string }> {
  return new Promise((resolve, reject) => {
    const child = spawn(command, args, { stdio: ['ignore', 'pipe', 'pipe'] });
    let output = '';
    const read = () => output + (logFile && existsSync(logFile) ? readFileSync(logFile, 'utf8') : '');
    const check = () => {
      if (ready(read())) {
        clearInterval(poll);
        resolve({ child, output: read });
      }
    };
    child.stdout!.on('data', (chunk: Buffer) => ((output += chunk), check()));
    child.stderr!.on('data', (chunk: Buffer) => ((output += chunk), check()));
    const poll = setInterval(check, 50);
    child.on('exit', (code) => {
      clearInterval(poll);
      reject(new Error(`${command} exited with ${code}: ${read()}`));
    });
  });
}

function stopper(child: ChildProcess): () => Promise<void> {
  return async () => {
    if (child.exitCode !== null || child.signalCode !== null) return;
    const exited = new Promise((resolve) => child.once('exit', resolve));
    child.kill('SIGTERM');
    await exited;
  };
}

/** tinyproxy on a free port, in the foreground, logging every request (CONNECT included) to a file of its own. */
export async function startTinyproxy(dir: string): Promise<RunningProxy> {
  const port = await freePort();
  const logFile = join(dir, 'tinyproxy.log');
  const conf = join(dir, 'tinyproxy.conf');
  // No ConnectPort line: CONNECT to any port (the origin's is a free one).
  writeFileSync(conf, [`Port ${port}`, 'Listen 127.0.0.1', 'Allow 127.0.0.1', 'Timeout 30', `LogFile "${logFile}"`, 'LogLevel Connect', 'MaxClients 20'].join('\n'));
  const { child, output } = await launch('tinyproxy', ['-d', '-c', conf], () => portOpen(port), logFile);
  return { url: `http://127.0.0.1:${port}`, port, log: output, stop: stopper(child) };
}

/** squid on a free port, requiring basic proxy authentication of `user` / `password` (its ncsa helper, an htpasswd file). */
export async function startSquid(dir: string, user: string, password: string): Promise<RunningProxy> {
  const port = await freePort();
  // squid run by root works as the `proxy` user: it must be able to write its logs here.
  chmodSync(dir, 0o777);
  const passwords = join(dir, 'passwords');
  const hash = spawnSync('openssl', ['passwd', '-apr1', password], { encoding: 'utf8' }).stdout.trim();
  writeFileSync(passwords, `${user}:${hash}\n`);
  const accessLog = join(dir, 'access.log');
  const conf = join(dir, 'squid.conf');
  writeFileSync(conf, [
    `http_port 127.0.0.1:${port}`,
    `auth_param basic program /usr/lib/squid/basic_ncsa_auth ${passwords}`,
    'auth_param basic realm svc-sdk-test',
    'acl authenticated proxy_auth REQUIRED',
    'acl CONNECT method CONNECT',
    'http_access allow authenticated',
    'http_access deny all',
    'cache deny all',
    `pid_filename ${join(dir, 'squid.pid')}`,
    `access_log ${accessLog}`,
    `cache_log ${join(dir, 'cache.log')}`,
    'shutdown_lifetime 0 seconds',
    `coredump_dir ${dir}`,
  ].join('\n'));
  const { child, output } = await launch('squid', ['-N', '-f', conf], () => portOpen(port), accessLog);
  return { url: `http://127.0.0.1:${port}`, port, log: output, stop: stopper(child) };
}

/** mitmdump on a free port with a CA of its own (made in `dir` on start), trusting the test origin's self-signed certificate upstream. */
export async function startMitmproxy(dir: string): Promise<RunningProxy & { caFile: string }> {
  const port = await freePort();
  const { child, output } = await launch(
    'mitmdump',
    ['--listen-host', '127.0.0.1', '--listen-port', String(port), '--set', `confdir=${dir}`, '--ssl-insecure', '--flow-detail', '1'],
    (text) => /listening at/i.test(text) || portOpen(port),
  );
  return { url: `http://127.0.0.1:${port}`, port, log: output, stop: stopper(child), caFile: join(dir, 'mitmproxy-ca-cert.pem') };
}

/** Whether something accepts TCP connections on 127.0.0.1:port (checked synchronously, once). */
function portOpen(port: number): boolean {
  return spawnSync('bash', ['-c', `exec 3<>/dev/tcp/127.0.0.1/${port}`]).status === 0;
}
