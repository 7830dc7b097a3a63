// The actions ledger's promise at the scale of `npm test` (about a minute): see scenario/scenario.mjs.
// `ACTIONS_PROOF=full npx vitest run test/actions/scenario.test.ts` runs the full scale:
// 1 000 actions, 40 receiver kills, 20 worker kills, 4 workers.
import { expect, test } from 'vitest';
import { built } from './built.js';
import { hasRedis, reportMissingRedis } from '../inbox/redis.js';
// @ts-expect-error -- a JavaScript module (its children run under plain node), typed by its JSDoc
import { proveActions } from './scenario/scenario.mjs';

reportMissingRedis();

const full = process.env.ACTIONS_PROOF === 'full';
// At full scale, 6 attempts over 62 s and a slower pace: forty kills of the two receivers must not leave both down for
// a delivery's whole retry schedule (the service's is 10 h 36 min).
const plan = full
  ? { actions: 1000, receiverKills: 40, workerKills: 20, workers: 4, retryDelaysMs: [2000, 4000, 8000, 16_000, 32_000], pauseEvery: 5 }
  : { actions: 200, receiverKills: 6, workerKills: 5, workers: 2 };

test.skipIf(!hasRedis || !built)(
  `${plan.actions} actions of every kind and outcome through the inbox, out of order, twice and late, receivers killed ${plan.receiverKills} times and workers ${plan.workerKills} times: each ends right, each handler ran once (again only after a kill, counted), a waiter in another process heard every decision`,
  async () => {
    const lines: string[] = [];
    const result = (await proveActions({ ...plan, log: (line: string) => lines.push(line) })) as Record<string, number | boolean>;
    console.log(lines.join('\n'));
    // Out of order for real: decisions recorded before their proposal, and proposals after their decision.
    expect(result.earlyDecisions).toBeGreaterThan(0);
    expect(result.lateProposals).toBeGreaterThan(0);
    expect(result.wrong).toBe(0);
    expect(result.unexplainedRepeats).toBe(0);
    expect(result.notHeard).toBe(0);
    expect(result.receiverKills).toBe(plan.receiverKills);
    expect(result.workerKills).toBe(plan.workerKills);
    expect(result.creditsLow).toBe(true);
    expect(result.balance).toBeGreaterThanOrEqual(50);
    expect(result.balance).toBeLessThanOrEqual(100);
  },
  full ? 1_800_000 : 180_000,
);
