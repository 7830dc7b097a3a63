// The inbox's promise at the scale of `npm test` (about a minute): see no-loss/scenario.mjs.
// `INBOX_PROOF=full npx vitest run test/inbox/no-loss.test.ts` runs the full scale:
// 10 000 deliveries, 100 receiver kills, 50 worker kills, 10 Redis restarts.
import { expect, test } from 'vitest';
import { hasRedis, reportMissingRedis } from './redis.js';
import { built } from '../cli/support.js';
// @ts-expect-error -- a JavaScript module (its children run under plain node), typed by its JSDoc
import { proveNoLoss } from './no-loss/scenario.mjs';

reportMissingRedis();

const full = process.env.INBOX_PROOF === 'full';
const plan = full
  ? // A slower sender and 6 attempts over 62 s: a hundred kills of the two receivers in a few minutes must not
    // leave both down for a delivery's whole retry schedule (the service's is 10 h 36 min).
    { deliveries: 10_000, receiverKills: 100, workerKills: 50, redisRestarts: 10, poisonEvery: 97, workers: 4, perSecond: 50, retryDelaysMs: [2000, 4000, 8000, 16_000, 32_000] }
  : { deliveries: 300, receiverKills: 6, workerKills: 5, redisRestarts: 2, poisonEvery: 50, workers: 2 };

test.skipIf(!hasRedis || !built)(
  `no delivery lost once answered 2xx: ${plan.deliveries} deliveries, the receiver killed ${plan.receiverKills} times between the durable write and its answer, workers down past the retry horizon then killed ${plan.workerKills} times, redis-server killed ${plan.redisRestarts} times`,
  async () => {
    const lines: string[] = [];
    const result = (await proveNoLoss({ ...plan, log: (line: string) => lines.push(line) })) as Record<string, number>;
    if (full) console.log(lines.join('\n'));
    expect(result.missing).toBe(0);
    expect(result.unexplainedRepeats).toBe(0);
    expect(result.receiverKills).toBe(plan.receiverKills);
    expect(result.workerKills).toBe(plan.workerKills);
    expect(result.redisRestarts).toBe(plan.redisRestarts);
    expect(result.dead).toBe(Math.floor(plan.deliveries / plan.poisonEvery));
    expect(result.replayedOnce).toBe(result.dead);
  },
  full ? 3_600_000 : 150_000,
);
