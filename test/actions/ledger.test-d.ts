import { describe, expectTypeOf, test } from 'vitest';
import { createActionLedger, type ActionDecision, type ActionRecord, type DecisionTimeout } from '../../src/actions/index.js';

const ledger = createActionLedger();

describe('the ledger\'s types', () => {
  test('waitForDecision narrows on status: a decision, or a timeout told apart', async () => {
    const decision = await ledger.waitForDecision('act_1', { timeoutMs: 1000 });
    expectTypeOf(decision).toEqualTypeOf<ActionDecision | DecisionTimeout>();
    if (decision.status === 'approved') expectTypeOf(decision.result).toBeUnknown();
    if (decision.status === 'rejected') expectTypeOf(decision.reason).toEqualTypeOf<string>();
    if (decision.status === 'expired') expectTypeOf(decision.expiryHours).toEqualTypeOf<number>();
    if (decision.status === 'timeout') expectTypeOf(decision.waitedMs).toEqualTypeOf<number>();
  });

  test('an onDecision handler gets an action whose decision is known', () => {
    ledger.onDecision((action, { run }) => {
      expectTypeOf(action.decision).toEqualTypeOf<ActionDecision>();
      expectTypeOf(run).toEqualTypeOf<number>();
    });
  });

  test('pending is an async iterable of actions; ids may be numbers', () => {
    expectTypeOf(ledger.pending({ runId: 7 })).toEqualTypeOf<AsyncIterable<ActionRecord>>();
    expectTypeOf(ledger.get).parameter(0).toEqualTypeOf<string | number>();
  });
});
