// emulator.actions plays the service's side of agent actions: each call fires its event with exactly
// the interface's fields, signed, to a real receiver on 127.0.0.1 (createWebhookHandler over
// toNodeListener), whose `on` records into an action ledger; expiry runs on the emulator's clock;
// proposals consume credits with credit.low and credit.exhausted at the interface's threshold.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { createActionLedger } from '../../src/actions/index.js';
import { Client } from '../../src/index.node.js';
import { createEmulator, CreditsExhaustedError, type Emulator } from '../../src/testing/index.js';
import { createWebhookHandler, toNodeListener, type WebhookEvent } from '../../src/webhooks/index.node.js';

const open: Array<{ emulator: Emulator; server: Server }> = [];
afterEach(async () => {
  for (const { emulator, server } of open.splice(0)) {
    await emulator.close();
    server.closeAllConnections();
    await new Promise((resolve) => server.close(resolve));
  }
});

/** An emulator delivering every kind to a real receiver that keeps each event and records it into a ledger. */
async function setup(options: Parameters<typeof createEmulator>[0] = {}) {
  const emulator = createEmulator({ deliveryDelayMs: 0, ...options });
  const ledger = createActionLedger();
  const events: WebhookEvent[] = [];
  let secret = '';
  const server = createServer(
    toNodeListener(
      createWebhookHandler({
        secret: () => secret,
        dedupe: false, // every attempt reaches `on`: the test sees duplicates as the ledger does
        on: async (event) => {
          events.push(event);
          await ledger.record(event);
        },
      }),
    ),
  );
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  open.push({ emulator, server });
  const client = new Client({ apiKey: 'vdr_actions', baseUrl: 'https://svc.test', fetch: emulator.fetch });
  secret = (await client.webhooks.create({ url: `http://127.0.0.1:${(server.address() as AddressInfo).port}/hook`, name: 'actions', event_types: null })).secret;
  const of = (kind: string) => events.filter((event) => event.event === kind);
  return { emulator, ledger, events, of };
}

