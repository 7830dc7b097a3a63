// The README's quick start for the inbox (examples/inbox-quickstart.mjs, the built package) against a
// real redis-server: the emulator's deliveries go through the receiver, Redis and the worker, and
// the process ends by itself; kept serving, it ends promptly after SIGTERM (the README's stop:
// server, worker, inbox and emulator closed, nothing left holding the event loop).
import { spawn } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, expect, test } from 'vitest';
import { built } from '../cli/support.js';
import { hasRedis, reportMissingRedis, startTestRedis, type TestRedis } from './redis.js';

reportMissingRedis();

const example = fileURLToPath(new URL('../../examples/inbox-quickstart.mjs', import.meta.url));
let redis: TestRedis | undefined;
beforeAll(async () => {
  if (hasRedis) redis = await startTestRedis(['--appendonly', 'yes']);
});
afterAll(async () => {
  await redis?.stop();
  redis?.remove();
});

/** Runs the example with `env`; resolves with its output and exit once it ends (after `signal` once it printed `ready`). */
function runExample(env: Record<string, string>, signal?: NodeJS.Signals) {
  const child = spawn(process.execPath, [example], { env: { ...process.env, SVC_INBOX_REDIS: `redis://127.0.0.1:${redis!.port}`, ...env }, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let signalledAt: number | undefined;
  child.stdout.on('data', (chunk: Buffer) => {
    stdout += String(chunk);
    if (signal && signalledAt === undefined && stdout.includes('worker running')) {
      signalledAt = Date.now();
      child.kill(signal);
    }
  });
  child.stderr.resume();
  return new Promise<{ stdout: string; code: number | null; afterSignalMs: number | undefined }>((resolve) =>
    child.once('exit', (code) => resolve({ stdout, code, afterSignalMs: signalledAt === undefined ? undefined : Date.now() - signalledAt })),
  );
}

test.skipIf(!hasRedis || !built)('the quick start: the emulator\'s deliveries flow through the receiver, Redis and the worker, and the process ends by itself', async () => {
  const result = await runExample({ DELIVERIES: '3' });
  expect(result.code).toBe(0);
  expect(result.stdout.match(/^processed .+: memo-\d\.pdf$/gm)).toHaveLength(3);
  expect(result.stdout).toContain('3 deliveries processed through the inbox');
}, 30_000);

test.skipIf(!hasRedis || !built)('serving, it ends promptly after SIGTERM: exit 0 within a few seconds, not kept alive by a connection', async () => {
  const result = await runExample({ DELIVERIES: '0' }, 'SIGTERM');
  expect(result.afterSignalMs).toBeDefined();
  expect(result.code).toBe(0);
  expect(result.afterSignalMs!).toBeLessThan(5000);
}, 30_000);
