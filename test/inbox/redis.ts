// A real redis-server for the inbox tests, with the persistence settings a test asks for (an
// append-only file in a temporary folder, an eviction policy), killed afterwards.
import { spawn, type ChildProcess } from 'node:child_process';
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { freePort } from '../webhooks/redis-server.js';

export { hasRedis, reportMissingRedis } from '../webhooks/redis-server.js';

/** A running redis-server: its port, its process, and a stop that removes its folder. */
export interface TestRedis {
  port: number;
  process: ChildProcess;
  /** Kills it (SIGKILL when `hard`) and waits for its exit. */
  stop(hard?: boolean): Promise<void>;
  /** Starts it again on the same port and folder (what survived the stop is what it reloads). */
  restart(): Promise<void>;
  /** Removes its folder. */
  remove(): void;
}

/** Starts redis-server with `args` (e.g. `['--appendonly', 'yes', '--appendfsync', 'always']`) in a folder of its own. */
export async function startTestRedis(args: string[] = []): Promise<TestRedis> {
  const port = await freePort();
  const dir = mkdtempSync(join(tmpdir(), 'svc-inbox-redis-'));
  const launch = () => {
    const child = spawn('redis-server', ['--port', String(port), '--bind', '127.0.0.1', '--dir', dir, '--save', '', '--appendonly', 'no', ...args]);
    return new Promise<ChildProcess>((resolve, reject) => {
      let output = '';
      child.stdout.on('data', (chunk: Buffer) => {
        output += chunk.toString();
        if (output.includes('Ready to accept connections')) resolve(child);
      });
      child.on('exit', (code) => reject(new Error(`redis-server exited with ${code}: ${output}`)));
    });
  };
  const redis: TestRedis = {
    port,
    process: await launch(),
    async stop(hard = false) {
      const child = redis.process;
      if (child.exitCode !== null || child.signalCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill(hard ? 'SIGKILL' : 'SIGTERM');
      await exited;
    },
    async restart() {
      redis.process = await launch();
    },
    remove() {
      rmSync(dir, { recursive: true, force: true });
    },
  };
  return redis;
}
