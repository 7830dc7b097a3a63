// Driving the built `svc-sdk` bin as a subprocess, and the small servers the CLI talks to.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';

export const CLI = fileURLToPath(new URL('../../packages/cli/dist/cli.js', import.meta.url));
export const built = existsSync(CLI);
if (!built) console.warn(`[svc-sdk] skipping the CLI tests: ${CLI} is missing; run "npm run build" first (npm test does)`);

/** The environment of a CLI run: the test's, without the variables the CLI reads, plus `env`. */
export function cliEnv(env: Record<string, string> = {}): NodeJS.ProcessEnv {
  const base = { ...process.env };
  for (const name of ['SVC_API_KEY', 'SVC_BASE_URL', 'SVC_WEBHOOK_SECRET']) delete base[name];
  return { ...base, ...env };
}

export interface Run {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** Runs the built bin to its end with the node running the tests (node 24 under npm, not the machine's 20). */
export function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  return runNode([CLI, ...args], { env: cliEnv(env) });
}

/** Runs the node running the tests to its end, with its output collected. */
export function runNode(args: string[], options: { cwd?: string; env: NodeJS.ProcessEnv; timeout?: number }): Promise<Run> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, args, { stdio: ['ignore', 'pipe', 'pipe'], ...options });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    child.on('error', reject);
    child.on('close', (code) => resolve({ code, stdout, stderr }));
  });
}

/** A long-running command (emulator, listen): its output so far, a wait for a line, and a stop by signal. */
export interface Running {
  readonly child: ChildProcess;
  stdout(): string;
  stderr(): string;
  /** Resolves with the match of `pattern` in stdout once it appears (10 s at most). */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  /** Sends `signal` and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

export function start(args: string[], env: Record<string, string> = {}): Running {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: cliEnv(env) });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return {
    child,
    stdout: () => stdout,
    stderr: () => stderr,
    async waitFor(pattern) {
      // A loop of its own, not expect.poll: this also runs in beforeAll, outside any test.
      for (let waited = 0; !pattern.test(stdout) && child.exitCode === null && waited < 10_000; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const match = pattern.exec(stdout);
      if (!match) throw new Error(`the CLI exited ${child.exitCode} before printing ${pattern}:\n${stdout}\n${stderr}`);
      return match;
    },
    async stop(signal = 'SIGTERM') {
      if (child.exitCode === null) child.kill(signal);
      return exited;
    },
  };
}

/** `svc-sdk emulator` on a free port with no delivery delay: its base URL and a key it accepts. */
export async function startEmulator(extra: string[] = []): Promise<Running & { baseUrl: string; apiKey: string }> {
  const emulator = start(['emulator', '--port', '0', '--delivery-delay-ms', '0', ...extra]);
  const [, baseUrl] = await emulator.waitFor(/SVC_BASE_URL=(\S+)/);
  const [, apiKey] = await emulator.waitFor(/SVC_API_KEY=(\S+)/);
  return Object.assign(emulator, { baseUrl: baseUrl!, apiKey: apiKey! });
}

export interface Received {
  body: string;
  signature: string | undefined;
}

/** A real node:http server on 127.0.0.1 that answers with `answer` and keeps what it got. */
export async function receiver(answer: (request: Received, response: ServerResponse, index: number) => void) {
  const got: Received[] = [];
  const server: Server = createServer(async (req: IncomingMessage, res) => {
    let body = '';
    for await (const chunk of req) body += chunk;
    const received = { body, signature: req.headers['x-svc-signature'] as string | undefined };
    got.push(received);
    answer(received, res, got.length - 1);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  return {
    url: `http://127.0.0.1:${port}/hook`,
    port,
    got,
    close: () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  };
}

/** A port on 127.0.0.1 that nothing listens on (it was free a moment ago). */
export async function closedPort(): Promise<number> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  await new Promise((resolve) => server.close(resolve));
  return port;
}
