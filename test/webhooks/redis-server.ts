// A real redis-server for the tests: a child process on a free loopback port, without
// persistence, killed afterwards. Missing locally, its tests are skipped with how to install it;
// under CI=true (.ci/run installs it) a missing server fails the run.
import { spawn, spawnSync, type ChildProcess } from 'node:child_process';
import { createServer } from 'node:net';
import { afterAll, beforeAll, test } from 'vitest';

export const hasRedis = spawnSync('redis-server', ['--version']).status === 0;
const HOW_TO_INSTALL = 'skipped: apt-get install redis-server';
if (!hasRedis && process.env.CI === 'true') {
  throw new Error('redis-server is missing, and CI=true requires it: .ci/run installs it (apt-get install redis-server)');
}

/** Declares a skipped test that says how to install redis-server, when it is missing. */
export function reportMissingRedis(): void {
  if (!hasRedis) test.skip(HOW_TO_INSTALL, () => {});
}

/** A free TCP port on 127.0.0.1. */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const server = createServer().listen(0, '127.0.0.1', () => {
      const { port } = server.address() as { port: number };
      server.close(() => resolve(port));
    });
    server.on('error', reject);
  });
}

/** Starts redis-server on `port`; resolves once it accepts connections. */
export function startRedis(port: number): Promise<ChildProcess> {
  const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--save', '', '--appendonly', 'no']);
  return new Promise((resolve, reject) => {
    let output = '';
    child.stdout.on('data', (chunk: Buffer) => {
      output += chunk.toString();
      if (output.includes('Ready to accept connections')) resolve(child);
    });
    child.on('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
  });
}

/**
 * A redis-server of the enclosing `describe`, on a free port: started before its tests and stopped
 * after them (continued first, for a test that paused it with SIGSTOP).
 */
export function useRedisServer(): { readonly port: number; readonly process: ChildProcess } {
  let port = 0;
  let child: ChildProcess | undefined;
  beforeAll(async () => {
    port = await freePort();
    child = await startRedis(port);
  });
  afterAll(() => {
    child?.kill('SIGCONT');
    child?.kill();
  });
  return {
    get port() {
      return port;
    },
    get process() {
      return child!;
    },
  };
}
