// A delivery whose on() kills its worker process, against a real redis-server and real processes:
// the workers are restarted as a supervisor would, and after maxWorkerDeaths deaths the delivery is
// a dead letter (told to onDeadLetter, saying why) instead of killing every worker forever; the
// deliveries after it still run. Workers run the built svc-sdk/inbox (npm run build first).
import { spawn, type ChildProcess } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { afterAll, expect, test } from 'vitest';
import { bullmqInbox } from '../../src/inbox/index.js';
import { built } from '../cli/support.js';
import { hasRedis, reportMissingRedis, startTestRedis, type TestRedis } from './redis.js';
import { entry, until } from './support.js';

reportMissingRedis();

const script = fileURLToPath(new URL('crash/worker.mjs', import.meta.url));
let redis: TestRedis | undefined;
afterAll(async () => {
  await redis?.stop();
  redis?.remove();
});

test.skipIf(!hasRedis || !built)('a delivery whose on() kills its worker becomes a dead letter after maxWorkerDeaths deaths; the workers stop dying, the rest runs', async () => {
  redis = await startTestRedis(['--appendonly', 'yes']);
  const inbox = bullmqInbox({ connection: { host: '127.0.0.1', port: redis.port }, queue: 'crash', warn: () => {} });
  await inbox.put(entry('fatal', { crash: true }));
  await inbox.put(entry('after-1'));
  await inbox.put(entry('after-2'));
  const output: string[] = [];
  let deaths = 0;
  let stopped = false;
  let current: ChildProcess | undefined;
  // The supervisor: a worker that dies is started again at once, up to 10 lives (a crash loop would spend them all).
  const start = (lives: number) => {
    if (stopped || lives === 0) return;
    const child = spawn(process.execPath, [script], { env: { ...process.env, REDIS_PORT: String(redis!.port), QUEUE: 'crash', MAX_DEATHS: '2' }, stdio: ['ignore', 'pipe', 'inherit'] });
    current = child;
    child.stdout.on('data', (chunk: Buffer) => output.push(...String(chunk).split('\n').filter(Boolean)));
    child.once('exit', (_code, signal) => {
      if (signal === 'SIGKILL') deaths++;
      start(lives - 1);
    });
  };
  start(10);
  try {
    await until(() => output.some((line) => line.startsWith('dead fatal')), 30_000);
    await until(() => output.includes('ran after-1') && output.includes('ran after-2'), 15_000);
    expect(deaths).toBe(2);
    expect(output.find((line) => line.startsWith('dead fatal'))).toMatch(/the worker running it died 2 times \(its process exited, or hung past lockDuration\)/);
    expect(output).not.toContain('ran fatal');
    const [letter] = await inbox.deadLetters();
    expect(letter).toMatchObject({ deliveryId: 'fatal', lastError: expect.stringMatching(/died 2 times/) });
    expect((await inbox.show('fatal'))?.workerDeaths).toBe(2);
  } finally {
    stopped = true;
    current?.kill('SIGKILL');
    await inbox.close();
  }
}, 60_000);
