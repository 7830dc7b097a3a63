// The ledger over the in-memory store: one store object per data set, shared by the ledgers of a test
// as processes share a Redis.
import { describe, expect, it, vi } from 'vitest';
import { createActionLedger, createMemoryLedgerStore, type LedgerStore } from '../../src/actions/index.js';
import { approved, delivery, proposed } from './events.js';
import { ledgerSuite, until } from './ledger-suite.js';

const stores = new Map<string, LedgerStore>();

describe('createActionLedger({ store: createMemoryLedgerStore() })', () => {
  ledgerSuite((name) => {
    let store = stores.get(name);
    if (!store) stores.set(name, (store = createMemoryLedgerStore()));
    return store;
  });
});

/** A memory store with some of its methods replaced: what a custom LedgerStore, or one misbehaving, does. */
function storeWith(overrides: (inner: LedgerStore) => Partial<LedgerStore>): LedgerStore {
  const inner = createMemoryLedgerStore();
  return { ...inner, ...overrides(inner) };
}

describe('createActionLedger over a store that misbehaves', () => {
  it('a document that keeps changing under record (every commit a conflict): 100 reads, then an error saying to record again', async () => {
    let reads = 0;
    const store = storeWith((inner) => ({
      read: (key, deliveryId) => ((reads += 1), inner.read(key, deliveryId)),
      commit: async () => 'conflict',
    }));
    const ledger = createActionLedger({ store });
    await expect(ledger.record(proposed('busy'))).rejects.toThrow(/^\[svc-sdk\] actions ledger: action:busy kept changing under this record \(100 tries\); record the event again/);
    expect(reads).toBe(100);
  });

  it('a commit that finds the delivery seen meanwhile (another process recorded it) is a duplicate, the document as read', async () => {
    const store = storeWith(() => ({ commit: async () => 'duplicate' }));
    const ledger = createActionLedger({ store });
    expect(await ledger.record(proposed('raced'))).toEqual({ outcome: 'duplicate', action: undefined });
  });

  it('a store whose notifications never come: waitForDecision and onDecision still hear the decision, by polling', async () => {
    const store = storeWith(() => ({ subscribe: () => () => undefined }));
    const ledger = createActionLedger({ store, pollMs: 20 });
    await ledger.record(proposed('unheard'));
    const waiting = ledger.waitForDecision('unheard', { timeoutMs: 10_000 });
    const handled: string[] = [];
    const subscription = ledger.onDecision((action) => void handled.push(action.actionId), { pollMs: 20 });
    await ledger.record(approved('unheard'));
    expect(await waiting).toMatchObject({ status: 'approved' });
    await until(async () => (await ledger.handled('unheard')).done);
    expect(handled).toEqual(['unheard']);
    await subscription.close();
  });

  it('a store that cannot be read for a while (Redis restarting): the handler runs once it can, the wait resolves once it can', async () => {
    let failing = true;
    const store = storeWith((inner) => ({
      subscribe: () => () => undefined,
      handlerTodo: (name, limit) => (failing ? Promise.reject(new Error('ECONNREFUSED')) : inner.handlerTodo(name, limit)),
      getMany: (keys) => (failing ? Promise.reject(new Error('ECONNREFUSED')) : inner.getMany(keys)),
    }));
    const ledger = createActionLedger({ store, pollMs: 20 });
    await ledger.record(approved('restarting'));
    const handled: string[] = [];
    const subscription = ledger.onDecision((action) => void handled.push(action.actionId), { pollMs: 20 });
    const waiting = ledger.waitForDecision('restarting', { timeoutMs: 10_000 });
    let settled = false;
    void waiting.finally(() => (settled = true));
    // Neither has anything to go on while the store fails: wait for the handler loop to have tried (a state), then heal it.
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(handled).toEqual([]);
    expect(settled).toBe(false);
    failing = false;
    expect(await waiting).toMatchObject({ status: 'approved' });
    await until(async () => (await ledger.handled('restarting')).done);
    expect(handled).toEqual(['restarting']);
    await subscription.close();
  });
});

describe('createMemoryLedgerStore({ deliveryTtlMs })', () => {
  it('forgets a delivery_id after deliveryTtlMs: delivered again later, it is recorded as new', async () => {
    vi.useFakeTimers({ toFake: ['Date'] });
    try {
      vi.setSystemTime(Date.parse('2026-03-01T09:00:00.000Z'));
      const ledger = createActionLedger({ store: createMemoryLedgerStore({ deliveryTtlMs: 30 }) });
      const job = delivery('job.completed', { run_id: 'ttl', agent_name: 'a', output: 1 });
      expect((await ledger.record(job)).outcome).toBe('applied');
      vi.setSystemTime(Date.now() + 29);
      expect((await ledger.record(job)).outcome).toBe('duplicate');
      vi.setSystemTime(Date.now() + 1);
      expect((await ledger.record(job)).outcome).toBe('applied');
      expect((await ledger.run('ttl')).jobs).toHaveLength(2);
    } finally {
      vi.useRealTimers();
    }
  });

  it('refuses a deliveryTtlMs that is not a positive number', () => {
    for (const deliveryTtlMs of [0, -1, Number.NaN]) expect(() => createMemoryLedgerStore({ deliveryTtlMs })).toThrow(/^\[svc-sdk\] createMemoryLedgerStore: deliveryTtlMs must be a positive number of ms/);
  });
});
