// `svc-sdk upload` as a person at a terminal meets it: the bin (bundled from src/ now) in a
// pseudo-terminal, and a loopback service that refuses uploads as a real one would.
import { createServer, type IncomingMessage } from 'node:http';
import type { AddressInfo } from 'node:net';
import { spawn as spawnPty } from '@lydell/node-pty';
import { onTestFinished } from 'vitest';
import { bundleForChild } from '../uploads/upload-many-support.js';

/** Bundles packages/cli/src/main.ts into one .mjs of its own (other suites bundle theirs elsewhere, at the same time). */
export function bundleCli(): Promise<string> {
  return bundleForChild(new URL('../../packages/cli/src/main.ts', import.meta.url));
}

/** The environment of a run: the test's, without the variables the CLI reads, plus `env`. */
export function cliEnv(env: Record<string, string>): Record<string, string> {
  const base: Record<string, string> = {};
  for (const [name, value] of Object.entries(process.env)) if (value !== undefined && !name.startsWith('SVC_')) base[name] = value;
  return { ...base, ...env };
}

export interface PtyRun {
  /** Everything the terminal showed so far (stdout and stderr), line ends as `\n`. */
  output(): string;
  /** Resolves once `pattern` shows (10 s at most). */
  waitFor(pattern: RegExp): Promise<void>;
  /** Types into the terminal (`\x03` is Ctrl+C). */
  type(text: string): void;
  /** Sends a signal to the process itself (SIGTERM: docker stop, a CI cancel). */
  kill(signal: NodeJS.Signals): void;
  /** The exit code, or 128 + the signal's number when a signal ended it. */
  exited: Promise<number>;
}

/** Runs `svc-sdk <args>` in a pseudo-terminal of 100 columns: stdout is a TTY, Ctrl+C is the terminal's. */
export function inTerminal(cli: string, args: string[], env: Record<string, string>): PtyRun {
  const terminal = spawnPty(process.execPath, [cli, ...args], { name: 'xterm', cols: 100, rows: 40, env: cliEnv(env) });
  let output = '';
  terminal.onData((data) => (output += data));
  const exited = new Promise<number>((resolve) => terminal.onExit(({ exitCode, signal }) => resolve(signal ? 128 + signal : exitCode)));
  onTestFinished(async () => {
    let running = true;
    void exited.then(() => (running = false));
    await new Promise((resolve) => setTimeout(resolve, 0));
    if (running) terminal.kill('SIGKILL');
  });
  return {
    output: () => output.replace(/\r\n/g, '\n'),
    async waitFor(pattern) {
      let done = false;
      void exited.then(() => (done = true));
      for (let waited = 0; !pattern.test(output.replace(/\r\n/g, '\n')); waited += 20) {
        if (done || waited > 10_000) throw new Error(`the terminal never showed ${pattern}:\n${output}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    },
    type: (text) => terminal.write(text),
    kill: (signal) => terminal.kill(signal),
    exited,
  };
}

/** One upload as a fake service saw it: when it arrived and its whole body's size. */
export interface SeenUpload {
  path: string;
  bytes: number;
  at: number;
}

/**
 * A loopback service that reads each request's whole body, then answers `answer(request)` (status and
 * JSON envelope error), as a real server does, `delayMs` after the body (so uploads a client started
 * at once all arrive before the first answer). `answeredAt` is when its first answer was written.
 */
export async function refusingService(answer: (request: IncomingMessage) => { status: number; error: string }, delayMs = 0) {
  const seen: SeenUpload[] = [];
  let answeredAt = Infinity;
  const server = createServer((request, response) => {
    const at = performance.now();
    let bytes = 0;
    request.on('data', (chunk: Buffer) => (bytes += chunk.byteLength));
    request.on('end', () => {
      seen.push({ path: request.url ?? '', bytes, at });
      setTimeout(() => {
        const { status, error } = answer(request);
        response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify({ success: false, error }));
        answeredAt = Math.min(answeredAt, performance.now());
      }, delayMs);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  onTestFinished(
    () =>
      new Promise<void>((resolve) => {
        server.closeAllConnections();
        server.close(() => resolve());
      }),
  );
  return {
    url: `http://127.0.0.1:${(server.address() as AddressInfo).port}`,
    seen,
    /** Uploads that arrived after the first answer was written. */
    after: () => seen.filter((upload) => upload.at > answeredAt),
  };
}

// A service that is down: a port nothing listens on (support.ts).
export { closedPort } from './support.js';

/** The count of a state in the summary table. */
export function countOf(output: string, state: string): number {
  return Number(new RegExp(`^${state} +(\\d+) `, 'm').exec(output)?.[1]);
}