describe('emulator.actions', () => {
  it('propose fires action.approval_required with exactly action_id, run_id, kind, proposal and returns the action', async () => {
    const { emulator, ledger, of } = await setup();
    const action = await emulator.actions.propose({ kind: 'send_email', runId: 7, proposal: { to: 'lp@example.com' } });
    expect(action).toMatchObject({ action_id: 'act_1', run_id: '7', kind: 'send_email', status: 'pending', expiry_hours: 24 });
    expect(Date.parse(action.expires_at) - Date.parse(action.proposed_at)).toBe(24 * 3_600_000);
    await emulator.settled();
    expect(of('action.approval_required').map((event) => event.data)).toEqual([{ action_id: 'act_1', run_id: '7', kind: 'send_email', proposal: { to: 'lp@example.com' } }]);
    expect(await ledger.get('act_1')).toMatchObject({ status: 'pending', runId: '7', kind: 'send_email' });
  });

  it('approve, reject and expire fire their events with exactly the interface\'s fields; the ledger follows', async () => {
    const { emulator, ledger, of } = await setup();
    const [a, b, c] = [await emulator.actions.propose({ kind: 'send_email' }), await emulator.actions.propose({ kind: 'post_note' }), await emulator.actions.propose({ kind: 'capital_call', runId: 'r9' })];
    await emulator.actions.approve(a.action_id, { sent: true });
    await emulator.actions.reject(b.action_id, 'Wrong LP');
    const expiredAction = await emulator.actions.expire(c.action_id);
    await emulator.settled();
    expect(of('action.approved').map((event) => event.data)).toEqual([{ action_id: a.action_id, run_id: a.run_id, kind: 'send_email', result: { sent: true } }]);
    expect(of('action.rejected').map((event) => event.data)).toEqual([{ action_id: b.action_id, run_id: b.run_id, kind: 'post_note', reason: 'Wrong LP' }]);
    expect(of('action.expired').map((event) => event.data)).toEqual([{ action_id: c.action_id, action_type: 'capital_call', expired_at: expiredAction.expired_at, expiry_hours: 72 }]);
    expect(await ledger.waitForDecision(a.action_id, { timeoutMs: 1000 })).toEqual({ status: 'approved', result: { sent: true } });
    expect(await ledger.waitForDecision(b.action_id, { timeoutMs: 1000 })).toEqual({ status: 'rejected', reason: 'Wrong LP' });
    expect(await ledger.get(c.action_id)).toMatchObject({ status: 'expired', kind: 'capital_call', runId: 'r9' });
    expect(() => emulator.actions.approve(a.action_id)).toThrow(/^\[svc-sdk\] emulator\.actions\.approve: action act_1 is approved, not pending/);
    expect(() => emulator.actions.reject('act_404', 'no')).toThrow(/no action "act_404"/);
  });

  it('a pending action expires by itself on the emulator\'s clock after its kind\'s window; a decided one does not', async () => {
    const { emulator, of } = await setup({ actions: { windowsHours: { kinds: { send_email: 2 } } } });
    const email = await emulator.actions.propose({ kind: 'send_email' });
    const note = await emulator.actions.propose({ kind: 'post_note' });
    const call = await emulator.actions.propose({ kind: 'capital_call' });
    const approvedCall = await emulator.actions.propose({ kind: 'capital_call' });
    await emulator.actions.approve(approvedCall.action_id);
    await emulator.advance(2 * 3_600_000);
    expect(of('action.expired').map((event) => (event.data as Record<string, unknown>).action_id)).toEqual([email.action_id]);
    await emulator.advance(22 * 3_600_000);
    expect(of('action.expired').map((event) => (event.data as Record<string, unknown>).action_id)).toEqual([email.action_id, note.action_id]);
    await emulator.advance(48 * 3_600_000);
    const expired = of('action.expired');
    expect(expired.map((event) => (event.data as Record<string, unknown>).action_id)).toEqual([email.action_id, note.action_id, call.action_id]);
    expect(expired.map((event) => (event.data as Record<string, unknown>).expiry_hours)).toEqual([2, 24, 72]);
    expect(emulator.actions.get(call.action_id)).toMatchObject({ status: 'expired', expired_at: call.expires_at });
  });

  it('each proposal consumes credits: credit.low at 100 or fewer, credit.exhausted at 0, then the call is blocked', async () => {
    const { emulator, ledger, of } = await setup({ actions: { credits: 102, creditsPerProposal: 1 } });
    await emulator.actions.propose({ kind: 'k' });
    await emulator.settled();
    expect(of('credit.low')).toEqual([]);
    await emulator.actions.propose({ kind: 'k' });
    await emulator.settled();
    expect(of('credit.low').map((event) => event.data)).toEqual([{ balance: 100, threshold: 100 }]);
    expect(await ledger.credits()).toMatchObject({ balance: 100, low: true, exhausted: false });

    const poor = await setup({ actions: { credits: 2, creditsPerProposal: 1 } });
    await poor.emulator.actions.propose({ kind: 'k' });
    await poor.emulator.actions.propose({ kind: 'k' });
    const blocked = await poor.emulator.actions.propose({ kind: 'k' }).catch((error: unknown) => error);
    expect(blocked).toBeInstanceOf(CreditsExhaustedError);
    expect((blocked as Error).message).toMatch(/^\[svc-sdk\] emulator\.actions\.propose: the tool call is blocked/);
    await poor.emulator.settled();
    expect(poor.of('action.approval_required')).toHaveLength(2);
    expect(poor.of('credit.exhausted').map((event) => event.data)).toEqual([{ balance: 0 }, { balance: 0 }]);
    expect(await poor.ledger.credits()).toMatchObject({ balance: 0, exhausted: true });
    expect(await poor.emulator.actions.grant(500, 'top-up')).toBe(500);
    await poor.emulator.settled();
    expect(poor.of('credit.granted').map((event) => event.data)).toEqual([{ amount: 500, new_balance: 500, note: 'top-up' }]);
    expect((await poor.emulator.actions.propose({ kind: 'k' })).status).toBe('pending');
  });

  it('finishRun fires job.completed or job.failed; the ledger gives the run its outcome', async () => {
    const { emulator, ledger } = await setup();
    const action = await emulator.actions.propose({ kind: 'k', runId: 'r1' });
    await emulator.actions.finishRun('r1', { agentName: 'diligence', error: 'tool raised' });
    await emulator.settled();
    const run = await ledger.run('r1');
    expect(run.actions.map((entry) => entry.actionId)).toEqual([action.action_id]);
    expect(run.outcome).toMatchObject({ status: 'failed', agentName: 'diligence', error: 'tool raised' });
  });

  it('faults: duplicateRate sends a delivery twice with one delivery_id (the ledger records it once); deliveryJitterMs delays first attempts', async () => {
    const { emulator, ledger, events } = await setup({ faults: { duplicateRate: 1, deliveryJitterMs: 50 } });
    const action = await emulator.actions.propose({ kind: 'k' });
    await emulator.actions.approve(action.action_id);
    await emulator.settled(100);
    expect(events).toHaveLength(4);
    const ids = events.map((event) => event.delivery_id);
    expect(new Set(ids).size).toBe(2);
    expect(await ledger.get(action.action_id)).toMatchObject({ status: 'approved' });
  });
});
