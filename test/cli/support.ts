// Running `svc-sdk` commands: in this process (runCli with the bin's commands, io in memory), or the
// built bin as a subprocess (runBin, startBin) for what only a process shows; and the small servers the CLI talks to.
import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { fileURLToPath } from 'node:url';
import { COMMANDS } from '../../packages/cli/src/commands/index.js';
import { runCli } from '../../packages/cli/src/run.js';
import { memoryIO } from '../uploads/upload-many-support.js';

export const CLI = fileURLToPath(new URL('../../packages/cli/dist/cli.js', import.meta.url));
export const built = existsSync(CLI);
if (!built) console.warn(`[svc-sdk] skipping the tests of the built CLI bin: ${CLI} is missing; run "npm run build" first (npm test does)`);

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

/** The command line's io in memory, with the environment `env` adds to the test's (cliEnv) and a stop of its own. */
function inMemory(env: Record<string, string>) {
  const memory = memoryIO(cliEnv(env));
  const controller = new AbortController();
  return { ...memory, io: { ...memory.io, stop: controller.signal }, stop: (signal: NodeJS.Signals) => controller.abort(signal) };
}

/** Lets the io's streams hand over what was written (their 'data' events may come a tick later). */
const flushed = () => new Promise((resolve) => setImmediate(resolve));

/**
 * Runs `svc-sdk <args>` to its end in this process (runCli with the commands of the bin, its io in
 * memory): what Stryker's mutants of packages/cli/src are seen by. `runBin` runs the built bin.
 */
export async function run(args: string[], env: Record<string, string> = {}): Promise<Run> {
  const memory = inMemory(env);
  const code = await runCli(args, memory.io, COMMANDS);
  await flushed();
  return { code, stdout: memory.out(), stderr: memory.err() };
}

/** Runs the built bin to its end with the node running the tests (node 24 under npm, not the machine's 20). */
export function runBin(args: string[], env: Record<string, string> = {}): Promise<Run> {
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
  stdout(): string;
  stderr(): string;
  /** The exit code once it ended, else null. */
  exitCode(): number | null;
  /** Sends `signal` (as Ctrl+C or docker stop would), without waiting. */
  signal(signal: NodeJS.Signals): void;
  /** Resolves with the match of `pattern` in stdout once it appears (10 s at most). */
  waitFor(pattern: RegExp): Promise<RegExpExecArray>;
  /** Sends `signal` unless it ended, and resolves with the exit code. */
  stop(signal?: NodeJS.Signals): Promise<number | null>;
}

function running(stdout: () => string, stderr: () => string, exitCode: () => number | null, signal: (signal: NodeJS.Signals) => void, exited: Promise<number | null>): Running {
  return {
    stdout,
    stderr,
    exitCode,
    signal,
    async waitFor(pattern) {
      // A loop of its own, not expect.poll: this also runs in beforeAll, outside any test.
      for (let waited = 0; !pattern.test(stdout()) && exitCode() === null && waited < 10_000; waited += 20) {
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
      const match = pattern.exec(stdout());
      if (!match) throw new Error(`the CLI exited ${exitCode()} before printing ${pattern}:\n${stdout()}\n${stderr()}`);
      return match;
    },
    async stop(stopSignal = 'SIGTERM') {
      if (exitCode() === null) signal(stopSignal);
      return exited;
    },
  };
}

/** Starts `svc-sdk <args>` in this process (as `run`); its stop aborts CliIO's `stop` with the signal's name. */
export function start(args: string[], env: Record<string, string> = {}): Running {
  const memory = inMemory(env);
  let code: number | null = null;
  const exited = runCli(args, memory.io, COMMANDS).then(async (exit) => {
    await flushed();
    return (code = exit);
  });
  return running(memory.out, memory.err, () => code, memory.stop, exited);
}

/** Starts the built bin as a child process; its stop is a real signal. */
export function startBin(args: string[], env: Record<string, string> = {}): Running & { child: ChildProcess } {
  const child = spawn(process.execPath, [CLI, ...args], { stdio: ['ignore', 'pipe', 'pipe'], env: cliEnv(env) });
  let stdout = '';
  let stderr = '';
  child.stdout!.on('data', (chunk) => (stdout += chunk));
  child.stderr!.on('data', (chunk) => (stderr += chunk));
  const exited = new Promise<number | null>((resolve) => child.on('close', resolve));
  return Object.assign(
    running(() => stdout, () => stderr, () => child.exitCode, (signal) => child.kill(signal), exited),
    { child },
  );
}

/** `svc-sdk emulator` on a free port with no delivery delay, in this process: its base URL and a key it accepts. */
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
