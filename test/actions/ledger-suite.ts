// The ledger's behaviour, run against every store: the interface's table and each out-of-order
// pair, deduplication, the readings, waiting and handlers. `open(name)` gives a store over the
// data set `name` (the same name, the same data: two processes sharing a store).
import { describe, expect, it } from 'vitest';
import { createActionLedger, type ActionLedger, type ActionRecord, type LedgerStore } from '../../src/actions/index.js';
import { approved, DECIDE, DECISIONS, delivery, expired, proposed, rejected, type DecisionKind } from './events.js';

export type OpenStore = (name: string) => LedgerStore;

const KINDS = Object.keys(DECIDE) as DecisionKind[];
const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));
let sets = 0;

export function ledgerSuite(open: OpenStore): void {
  /** A ledger over a data set of its own (and, with `name`, one shared with other ledgers). */
  const ledgerOver = (name = `set-${++sets}-${Math.random().toString(36).slice(2)}`, options: Parameters<typeof createActionLedger>[0] = {}) =>
    Object.assign(createActionLedger({ ...options, store: open(name) }), { dataSet: name });

  describe('the table: (none) → pending → approved | rejected | expired', () => {
    it('(none) + action.approval_required → pending, with kind, run id, proposal and an estimated expiry 24 h after the proposal', async () => {
      const ledger = ledgerOver();
      const event = proposed('a1', { runId: 42, timestamp: '2026-03-01T10:00:00.000Z' });
      expect(await ledger.record(event)).toMatchObject({ outcome: 'applied', action: { status: 'pending' } });
      expect(await ledger.get('a1')).toEqual({
        actionId: 'a1',
        status: 'pending',
        kind: 'send_email',
        runId: '42',
        proposal: { to: 'lp@example.com' },
        proposedAt: '2026-03-01T10:00:00.000Z',
        expiresAt: { at: '2026-03-02T10:00:00.000Z', estimated: true },
      });
    });

    it.each(KINDS)('pending + action.%s: decided, the decision kept with its fields', async (kind) => {
      const ledger = ledgerOver();
      await ledger.record(proposed(7));
      const decision = DECIDE[kind](7);
      expect(await ledger.record(decision)).toMatchObject({ outcome: 'applied', action: { status: kind } });
      const action = await ledger.get(7);
      expect(action).toMatchObject({ actionId: '7', status: kind, kind: 'send_email', runId: 'run-1', proposal: { to: 'lp@example.com' }, decision: DECISIONS[kind] });
      expect(action?.decidedAt).toBe(kind === 'expired' ? '2026-03-02T09:00:00.000Z' : decision.timestamp);
      expect(action?.expiresAt).toEqual(kind === 'expired' ? { at: '2026-03-02T09:00:00.000Z', estimated: false } : undefined);
      expect(await ledger.get('7')).toEqual(action); // ids as strings: 7 and '7' are one action
    });

    describe.each(KINDS)('%s is final', (first) => {
      it.each(KINDS)(`${first} + action.%s (another delivery) changes nothing`, async (second) => {
        const ledger = ledgerOver();
        await ledger.record(proposed('a'));
        await ledger.record(DECIDE[first]('a'));
        const before = await ledger.get('a');
        expect(await ledger.record(DECIDE[second]('a'))).toMatchObject({ outcome: 'unchanged', action: before });
        expect(await ledger.get('a')).toEqual(before);
      });
    });

    it('pending + action.approval_required again (another delivery of it) changes nothing', async () => {
      const ledger = ledgerOver();
      await ledger.record(proposed('a', { timestamp: '2026-03-01T10:00:00.000Z' }));
      expect((await ledger.record(proposed('a', { timestamp: '2026-03-01T11:00:00.000Z' }))).outcome).toBe('unchanged');
      expect((await ledger.get('a'))?.proposedAt).toBe('2026-03-01T10:00:00.000Z');
    });
  });

  describe('out of order', () => {
    it.each(KINDS)('action.%s before its action.approval_required: kept and applied; the late proposal is ignored', async (kind) => {
      const ledger = ledgerOver();
      expect(await ledger.record(DECIDE[kind]('early'))).toMatchObject({ outcome: 'applied', action: { status: kind } });
      const decided = await ledger.get('early');
      expect(decided).toMatchObject({ status: kind, kind: 'send_email', decision: DECISIONS[kind] });
      expect(decided?.proposal).toBeUndefined();
      expect((await ledger.record(proposed('early'))).outcome).toBe('unchanged');
      expect(await ledger.get('early')).toEqual(decided);
      expect(await collect(ledger.pending())).toEqual([]);
    });

    it('action.expired first: kind from action_type, no run id (the event names none)', async () => {
      const ledger = ledgerOver();
      await ledger.record(expired('x', { kind: 'capital_call' }));
      expect(await ledger.get('x')).toMatchObject({ status: 'expired', kind: 'capital_call', runId: undefined });
    });

    it('action.expired after its proposal: the run id is the proposal\'s', async () => {
      const ledger = ledgerOver();
      await ledger.record(proposed('x', { runId: 'run-9', kind: 'capital_call' }));
      await ledger.record(expired('x', { kind: 'capital_call' }));
      expect(await ledger.get('x')).toMatchObject({ status: 'expired', kind: 'capital_call', runId: 'run-9' });
      expect((await ledger.run('run-9')).actions.map((action) => action.actionId)).toEqual(['x']);
    });
  });

  describe('at once, from two processes', () => {
    it('a proposal and its decision recorded at the same moment by two ledgers: every action ends decided (no lost update)', async () => {
      const first = ledgerOver();
      const second = ledgerOver(first.dataSet);
      const ids = Array.from({ length: 40 }, (_, index) => `race-${index}`);
      await Promise.all(ids.map((id, index) => Promise.all(index % 2 ? [first.record(proposed(id)), second.record(approved(id))] : [second.record(approved(id)), first.record(proposed(id))])));
      const statuses = await Promise.all(ids.map(async (id) => (await first.get(id))?.status));
      expect(statuses).toEqual(ids.map(() => 'approved'));
      expect(await collect(first.pending())).toEqual([]);
    });

    it('one delivery recorded by two ledgers at the same moment is applied once', async () => {
      const first = ledgerOver();
      const second = ledgerOver(first.dataSet);
      const event = delivery('job.completed', { run_id: 'once', agent_name: 'a', output: 1 });
      const outcomes = (await Promise.all([first.record(event), second.record(event)])).map((result) => result.outcome).sort();
      expect(outcomes).toEqual(['applied', 'duplicate']);
      expect((await first.run('once')).jobs).toHaveLength(1);
    });
  });

  describe('deliveries seen before', () => {
    it.each([
      ['a proposal', () => proposed('d')],
      ['a decision', () => approved('d')],
    ])('%s delivered twice (one delivery_id) is recorded once: the second is a duplicate', async (_name, make) => {
      const ledger = ledgerOver();
      const event = make();
      expect((await ledger.record(event)).outcome).toBe('applied');
      expect(await ledger.record(event)).toMatchObject({ outcome: 'duplicate', action: await ledger.get('d') });
    });

    it('a job outcome delivered twice is one outcome', async () => {
      const ledger = ledgerOver();
      const event = delivery('job.completed', { run_id: 'r', agent_name: 'diligence', output: { ok: 1 } });
      await ledger.record(event);
      expect((await ledger.record(event)).outcome).toBe('duplicate');
      expect((await ledger.run('r')).jobs).toHaveLength(1);
    });

    it('a delivery that changed nothing is still seen: delivered again, it is a duplicate', async () => {
      const ledger = ledgerOver();
      await ledger.record(approved('d'));
      const late = proposed('d');
      expect((await ledger.record(late)).outcome).toBe('unchanged');
      expect((await ledger.record(late)).outcome).toBe('duplicate');
    });
  });

  describe('what the ledger does not take', () => {
    it('ignores events that are not action.*, job.* or credit.*', async () => {
      const ledger = ledgerOver();
      expect(await ledger.record(delivery('document.uploaded', { room_id: 1, document_id: 1, filename: 'a', uploader_id: 1 }))).toEqual({ outcome: 'ignored' });
      expect(await ledger.record(delivery('action.retried', { action_id: 'z' }))).toEqual({ outcome: 'ignored' });
    });

    it.each([
      ['action.approved', { run_id: 'r', kind: 'k', result: 1 }, 'data.action_id'],
      ['action.approval_required', { action_id: 'a', kind: 'k', proposal: 1 }, 'data.run_id'],
      ['action.rejected', { action_id: 'a', run_id: 'r', reason: 'no' }, 'data.kind'],
      ['action.expired', { action_id: 'a', expired_at: '2026-03-02T00:00:00.000Z', expiry_hours: 24 }, 'data.action_type'],
      ['action.expired', { action_id: 'a', action_type: 'k', expired_at: '2026-03-02T00:00:00.000Z', expiry_hours: '24' }, 'data.expiry_hours'],
      ['credit.low', { balance: 'ninety', threshold: 100 }, 'data.balance'],
      ['job.failed', { run_id: 'r', error: 'x' }, 'data.agent_name'],
    ])('%s without a usable field: a TypeError naming %j\'s missing field, nothing recorded', async (kind, data, field) => {
      const ledger = ledgerOver();
      const error = await ledger.record(delivery(kind, data)).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(/^\[svc-sdk\] actions ledger: /);
      expect((error as Error).message).toContain(field);
      expect(await ledger.get('a')).toBeUndefined();
    });

    it('bad arguments are TypeErrors that name the argument', async () => {
      const ledger = ledgerOver();
      expect(() => ledger.waitForDecision('', {})).toThrow(/actionId must be a non-empty string or a number/);
      expect(() => ledger.waitForDecision('a', { timeoutMs: -1 })).toThrow(/timeoutMs must be a non-negative number/);
      await expect(ledger.dueSoon(Number.NaN)).rejects.toThrow(/dueSoon: withinMs/);
      expect(() => ledger.pending({ expiringWithinMs: -5 })).toThrow(/expiringWithinMs must be 0 or more/);
      expect(() => ledger.onDecision(undefined as never)).toThrow(/handler must be a function/);
      expect(() => createActionLedger({ store: open('x'), windows: { kinds: { capital_call: 0 } } })).toThrow(/windows\.kinds\.capital_call must be a positive/);
      expect(() => createActionLedger({ store: {} as LedgerStore })).toThrow(/store must be a LedgerStore/);
    });
  });

  describe('reading', () => {
    it('pending({ kind, runId, expiringWithinMs }) with per-kind windows, oldest proposal first; dueSoon soonest expiry first', async () => {
      const hour = 3_600_000;
      const ledger = ledgerOver(undefined, { windows: { defaultMs: 24 * hour, kinds: { capital_call: 72 * hour } } });
      const now = Date.now();
      const ago = (ms: number) => new Date(now - ms).toISOString();
      await ledger.record(proposed('email-old', { timestamp: ago(23 * hour), runId: 'r1' })); // expires in 1 h
      await ledger.record(proposed('call-old', { kind: 'capital_call', timestamp: ago(50 * hour), runId: 'r2' })); // in 22 h
      await ledger.record(proposed('email-new', { timestamp: ago(1 * hour), runId: 'r2' })); // in 23 h
      await ledger.record(proposed('done', { timestamp: ago(2 * hour) }));
      await ledger.record(approved('done'));
      const ids = async (filter?: Parameters<ActionLedger['pending']>[0]) => (await collect(ledger.pending(filter))).map((action) => action.actionId);
      expect(await ids()).toEqual(['call-old', 'email-old', 'email-new']);
      expect(await ids({ kind: 'send_email' })).toEqual(['email-old', 'email-new']);
      expect(await ids({ runId: 'r2' })).toEqual(expect.arrayContaining(['call-old', 'email-new']));
      expect(await ids({ runId: 'r2' })).toHaveLength(2);
      expect(await ids({ expiringWithinMs: 2 * hour })).toEqual(['email-old']);
      expect(await ids({ expiringWithinMs: 22.5 * hour })).toEqual(['call-old', 'email-old']);
      const { dueSoon } = ledger; // a method taken off the ledger still works (no `this`)
      expect((await dueSoon(23.5 * hour)).map((action) => action.actionId)).toEqual(['email-old', 'call-old', 'email-new']);
      const [call] = (await collect(ledger.pending({ kind: 'capital_call' }))) as ActionRecord[];
      expect(call?.expiresAt).toEqual({ at: new Date(now - 50 * hour + 72 * hour).toISOString(), estimated: true });
    });

    it('run(runId): its actions oldest first and its job outcomes by time, the newest as outcome', async () => {
      const ledger = ledgerOver();
      await ledger.record(proposed('second', { runId: 'r', timestamp: '2026-03-01T10:00:00.000Z' }));
      await ledger.record(proposed('first', { runId: 'r', timestamp: '2026-03-01T09:00:00.000Z' }));
      await ledger.record(proposed('other', { runId: 'elsewhere' }));
      await ledger.record(delivery('job.failed', { run_id: 'r', agent_name: 'diligence', error: 'boom' }, { timestamp: '2026-03-01T12:00:00.000Z' }));
      await ledger.record(delivery('job.completed', { run_id: 'r', agent_name: 'diligence', output: { ok: true } }, { timestamp: '2026-03-01T11:00:00.000Z' }));
      const run = await ledger.run('r');
      expect(run.actions.map((action) => action.actionId)).toEqual(['first', 'second']);
      expect(run.jobs).toEqual([
        { status: 'completed', agentName: 'diligence', output: { ok: true }, at: '2026-03-01T11:00:00.000Z' },
        { status: 'failed', agentName: 'diligence', error: 'boom', at: '2026-03-01T12:00:00.000Z' },
      ]);
      expect(run.outcome).toEqual(run.jobs[1]);
      expect(await ledger.run('none')).toEqual({ runId: 'none', actions: [], jobs: [], outcome: undefined });
    });

    it('credits(): the last balance, low and exhausted, since when; a late, older event does not bring back an old balance', async () => {
      const ledger = ledgerOver();
      expect(await ledger.credits()).toEqual({ balance: undefined, low: false, exhausted: false, threshold: 100, since: undefined, updatedAt: undefined });
      const at = (minute: number) => `2026-03-01T10:${String(minute).padStart(2, '0')}:00.000Z`;
      await ledger.record(delivery('credit.low', { balance: 90, threshold: 100 }, { timestamp: at(1) }));
      await ledger.record(delivery('credit.low', { balance: 40, threshold: 100 }, { timestamp: at(2) }));
      expect(await ledger.credits()).toEqual({ balance: 40, low: true, exhausted: false, threshold: 100, since: at(1), updatedAt: at(2) });
      await ledger.record(delivery('credit.exhausted', { balance: 0 }, { timestamp: at(3) }));
      expect(await ledger.credits()).toMatchObject({ balance: 0, low: true, exhausted: true, since: at(3) });
      expect((await ledger.record(delivery('credit.low', { balance: 60, threshold: 100 }, { timestamp: at(2) }))).outcome).toBe('unchanged');
      expect((await ledger.credits()).balance).toBe(0);
      await ledger.record(delivery('credit.granted', { amount: 500, new_balance: 500, note: 'top-up' }, { timestamp: at(4) }));
      expect(await ledger.credits()).toEqual({ balance: 500, low: false, exhausted: false, threshold: 100, since: at(4), updatedAt: at(4) });
      await ledger.record(delivery('credit.granted', { amount: 50, new_balance: 80, note: 'small' }, { timestamp: at(5) }));
      expect(await ledger.credits()).toMatchObject({ balance: 80, low: true, exhausted: false, since: at(5) });
    });
  });

  describe('waitForDecision', () => {
    it.each(KINDS)('resolves with an earlier %s decision at once, and with one recorded later by another ledger on the same store', async (kind) => {
      const writer = ledgerOver();
      const reader = ledgerOver(writer.dataSet, { pollMs: 60_000 });
      await writer.record(proposed('early'));
      await writer.record(DECIDE[kind]('early'));
      expect(await reader.waitForDecision('early', { timeoutMs: 5000 })).toEqual(DECISIONS[kind]);
      await writer.record(proposed('later'));
      const waiting = reader.waitForDecision('later', { timeoutMs: 5000 });
      await sleep(20);
      await writer.record(DECIDE[kind]('later'));
      expect(await waiting).toEqual(DECISIONS[kind]);
      await Promise.all([writer.close(), reader.close()]);
    });

    it('resolves { status: "timeout" } after timeoutMs while pending', async () => {
      const ledger = ledgerOver();
      await ledger.record(proposed('slow'));
      const result = await ledger.waitForDecision('slow', { timeoutMs: 50 });
      expect(result).toMatchObject({ status: 'timeout' });
      expect((result as { waitedMs: number }).waitedMs).toBeGreaterThanOrEqual(45);
    });

    it('rejects with the signal\'s reason when it aborts, before or while waiting', async () => {
      const ledger = ledgerOver();
      const reason = new Error('cancelled by the workflow');
      await expect(ledger.waitForDecision('gone', { signal: AbortSignal.abort(reason) })).rejects.toBe(reason);
      const controller = new AbortController();
      const waiting = ledger.waitForDecision('gone', { signal: controller.signal, timeoutMs: 5000 });
      controller.abort(reason);
      await expect(waiting).rejects.toBe(reason);
    });
  });

  describe('onDecision', () => {
    it('runs once per decided action across two ledgers sharing the store, told run 1', async () => {
      const first = ledgerOver();
      const second = ledgerOver(first.dataSet);
      const seen: string[] = [];
      const handler = (action: ActionRecord, context: { run: number }) => void seen.push(`${action.actionId}:${action.status}:${context.run}`);
      const subscriptions = [first.onDecision(handler, { pollMs: 20 }), second.onDecision(handler, { pollMs: 20 })];
      for (const kind of KINDS) {
        await first.record(proposed(kind));
        await second.record(DECIDE[kind](kind));
      }
      await first.record(proposed('pending-only'));
      await until(async () => (await Promise.all(KINDS.map((kind) => first.handled(kind)))).every(({ done }) => done));
      await sleep(100);
      expect(seen.sort()).toEqual(['approved:approved:1', 'expired:expired:1', 'rejected:rejected:1']);
      expect(await first.handled('approved')).toEqual({ runs: 1, done: true });
      expect(await first.handled('pending-only')).toEqual({ runs: 0, done: false });
      await Promise.all(subscriptions.map((subscription) => subscription.close()));
    });

    it('a handler registered later hears the decisions made before; another name hears them again', async () => {
      const ledger = ledgerOver();
      await ledger.record(approved('before'));
      const seen: string[] = [];
      const one = ledger.onDecision((action) => void seen.push(`default:${action.actionId}`), { pollMs: 20 });
      const two = ledger.onDecision((action) => void seen.push(`audit:${action.actionId}`), { name: 'audit', pollMs: 20 });
      await until(() => seen.length >= 2);
      expect(seen.sort()).toEqual(['audit:before', 'default:before']);
      await Promise.all([one.close(), two.close()]);
    });

    it('a handler that throws runs again after retryDelayMs, told run 2, and the ledger counts both runs', async () => {
      const ledger = ledgerOver();
      const runs: number[] = [];
      const errors: unknown[] = [];
      const subscription = ledger.onDecision(
        (_action, { run }) => {
          runs.push(run);
          if (run === 1) throw new Error('downstream down');
        },
        { pollMs: 20, retryDelayMs: 30, onError: (error) => errors.push(error) },
      );
      await ledger.record(rejected('flaky'));
      await until(async () => (await ledger.handled('flaky')).done);
      await sleep(100);
      expect(runs).toEqual([1, 2]);
      expect(errors).toHaveLength(1);
      expect(await ledger.handled('flaky')).toEqual({ runs: 2, done: true });
      await subscription.close();
    });

    it('a run whose process died (claimed, never finished) is run again once its lease expired, told run 2', async () => {
      const ledger = ledgerOver();
      const store = open(ledger.dataSet);
      await ledger.record(approved('crashed'));
      // What a process that died mid-run leaves: a claim with a lease, never finished.
      expect(await store.handlerTodo('default', 10)).toEqual(['crashed']);
      expect(await store.claimHandler('default', 'crashed', 'dead-process', 600)).toEqual({ claimed: true, run: 1 });
      const runs: number[] = [];
      const subscription = ledger.onDecision((_action, { run }) => void runs.push(run), { pollMs: 25 });
      await sleep(150);
      expect(runs).toEqual([]); // the lease (600 ms) still holds
      // Done is written after the handler returns (one more round trip on Redis): wait for it, not for the call.
      await until(async () => (await ledger.handled('crashed')).done);
      expect(runs).toEqual([2]);
      expect(await ledger.handled('crashed')).toEqual({ runs: 2, done: true });
      await subscription.close();
    });

    it('a long handler keeps its claim by renewing the lease: no other process runs it meanwhile', async () => {
      const first = ledgerOver();
      const second = ledgerOver(first.dataSet);
      const runs: string[] = [];
      const slow = first.onDecision(async () => {
        runs.push('first');
        await sleep(1500);
      }, { leaseMs: 600, pollMs: 20 });
      await first.record(approved('long'));
      await until(() => runs.length === 1);
      const other = second.onDecision(() => void runs.push('second'), { leaseMs: 600, pollMs: 20 });
      // The run takes 2.5 leases: without renewals (every 200 ms) the second would have taken it over.
      await until(async () => (await first.handled('long')).done);
      await sleep(100);
      expect(runs).toEqual(['first']);
      expect(await first.handled('long')).toEqual({ runs: 1, done: true });
      await Promise.all([slow.close(), other.close()]);
    });
  });
}

async function collect<T>(items: AsyncIterable<T>): Promise<T[]> {
  const all: T[] = [];
  for await (const item of items) all.push(item);
  return all;
}

/** Waits until `condition` holds (checked every 10 ms), failing after 5 s. */
export async function until(condition: () => boolean | Promise<boolean>, timeoutMs = 5000): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  while (!(await condition())) {
    if (Date.now() > deadline) throw new Error('condition not met in time');
    await sleep(10);
  }
}
