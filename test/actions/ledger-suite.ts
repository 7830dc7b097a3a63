// The ledger's behaviour, run against every store: the interface's table and each out-of-order
// pair, deduplication, the readings, waiting and handlers. `open(name)` gives a store over the
// data set `name` (the same name, the same data: two processes sharing a store).
import { describe, expect, it, vi } from 'vitest';
import { createActionLedger, type ActionLedger, type ActionRecord, type LedgerStore } from '../../src/actions/index.js';
import type { WebhookEvent } from '../../src/webhooks/index.js';
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
    it.each(KINDS)('action.%s before its action.approval_required: kept and applied; the late proposal adds only what the decision lacked', async (kind) => {
      const ledger = ledgerOver();
      expect(await ledger.record(DECIDE[kind]('early'))).toMatchObject({ outcome: 'applied', action: { status: kind } });
      const decided = await ledger.get('early');
      expect(decided).toMatchObject({ status: kind, kind: 'send_email', decision: DECISIONS[kind] });
      expect(decided?.proposal).toBeUndefined();
      const late = proposed('early', { runId: 'run-1', kind: 'post_note', timestamp: '2026-03-01T08:00:00.000Z' });
      expect(await ledger.record(late)).toMatchObject({ outcome: 'applied', action: { status: kind } });
      // The decision, its kind and its time stay; the proposal, its time and the run id are the proposal's.
      expect(await ledger.get('early')).toEqual({ ...decided, runId: 'run-1', proposal: { to: 'lp@example.com' }, proposedAt: '2026-03-01T08:00:00.000Z' });
      expect((await ledger.run('run-1')).actions.map((action) => action.actionId)).toEqual(['early']);
      expect((await ledger.record(proposed('early', { runId: 'run-2' }))).outcome).toBe('unchanged');
      expect((await ledger.get('early'))?.runId).toBe('run-1');
      expect(await collect(ledger.pending())).toEqual([]);
    });

    it('a late proposal runs no handler again: the decision was heard once', async () => {
      const ledger = ledgerOver();
      const seen: string[] = [];
      const subscription = ledger.onDecision((action) => void seen.push(`${action.actionId}:${action.status}`), { pollMs: 20 });
      await ledger.record(expired('x', { kind: 'capital_call' }));
      await until(async () => (await ledger.handled('x')).done);
      await ledger.record(proposed('x', { runId: 'run-9', kind: 'capital_call' }));
      await sleep(150);
      expect(seen).toEqual(['x:expired']);
      expect(await ledger.handled('x')).toEqual({ runs: 1, done: true });
      await subscription.close();
    });

    it('action.expired first: kind from action_type, no run id (the event names none) until its proposal comes', async () => {
      const ledger = ledgerOver();
      await ledger.record(expired('x', { kind: 'capital_call' }));
      expect(await ledger.get('x')).toMatchObject({ status: 'expired', kind: 'capital_call', runId: undefined });
      await ledger.record(proposed('x', { runId: 'run-9', kind: 'capital_call' }));
      expect(await ledger.get('x')).toMatchObject({ status: 'expired', kind: 'capital_call', runId: 'run-9' });
      expect((await ledger.run('run-9')).actions.map((action) => action.actionId)).toEqual(['x']);
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
      const second = approved('d');
      expect((await ledger.record(second)).outcome).toBe('unchanged');
      expect((await ledger.record(second)).outcome).toBe('duplicate');
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
      ['action.approved', { action_id: '', run_id: 'r', kind: 'k', result: 1 }, 'data.action_id'],
      ['job.completed', { run_id: Number.NaN, agent_name: 'a' }, 'data.run_id'],
      ['action.rejected', { action_id: 'a', run_id: 'r', kind: '' }, 'data.kind'],
      ['credit.exhausted', { balance: Number.POSITIVE_INFINITY }, 'data.balance'],
    ])('%s without a usable field: a TypeError naming %j\'s missing field, nothing recorded', async (kind, data, field) => {
      const ledger = ledgerOver();
      const error = await ledger.record(delivery(kind, data)).catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(TypeError);
      expect((error as Error).message).toMatch(/^\[svc-sdk\] actions ledger: /);
      expect((error as Error).message).toContain(field);
      expect(await ledger.get('a')).toBeUndefined();
    });

    it('the TypeError of an unusable field says what the field must be', async () => {
      const ledger = ledgerOver();
      const message = async (kind: string, data: Record<string, unknown>) => ((await ledger.record(delivery(kind, data)).catch((error: unknown) => error)) as Error).message;
      expect(await message('action.approved', { run_id: 'r', kind: 'k' })).toBe('[svc-sdk] actions ledger: action.approved has no usable data.action_id (it must be a non-empty string or a number); the event was not recorded');
      expect(await message('action.approved', { action_id: 'a', run_id: 'r' })).toBe('[svc-sdk] actions ledger: action.approved has no usable data.kind (it must be a non-empty string); the event was not recorded');
      expect(await message('credit.low', { balance: 5 })).toBe('[svc-sdk] actions ledger: credit.low has no usable data.threshold (it must be a number); the event was not recorded');
    });

    it('bad arguments are TypeErrors that name the argument', async () => {
      const ledger = ledgerOver();
      expect(() => ledger.waitForDecision('', {})).toThrow(/actionId must be a non-empty string or a number/);
      expect(() => ledger.waitForDecision('a', { timeoutMs: -1 })).toThrow(/timeoutMs must be a non-negative number/);
      await expect(ledger.dueSoon(Number.NaN)).rejects.toThrow(/dueSoon: withinMs/);
      expect(() => ledger.pending({ expiringWithinMs: -5 })).toThrow(/expiringWithinMs must be 0 or more/);
      expect(() => ledger.pending({ expiringWithinMs: '5' as never })).toThrow(/expiringWithinMs must be 0 or more/);
      expect(() => ledger.pending({ expiringWithinMs: Number.NaN })).toThrow(/expiringWithinMs must be 0 or more/);
      expect(() => ledger.onDecision(undefined as never)).toThrow(/handler must be a function/);
      expect(() => createActionLedger({ store: open('x'), windows: { kinds: { capital_call: 0 } } })).toThrow(/windows\.kinds\.capital_call must be a positive/);
      expect(() => createActionLedger({ store: {} as LedgerStore })).toThrow(/store must be a LedgerStore/);
    });
  });

  describe('what the ledger does not take (more)', () => {
    it('an action.*, job.* or credit.* event without a delivery_id: a TypeError saying to pass the delivery as given, nothing recorded', async () => {
      const ledger = ledgerOver();
      for (const deliveryId of [undefined, '']) {
        const event = { ...proposed('nod'), delivery_id: deliveryId } as unknown as WebhookEvent;
        await expect(ledger.record(event)).rejects.toThrow(/^\[svc-sdk\] actions ledger: the event has no delivery_id \(pass the delivery as verifyWebhook or the receiver gives it\)/);
      }
      expect(await ledger.get('nod')).toBeUndefined();
      // An event the ledger ignores needs none.
      expect(await ledger.record({ ...delivery('document.uploaded', { room_id: 1 }), delivery_id: undefined } as unknown as WebhookEvent)).toEqual({ outcome: 'ignored' });
    });

    it('ids that are not a non-empty string or a finite number are refused by every reader, naming the argument', async () => {
      const ledger = ledgerOver();
      await expect(ledger.get(Number.NaN)).rejects.toThrow(/actionId must be a non-empty string or a number/);
      await expect(ledger.get(Number.POSITIVE_INFINITY)).rejects.toThrow(/actionId must be/);
      await expect(ledger.run('')).rejects.toThrow(/run: runId must be a non-empty string or a number/);
      expect(() => ledger.pending({ runId: '' })).toThrow(/pending: runId must be/);
      await expect(ledger.handled('', 'default')).rejects.toThrow(/actionId must be/);
      expect(() => ledger.onDecision(() => undefined, { name: '' })).toThrow(/^\[svc-sdk\] actions ledger: onDecision: name must be a non-empty string/);
      expect(() => ledger.onDecision(() => undefined, { name: 5 as never })).toThrow(/onDecision: name must be a non-empty string/);
      expect(() => createActionLedger({ store: open('x'), pollMs: 0 })).toThrow(/createActionLedger: pollMs must be a positive number of ms/);
      expect(() => createActionLedger({ store: open('x'), windows: { defaultMs: -1 } })).toThrow(/windows\.defaultMs must be a positive/);
      expect(() => ledger.onDecision(() => undefined, { leaseMs: 0 })).toThrow(/onDecision: leaseMs must be a positive/);
      expect(() => ledger.onDecision(() => undefined, { pollMs: Number.NaN })).toThrow(/onDecision: pollMs must be a positive/);
      expect(() => ledger.onDecision(() => undefined, { retryDelayMs: -1 })).toThrow(/onDecision: retryDelayMs must be a non-negative/);
    });

    it('0 is a bound where a bound may be 0: waitForDecision({ timeoutMs: 0 }), dueSoon(0), pending({ expiringWithinMs: 0 }), retryDelayMs: 0', async () => {
      const ledger = ledgerOver();
      await ledger.record(proposed('zero'));
      expect(await ledger.waitForDecision('zero', { timeoutMs: 0 })).toMatchObject({ status: 'timeout' });
      // Decided already: the first read may come back after the 0 ms timer (Redis), which ended the wait: no error either way.
      await ledger.record(approved('zero-decided'));
      expect(['approved', 'timeout']).toContain((await ledger.waitForDecision('zero-decided', { timeoutMs: 0 })).status);
      await new Promise((resolve) => setTimeout(resolve, 50));
      // Proposed on 2026-03-01 with a 24 h window: its estimated expiry is past, within 0 ms from now.
      expect((await ledger.dueSoon(0)).map((action) => action.actionId)).toEqual(['zero']);
      expect((await collect(ledger.pending({ expiringWithinMs: 0 }))).map((action) => action.actionId)).toEqual(['zero']);
      await ledger.onDecision(() => undefined, { retryDelayMs: 0 }).close();
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
      expect((await dueSoon(2 * hour)).map((action) => action.actionId)).toEqual(['email-old']);
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

    it('pending({ runId }) lists only the run\'s pending actions, not its decided ones', async () => {
      const ledger = ledgerOver();
      await ledger.record(proposed('open', { runId: 'mixed' }));
      await ledger.record(proposed('closed', { runId: 'mixed' }));
      await ledger.record(rejected('closed', { runId: 'mixed' }));
      expect((await collect(ledger.pending({ runId: 'mixed' }))).map((action) => action.actionId)).toEqual(['open']);
      expect((await ledger.run('mixed')).actions.map((action) => action.status).sort()).toEqual(['pending', 'rejected']);
    });

    it('pending() pages through more than a hundred actions, each once, oldest first', async () => {
      const ledger = ledgerOver();
      const ids = Array.from({ length: 230 }, (_, index) => `many-${String(index).padStart(3, '0')}`);
      const start = Date.parse('2026-03-01T00:00:00.000Z');
      for (const [index, id] of ids.entries()) await ledger.record(proposed(id, { timestamp: new Date(start + index * 1000).toISOString() }));
      expect((await collect(ledger.pending())).map((action) => action.actionId)).toEqual(ids);
    });

    it('an action known only from its decision has its run id key (undefined for action.expired) and sorts by its decision in run()', async () => {
      const ledger = ledgerOver();
      await ledger.record(expired('only-expired'));
      const record = await ledger.get('only-expired');
      expect(Object.keys(record ?? {})).toContain('runId');
      expect(record?.runId).toBeUndefined();
      await ledger.record(proposed('late', { runId: 'order', timestamp: '2026-03-01T12:00:00.000Z' }));
      await ledger.record(proposed('early', { runId: 'order', timestamp: '2026-03-01T08:00:00.000Z' }));
      // Decided first (no proposal seen): placed by its decision's timestamp, 2026-03-01T10:00.
      await ledger.record(delivery('action.approved', { action_id: 'middle', run_id: 'order', kind: 'send_email', result: 1 }, { timestamp: '2026-03-01T10:00:00.000Z' }));
      expect((await ledger.run('order')).actions.map((action) => action.actionId)).toEqual(['early', 'middle', 'late']);
    });

    it('a rejection without a reason and a failed job without an error read as empty strings', async () => {
      const ledger = ledgerOver();
      await ledger.record(delivery('action.rejected', { action_id: 'mute', run_id: 'quiet', kind: 'send_email' }));
      expect((await ledger.get('mute'))?.decision).toEqual({ status: 'rejected', reason: '' });
      await ledger.record(delivery('job.failed', { run_id: 'quiet', agent_name: 'diligence' }));
      expect((await ledger.run('quiet')).jobs).toMatchObject([{ status: 'failed', agentName: 'diligence', error: '' }]);
    });

    it('credits(): the threshold credit.low named holds for later events; 0 is exhausted; at the threshold is low; an event at the same time as the last applies', async () => {
      const ledger = ledgerOver();
      const at = (minute: number) => `2026-03-02T10:${String(minute).padStart(2, '0')}:00.000Z`;
      await ledger.record(delivery('credit.low', { balance: 40, threshold: 50 }, { timestamp: at(1) }));
      expect(await ledger.credits()).toMatchObject({ balance: 40, low: true, exhausted: false, threshold: 50 });
      await ledger.record(delivery('credit.granted', { amount: 30, new_balance: 70, note: 'x' }, { timestamp: at(2) }));
      expect(await ledger.credits()).toMatchObject({ balance: 70, low: false, threshold: 50, since: at(2) });
      await ledger.record(delivery('credit.granted', { amount: -20, new_balance: 50, note: 'x' }, { timestamp: at(3) }));
      expect(await ledger.credits()).toMatchObject({ balance: 50, low: true, exhausted: false, since: at(3) });
      await ledger.record(delivery('credit.low', { balance: 0, threshold: 50 }, { timestamp: at(4) }));
      expect(await ledger.credits()).toMatchObject({ balance: 0, low: true, exhausted: true, since: at(4) });
      expect((await ledger.record(delivery('credit.granted', { amount: 100, new_balance: 100, note: 'same minute' }, { timestamp: at(4) }))).outcome).toBe('applied');
      expect(await ledger.credits()).toMatchObject({ balance: 100, low: false, exhausted: false, since: at(4), updatedAt: at(4) });
    });

    it('credits(): spending of the same moment delivered out of order ends at the lower balance; a grant of that moment applies', async () => {
      const ledger = ledgerOver();
      const at = '2026-03-01T10:00:00.000Z';
      await ledger.record(delivery('credit.exhausted', { balance: 0 }, { timestamp: at }));
      expect((await ledger.record(delivery('credit.low', { balance: 1, threshold: 100 }, { timestamp: at }))).outcome).toBe('unchanged');
      expect(await ledger.credits()).toMatchObject({ balance: 0, low: true, exhausted: true });
      expect((await ledger.record(delivery('credit.exhausted', { balance: 0 }, { timestamp: at }))).outcome).toBe('applied');
      await ledger.record(delivery('credit.granted', { amount: 500, new_balance: 500, note: 'top-up' }, { timestamp: at }));
      expect(await ledger.credits()).toMatchObject({ balance: 500, low: false, exhausted: false });
      const inOrder = ledgerOver();
      await inOrder.record(delivery('credit.low', { balance: 1, threshold: 100 }, { timestamp: at }));
      await inOrder.record(delivery('credit.exhausted', { balance: 0 }, { timestamp: at }));
      expect(await inOrder.credits()).toMatchObject({ balance: 0, exhausted: true });
    });

    it('credits(): a first event other than credit.low holds the interface\'s threshold (100); credit.exhausted is exhausted whatever its balance', async () => {
      const ledger = ledgerOver();
      const at = (minute: number) => `2026-03-03T10:${String(minute).padStart(2, '0')}:00.000Z`;
      await ledger.record(delivery('credit.granted', { amount: 80, new_balance: 80, note: 'first' }, { timestamp: at(1) }));
      expect(await ledger.credits()).toEqual({ balance: 80, low: true, exhausted: false, threshold: 100, since: at(1), updatedAt: at(1) });
      const other = ledgerOver();
      // A balance left that is less than one call costs: the service says exhausted, and so does the ledger.
      await other.record(delivery('credit.exhausted', { balance: 3 }, { timestamp: at(2) }));
      expect(await other.credits()).toEqual({ balance: 3, low: true, exhausted: true, threshold: 100, since: at(2), updatedAt: at(2) });
      await other.record(delivery('credit.granted', { amount: 197, new_balance: 200, note: 'top-up' }, { timestamp: at(3) }));
      expect(await other.credits()).toEqual({ balance: 200, low: false, exhausted: false, threshold: 100, since: at(3), updatedAt: at(3) });
      // Exhausted is low, whatever the threshold: a credit.low that named 0, then exhausted with a balance above it.
      await other.record(delivery('credit.low', { balance: 0, threshold: 0 }, { timestamp: at(4) }));
      await other.record(delivery('credit.exhausted', { balance: 2 }, { timestamp: at(5) }));
      expect(await other.credits()).toMatchObject({ balance: 2, low: true, exhausted: true, threshold: 0 });
      // credit.low is low on the service's word, even with a balance over the threshold it names.
      const told = ledgerOver();
      await told.record(delivery('credit.low', { balance: 150, threshold: 100 }, { timestamp: at(6) }));
      expect(await told.credits()).toMatchObject({ balance: 150, low: true, exhausted: false });
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
    it('without timeoutMs waits as long as it takes: a decision recorded later resolves it', async () => {
      const ledger = ledgerOver(undefined, { pollMs: 20 });
      await ledger.record(proposed('patient-wait'));
      const waiting = ledger.waitForDecision('patient-wait');
      let settled = false;
      void waiting.finally(() => (settled = true));
      // A few polls with nothing decided (a bound on nothing happening, so never flaky).
      await sleep(100);
      expect(settled).toBe(false);
      await ledger.record(rejected('patient-wait'));
      expect(await waiting).toEqual(DECISIONS.rejected);
      await ledger.close();
    });

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

    it('without onError, what a handler threw is warned with its name and action, and it runs again; an onError that throws changes nothing', async () => {
      const ledger = ledgerOver();
      const warn = vi.spyOn(console, 'warn').mockImplementation(() => undefined);
      try {
        const runs: number[] = [];
        const failure = new Error('downstream down');
        const subscription = ledger.onDecision(
          (_action, { run }) => {
            runs.push(run);
            if (run === 1) throw failure;
          },
          { name: 'mailer', pollMs: 20, retryDelayMs: 0 },
        );
        await ledger.record(approved('warned'));
        await until(async () => (await ledger.handled('warned', 'mailer')).done);
        expect(runs).toEqual([1, 2]);
        expect(warn).toHaveBeenCalledWith('[svc-sdk] actions ledger: onDecision handler "mailer" threw for action warned; it runs again:', failure);
        await subscription.close();
      } finally {
        warn.mockRestore();
      }
      const runs: number[] = [];
      const throwing = ledger.onDecision(
        (_action, { run }) => {
          runs.push(run);
          if (run === 1) throw new Error('again');
        },
        { name: 'observed', pollMs: 20, retryDelayMs: 0, onError: () => { throw new Error('the observer fails too'); } },
      );
      await until(async () => (await ledger.handled('warned', 'observed')).done);
      expect(runs).toEqual([1, 2]);
      await throwing.close();
    });

    it('a handler that threw does not run again before retryDelayMs', async () => {
      const ledger = ledgerOver();
      const times: number[] = [];
      const subscription = ledger.onDecision(
        () => {
          times.push(Date.now());
          if (times.length === 1) throw new Error('once');
        },
        { pollMs: 20, retryDelayMs: 300, onError: () => undefined },
      );
      await ledger.record(approved('patient'));
      await until(async () => (await ledger.handled('patient')).done);
      expect(times).toHaveLength(2);
      expect(times[1]! - times[0]!).toBeGreaterThanOrEqual(300);
      await subscription.close();
    });

    it('a decision queued for an action the store has no record of (a store edited by hand) is marked done without calling the handler', async () => {
      const ledger = ledgerOver();
      const store = open(ledger.dataSet);
      expect(await store.commit({ deliveryId: 'hand-edit', key: 'action:ghost', version: 0, value: undefined, decided: 'ghost' })).toBe('committed');
      const called: string[] = [];
      const subscription = ledger.onDecision((action) => void called.push(action.actionId), { pollMs: 20 });
      await until(async () => (await ledger.handled('ghost')).done);
      expect(called).toEqual([]);
      await subscription.close();
    });

    it('close() ends the ledger\'s handlers: a decision recorded afterwards by another ledger is not handled by it', async () => {
      const ledger = ledgerOver();
      const other = ledgerOver(ledger.dataSet);
      const handled: string[] = [];
      ledger.onDecision((action) => void handled.push(action.actionId), { pollMs: 20 });
      await other.record(approved('before-close'));
      await until(() => handled.length === 1);
      await ledger.close();
      await other.record(approved('after-close'));
      const audit = other.onDecision(() => undefined, { name: 'audit', pollMs: 20 });
      await until(async () => (await other.handled('after-close', 'audit')).done);
      expect(handled).toEqual(['before-close']);
      expect(await other.handled('after-close')).toEqual({ runs: 0, done: false });
      await Promise.all([audit.close(), other.close()]);
    });
  });

  describe('the store\'s indexes (LedgerStore, as a custom store must keep them)', () => {
    it('subscribe hears each new decision until its unsubscribe, and none after close()', async () => {
      // The ledger over this very store object: its own commits are told at once (other processes' by the channel, a hint).
      const store = open(`subscribe-${Math.random().toString(36).slice(2)}`);
      const ledger = createActionLedger({ store });
      const kept: string[] = [];
      const dropped: string[] = [];
      store.subscribe((actionId) => kept.push(actionId));
      const off = store.subscribe((actionId) => dropped.push(actionId));
      await ledger.record(approved('heard-1'));
      await until(() => kept.includes('heard-1') && dropped.includes('heard-1'));
      off();
      await ledger.record(approved('heard-2'));
      await until(() => kept.includes('heard-2'));
      // A hint may come twice (Redis: this process's own, then the channel's).
      expect([...new Set(dropped)]).toEqual(['heard-1']);
      await store.close();
      await ledger.record(approved('heard-3'));
      // The decision is committed and told (this process at once): nothing reaches the closed store's listeners.
      expect((await ledger.get('heard-3'))?.status).toBe('approved');
      expect([...new Set(kept)]).toEqual(['heard-1', 'heard-2']);
    });

    it('commit answers duplicate for a seen delivery and conflict for a moved version, changing nothing; each change is one version more', async () => {
      const ledger = ledgerOver();
      const store = open(ledger.dataSet);
      expect(await store.read('doc:v', 'c1')).toEqual({ value: undefined, version: 0, seen: false });
      expect(await store.commit({ deliveryId: 'c1', key: 'doc:v', version: 0, value: '{"n":1}' })).toBe('committed');
      expect(await store.read('doc:v', 'c1')).toEqual({ value: '{"n":1}', version: 1, seen: true });
      expect(await store.commit({ deliveryId: 'c1', key: 'doc:v', version: 1, value: '{"n":9}' })).toBe('duplicate');
      expect(await store.commit({ deliveryId: 'c2', key: 'doc:v', version: 0, value: '{"n":9}' })).toBe('conflict');
      expect(await store.read('doc:v', 'c2')).toEqual({ value: '{"n":1}', version: 1, seen: false });
      expect(await store.commit({ deliveryId: 'c2', key: 'doc:v', version: 1, value: '{"n":2}' })).toBe('committed');
      // A delivery that changes nothing is marked seen, the document as it was.
      expect(await store.commit({ deliveryId: 'c3', key: 'doc:v', version: 2, value: undefined })).toBe('committed');
      expect(await store.read('doc:v', 'c3')).toEqual({ value: '{"n":2}', version: 2, seen: true });
    });

    it('commit moves each index by the action it names alone: pending without a run or a decision, a run without pending', async () => {
      const ledger = ledgerOver();
      const store = open(ledger.dataSet);
      expect(await store.commit({ deliveryId: 'x1', key: 'action:solo', version: 0, value: '{}', pending: { actionId: 'solo', score: 5 } })).toBe('committed');
      expect(await store.pendingIds(Number.POSITIVE_INFINITY)).toEqual(['solo']);
      expect(await store.commit({ deliveryId: 'x2', key: 'action:member', version: 0, value: '{}', run: { runId: 'by-hand', actionId: 'member' } })).toBe('committed');
      expect(await store.runActionIds('by-hand')).toEqual(['member']);
      expect(await store.pendingIds(Number.POSITIVE_INFINITY)).toEqual(['solo']);
      expect(await store.commit({ deliveryId: 'x3', key: 'action:solo', version: 1, value: '{}', pending: { actionId: 'solo', remove: true } })).toBe('committed');
      expect(await store.pendingIds(Number.POSITIVE_INFINITY)).toEqual([]);
      expect(await store.handlerTodo('by-hand', 10)).toEqual([]);
    });

    it('the pending index holds exactly the pending actions, by proposal time; the run index every action with a run id, once', async () => {
      const ledger = ledgerOver();
      const store = open(ledger.dataSet);
      await ledger.record(proposed('i-late', { runId: 'ri', timestamp: '2026-03-01T12:00:00.000Z' }));
      await ledger.record(proposed('i-early', { runId: 'ri', timestamp: '2026-03-01T08:00:00.000Z' }));
      await ledger.record(approved('i-first', { runId: 'ri' }));
      await ledger.record(expired('i-expired'));
      expect(await store.pendingIds(Number.POSITIVE_INFINITY)).toEqual(['i-early', 'i-late']);
      expect(await store.pendingIds(Date.parse('2026-03-01T10:00:00.000Z'))).toEqual(['i-early']);
      expect(await store.pendingIds(Date.parse('2026-03-01T08:00:00.000Z'))).toEqual(['i-early']); // the bound included
      expect(await store.pendingIds(Date.parse('2026-03-01T08:00:00.000Z') - 1)).toEqual([]);
      await ledger.record(rejected('i-early', { runId: 'ri' }));
      await ledger.record(expired('i-late'));
      expect(await store.pendingIds(Number.POSITIVE_INFINITY)).toEqual([]);
      expect((await store.runActionIds('ri')).sort()).toEqual(['i-early', 'i-first', 'i-late']);
      // action.expired names no run: no run index for it, under any id.
      expect(await store.runActionIds('')).toEqual([]);
    });
  });

  describe('the store\'s handler claims (LedgerStore, as a custom store must keep them)', () => {
    it('handlerTodo gives at most `limit` ids, oldest decision first; a claim is refused while leased and once done', async () => {
      const ledger = ledgerOver();
      const store = open(ledger.dataSet);
      for (const id of ['q1', 'q2', 'q3']) await ledger.record(approved(id));
      expect(await store.handlerTodo('claims', 2)).toEqual(['q1', 'q2']);
      expect(await store.handlerTodo('claims', 10)).toEqual(['q1', 'q2', 'q3']);
      expect(await store.claimHandler('claims', 'q1', 'mine', 60_000)).toEqual({ claimed: true, run: 1 });
      expect(await store.claimHandler('claims', 'q1', 'theirs', 60_000)).toEqual({ claimed: false, done: false });
      // Finishing with another token neither drops the lease nor records done.
      await store.finishHandler('claims', 'q1', 'theirs', false);
      expect(await store.claimHandler('claims', 'q1', 'theirs', 60_000)).toEqual({ claimed: false, done: false });
      expect(await store.renewHandler('claims', 'q1', 'theirs', 60_000)).toBe(false);
      expect(await store.renewHandler('claims', 'q1', 'mine', 60_000)).toBe(true);
      // Released without done: claimable again, run 2.
      await store.finishHandler('claims', 'q1', 'mine', false);
      expect(await store.handlerRuns('claims', 'q1')).toEqual({ runs: 1, done: false });
      expect(await store.claimHandler('claims', 'q1', 'next', 60_000)).toEqual({ claimed: true, run: 2 });
      await store.finishHandler('claims', 'q1', 'next', true);
      expect(await store.claimHandler('claims', 'q1', 'later', 60_000)).toEqual({ claimed: false, done: true });
      expect(await store.handlerTodo('claims', 10)).toEqual(['q2', 'q3']);
      expect(await store.handlerRuns('claims', 'q1')).toEqual({ runs: 2, done: true });
      expect(await store.handlerRuns('nobody', 'q1')).toEqual({ runs: 0, done: false });
      // Finishing what holds no lease changes nothing.
      await store.finishHandler('claims', 'q2', 'nobody', false);
      expect(await store.handlerRuns('claims', 'q2')).toEqual({ runs: 0, done: false });
    });

    it('a lease ends after leaseMs: renewing then fails, and another claim takes the action (run 2)', async () => {
      const ledger = ledgerOver();
      const store = open(ledger.dataSet);
      await ledger.record(approved('short'));
      await store.handlerTodo('leases', 10);
      expect(await store.claimHandler('leases', 'short', 'first', 50)).toEqual({ claimed: true, run: 1 });
      // Claims refused while the lease holds change nothing; the first one after it ends is run 2.
      let claim: Awaited<ReturnType<LedgerStore['claimHandler']>> | undefined;
      await until(async () => (claim = await store.claimHandler('leases', 'short', 'second', 60_000)).claimed);
      expect(claim).toEqual({ claimed: true, run: 2 });
      expect(await store.renewHandler('leases', 'short', 'first', 60_000)).toBe(false);
      expect(await store.renewHandler('leases', 'short', 'second', 60_000)).toBe(true);
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
