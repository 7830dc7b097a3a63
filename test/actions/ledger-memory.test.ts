// The ledger over the in-memory store: one store object per data set, shared by the ledgers of a test
// as processes share a Redis.
import { getEventListeners } from 'node:events';
import { describe, expect, it, vi } from 'vitest';
import { createActionLedger, createMemoryLedgerStore, type LedgerStore } from '../../src/actions/index.js';
import { approved, delivery, proposed, rejected } from './events.js';
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

describe('createActionLedger: what the waits and handlers hold on to', () => {
  /** A memory store that counts reads and (un)subscriptions, its notifications on or off. */
  function counted(notify: boolean) {
    const counts = { reads: 0, subscribed: 0, unsubscribed: 0 };
    const store = storeWith((inner) => ({
      getMany: (keys) => ((counts.reads += 1), inner.getMany(keys)),
      subscribe: (listener) => {
        counts.subscribed += 1;
        const off = notify ? inner.subscribe(listener) : () => undefined;
        return () => ((counts.unsubscribed += 1), off());
      },
    }));
    return { store, counts };
  }

  it('a wait that ended gives back its subscription and poll; the next wait takes them again (told by notifications alone)', async () => {
    const { store, counts } = counted(true);
    const ledger = createActionLedger({ store, pollMs: 60_000 });
    await ledger.record(proposed('w1'));
    const first = ledger.waitForDecision('w1', { timeoutMs: 10_000 });
    await ledger.record(approved('w1'));
    expect(await first).toMatchObject({ status: 'approved' });
    expect(counts).toMatchObject({ subscribed: 1, unsubscribed: 1 });
    await ledger.record(proposed('w2'));
    const second = ledger.waitForDecision('w2', { timeoutMs: 10_000 });
    await ledger.record(rejected('w2'));
    expect(await second).toMatchObject({ status: 'rejected' });
    expect(counts).toMatchObject({ subscribed: 2, unsubscribed: 2 });
    // Two waits on one action: the subscription stays until the last one ends.
    await ledger.record(proposed('w3'));
    const both = [ledger.waitForDecision('w3', { timeoutMs: 10_000 }), ledger.waitForDecision('w3', { timeoutMs: 0 })];
    expect(await both[1]).toMatchObject({ status: 'timeout' });
    expect(counts.unsubscribed).toBe(2);
    await ledger.record(approved('w3'));
    expect(await both[0]).toMatchObject({ status: 'approved' });
    expect(counts).toMatchObject({ subscribed: 3, unsubscribed: 3 });
  });

  it('without notifications, each wait polls while it waits and stops once it ended; close() ends the waits\' polling', async () => {
    const { store, counts } = counted(false);
    const ledger = createActionLedger({ store, pollMs: 10 });
    await ledger.record(proposed('p1'));
    const first = ledger.waitForDecision('p1', { timeoutMs: 10_000 });
    await ledger.record(approved('p1'));
    expect(await first).toMatchObject({ status: 'approved' });
    await ledger.record(proposed('p2'));
    const second = ledger.waitForDecision('p2', { timeoutMs: 10_000 });
    await ledger.record(approved('p2'));
    expect(await second).toMatchObject({ status: 'approved' });
    const after = counts.reads;
    // No wait under way: nothing reads (a bound on nothing happening, so never flaky).
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(counts.reads).toBe(after);
    void ledger.waitForDecision('forever');
    await until(() => counts.reads > after + 1);
    await ledger.close();
    expect(counts.unsubscribed).toBe(counts.subscribed);
    const closedAt = counts.reads;
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(counts.reads).toBe(closedAt);
  });

  it('a wait that ended, however it ended, and every wait at close(), leaves no timer and no abort listener behind (a process with nothing else to do can exit)', async () => {
    // The memory store sets no timer of its own: every timer counted is a wait's.
    vi.useFakeTimers({ toFake: ['setTimeout', 'clearTimeout', 'setInterval', 'clearInterval'] });
    try {
      const ledger = createActionLedger({ pollMs: 1000 });
      const controller = new AbortController();
      await ledger.record(proposed('held'));
      const decided = ledger.waitForDecision('held', { timeoutMs: 86_400_000, signal: controller.signal });
      // Its timeout and the poll.
      expect(vi.getTimerCount()).toBe(2);
      expect(getEventListeners(controller.signal, 'abort')).toHaveLength(1);
      await ledger.record(approved('held'));
      expect(await decided).toMatchObject({ status: 'approved' });
      expect(vi.getTimerCount()).toBe(0);
      expect(getEventListeners(controller.signal, 'abort')).toEqual([]);

      const timedOut = ledger.waitForDecision('unknown', { timeoutMs: 5000, signal: controller.signal });
      await vi.advanceTimersByTimeAsync(5000);
      expect(await timedOut).toMatchObject({ status: 'timeout' });
      expect(vi.getTimerCount()).toBe(0);
      expect(getEventListeners(controller.signal, 'abort')).toEqual([]);

      const aborted = ledger.waitForDecision('unknown', { timeoutMs: 5000, signal: controller.signal });
      const reason = new Error('stop');
      controller.abort(reason);
      await expect(aborted).rejects.toBe(reason);
      expect(vi.getTimerCount()).toBe(0);

      // close() ends the timers of the waits under way, which stay unresolved: the ledger is closing.
      const other = new AbortController();
      let settled = false;
      for (const id of ['open-1', 'open-1', 'open-2']) void ledger.waitForDecision(id, { timeoutMs: 5000, signal: other.signal }).finally(() => (settled = true));
      expect(vi.getTimerCount()).toBe(4);
      await ledger.close();
      expect(vi.getTimerCount()).toBe(0);
      expect(getEventListeners(other.signal, 'abort')).toEqual([]);
      await vi.advanceTimersByTimeAsync(10_000);
      other.abort();
      await Promise.resolve();
      expect(settled).toBe(false);
    } finally {
      vi.useRealTimers();
    }
  });

  it('a notification of an action no one waits for reads nothing; one of a waited action reads it once', async () => {
    const { store, counts } = counted(true);
    const ledger = createActionLedger({ store, pollMs: 60_000 });
    await ledger.record(proposed('waited'));
    const waiting = ledger.waitForDecision('waited', { timeoutMs: 10_000 });
    await until(() => counts.reads === 1); // the wait's first read
    await ledger.record(approved('not-waited'));
    await ledger.record(approved('waited'));
    expect(await waiting).toMatchObject({ status: 'approved' });
    expect(counts.reads).toBe(2);
  });

  it('a wait that ended while its read was under way: the read that finds the decision later hands it to no one, without an error', async () => {
    let release: (() => void) | undefined;
    const store = storeWith((inner) => ({
      getMany: async (keys) => {
        await new Promise<void>((resolve) => (release = resolve));
        return inner.getMany(keys);
      },
    }));
    const ledger = createActionLedger({ store, pollMs: 60_000 });
    const errors: unknown[] = [];
    const onRejection = (error: unknown) => errors.push(error);
    process.on('unhandledRejection', onRejection);
    try {
      await ledger.record(approved('raced-wait'));
      // Decided already, but the read is held: the 0 ms timeout ends the wait first.
      expect(await ledger.waitForDecision('raced-wait', { timeoutMs: 0 })).toMatchObject({ status: 'timeout' });
      release!();
      await new Promise((resolve) => setTimeout(resolve, 50));
      expect(errors).toEqual([]);
    } finally {
      process.off('unhandledRejection', onRejection);
    }
  });

  it('a closed handler subscription gives back its notification listener', async () => {
    const { store, counts } = counted(true);
    const ledger = createActionLedger({ store });
    const subscription = ledger.onDecision(() => undefined, { pollMs: 60_000 });
    expect(counts).toMatchObject({ subscribed: 1, unsubscribed: 0 });
    await subscription.close();
    expect(counts).toMatchObject({ subscribed: 1, unsubscribed: 1 });
  });

  it('a timeout tells how long it waited, no more than it could have', async () => {
    const ledger = createActionLedger();
    const started = Date.now();
    const result = await ledger.waitForDecision('never', { timeoutMs: 30 });
    const bound = Date.now() - started;
    expect(result).toMatchObject({ status: 'timeout' });
    expect((result as { waitedMs: number }).waitedMs).toBeGreaterThanOrEqual(25);
    expect((result as { waitedMs: number }).waitedMs).toBeLessThanOrEqual(bound);
  });

  it('a decision that arrives while a handler loop sleeps wakes it (pollMs a minute), and close() does not wait out the sleep', async () => {
    const ledger = createActionLedger();
    const handled: string[] = [];
    const subscription = ledger.onDecision((action) => void handled.push(action.actionId), { pollMs: 60_000 });
    await ledger.record(approved('woken'));
    await until(async () => (await ledger.handled('woken')).done);
    expect(handled).toEqual(['woken']);
    await subscription.close();
  });

  it('a decision notified while a pass reads the queue is taken at once, not after a sleep of pollMs', async () => {
    let passes = 0;
    const late: { ledger?: ReturnType<typeof createActionLedger> } = {};
    const store = storeWith((inner) => ({
      handlerTodo: async (name, limit) => {
        const todo = await inner.handlerTodo(name, limit);
        // The first pass finds nothing; a decision is committed (and notified) before it ends.
        if ((passes += 1) === 1) await late.ledger!.record(approved('mid-pass'));
        return todo;
      },
    }));
    const ledger = (late.ledger = createActionLedger({ store }));
    const handled: string[] = [];
    const subscription = ledger.onDecision((action) => void handled.push(action.actionId), { pollMs: 60_000 });
    await until(async () => (await ledger.handled('mid-pass')).done);
    expect(handled).toEqual(['mid-pass']);
    await subscription.close();
  });

  it('a run renews its lease while it runs and stops renewing once it ended, whether it threw or returned', async () => {
    let renewals = 0;
    const store = storeWith((inner) => ({ renewHandler: (...args) => ((renewals += 1), inner.renewHandler(...args)) }));
    const ledger = createActionLedger({ store });
    const subscription = ledger.onDecision(
      async (_action, { run }) => {
        const from = renewals;
        await until(() => renewals > from);
        if (run === 1) throw new Error('after one renewal');
      },
      { leaseMs: 30, pollMs: 20, retryDelayMs: 0, onError: () => undefined },
    );
    await ledger.record(approved('renewed'));
    await until(async () => (await ledger.handled('renewed')).done);
    expect(await ledger.handled('renewed')).toEqual({ runs: 2, done: true });
    const after = renewals;
    // Both runs ended: nothing renews any more (a bound on nothing happening, so never flaky).
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(renewals).toBe(after);
    await subscription.close();
  });

  it('more decisions than one pass takes (500) are all handled without waiting for a poll', async () => {
    const ledger = createActionLedger();
    const ids = Array.from({ length: 520 }, (_, index) => `bulk-${index}`);
    for (const id of ids) await ledger.record(approved(id));
    let handled = 0;
    const subscription = ledger.onDecision(() => void (handled += 1), { pollMs: 60_000 });
    await until(async () => (await ledger.handled(ids.at(-1)!)).done, 15_000);
    expect(handled).toBe(ids.length);
    await subscription.close();
  });

  it('a store that fails is tried again after pollMs, not at once, even when a decision was notified meanwhile', async () => {
    let tries = 0;
    const late: { ledger?: ReturnType<typeof createActionLedger> } = {};
    const store = storeWith(() => ({
      handlerTodo: async () => {
        // A decision notified while the pass fails: heard, yet the store is down.
        if ((tries += 1) === 1) await late.ledger!.record(approved('while-down'));
        throw new Error('ECONNREFUSED');
      },
    }));
    const ledger = (late.ledger = createActionLedger({ store }));
    const subscription = ledger.onDecision(() => undefined, { pollMs: 60_000 });
    await until(async () => (await ledger.get('while-down')) !== undefined);
    // The next try is a minute away (a bound on nothing happening, so never flaky).
    await new Promise((resolve) => setTimeout(resolve, 100));
    expect(tries).toBe(1);
    await subscription.close();
  });

  it('close() while a pass reads the queue ends the loop without sleeping pollMs', async () => {
    const closing: { done?: Promise<void> } = {};
    const late: { subscription?: { close(): Promise<void> } } = {};
    const store = storeWith((inner) => ({
      handlerTodo: async (name, limit) => {
        if (late.subscription) closing.done ??= late.subscription.close();
        return inner.handlerTodo(name, limit);
      },
    }));
    const ledger = createActionLedger({ store });
    late.subscription = ledger.onDecision(() => undefined, { pollMs: 60_000 });
    // The first pass began before the subscription was returned; a decision wakes the second, which closes it.
    await ledger.record(approved('wakes'));
    await until(() => closing.done !== undefined);
    await closing.done;
  });

  it('a subscription closed during a run takes no further action from the batch', async () => {
    const ledger = createActionLedger();
    for (const id of ['b1', 'b2', 'b3']) await ledger.record(approved(id));
    const handled: string[] = [];
    let closing: Promise<void> | undefined;
    const subscription = ledger.onDecision((action) => {
      handled.push(action.actionId);
      closing = subscription.close();
    });
    await until(() => closing !== undefined);
    await closing;
    expect(handled).toEqual(['b1']);
    expect(await ledger.handled('b2')).toEqual({ runs: 0, done: false });
  });
});
