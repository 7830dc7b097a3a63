// The emulator's actions and credits over HTTP (/api/v1/_emulator/actions, /_emulator/credits): what
// `svc-sdk trigger action.*` and a workflow in another process call. The same state as
// emulator.actions, each answer listing the events fired; bad input refused with the field named
// and nothing fired.
import { afterEach, describe, expect, it } from 'vitest';
import { Client } from '../../src/index.node.js';
import { createEmulator } from '../../src/testing/index.js';

const emulator = createEmulator({ deliveryDelayMs: 0, actions: { credits: 101 } });
afterEach(() => emulator.reset());

const call = (method: string, path: string, body?: unknown, key = 'vdr_control') =>
  emulator.fetch(`http://emulator.test/api/v1/_emulator${path}`, {
    method,
    headers: { ...(body === undefined ? {} : { 'content-type': 'application/json' }), authorization: `Bearer ${key}` },
    body: body === undefined ? undefined : JSON.stringify(body),
  });

/** A webhook for every kind, so each fired event has one delivery to list. */
async function subscribe() {
  const client = new Client({ apiKey: 'vdr_control', baseUrl: 'http://emulator.test', fetch: emulator.fetch, maxRetries: 0 });
  return client.webhooks.create({ url: 'https://app.test/hook', name: 'app', event_types: null });
}

describe('/api/v1/_emulator/actions and /credits', () => {
  it('proposes, decides and grants as emulator.actions does, each answer listing the events fired with their deliveries', async () => {
    const hook = await subscribe();
    const proposed = await call('POST', '/actions', { kind: 'capital_call', run_id: 'run_4', proposal: { amount: 5 } });
    expect(proposed.status).toBe(201);
    const { data } = (await proposed.json()) as { data: { action: { action_id: string }; balance: number; events: Array<{ event: string; data: unknown; deliveries: unknown[] }> } };
    const id = data.action.action_id;
    expect(emulator.actions.get(id)).toMatchObject({ status: 'pending', kind: 'capital_call', run_id: 'run_4', expiry_hours: 72 });
    expect(data.balance).toBe(100);
    expect(data.events).toEqual([
      { event: 'action.approval_required', data: { action_id: id, run_id: 'run_4', kind: 'capital_call', proposal: { amount: 5 } }, deliveries: [{ webhook_id: hook.id, delivery_id: expect.any(String) }] },
      { event: 'credit.low', data: { balance: 100, threshold: 100 }, deliveries: [{ webhook_id: hook.id, delivery_id: expect.any(String) }] },
    ]);
    expect(await (await call('GET', `/actions/${id}`)).json()).toMatchObject({ data: { action: { action_id: id, status: 'pending' } } });

    const approved = await call('POST', `/actions/${id}/approve`); // no body: result {}
    expect(approved.status).toBe(200);
    expect(await approved.json()).toMatchObject({ data: { action: { status: 'approved', result: {} }, events: [{ event: 'action.approved', data: { action_id: id, result: {} } }] } });
    const twice = await call('POST', `/actions/${id}/reject`, { reason: 'no' });
    expect(twice.status).toBe(409);
    expect(await twice.json()).toEqual({ error: `action ${id} is approved, not pending: the service can reject only a pending action`, field: 'action_id' });
    expect(emulator.actions.get(id)?.status).toBe('approved');

    const granted = await call('POST', '/credits/grant', { amount: 25, note: 'top-up' });
    expect(await granted.json()).toMatchObject({ data: { balance: 125, events: [{ event: 'credit.granted', data: { amount: 25, new_balance: 125, note: 'top-up' } }] } });
    expect(await (await call('GET', '/credits')).json()).toMatchObject({ data: { balance: 125 } });
  });

  it('refuses bad input naming the field, fires nothing, and needs the API key', async () => {
    await subscribe();
    const before = emulator.actions.balance;
    for (const [body, field] of [
      [{ proposal: {} }, 'kind'],
      [{ kind: 'send_email', run_id: { nested: true } }, 'run_id'],
    ] as const) {
      const response = await call('POST', '/actions', body);
      expect(response.status).toBe(422);
      expect(((await response.json()) as { field: string }).field).toBe(field);
    }
    expect((await call('POST', '/actions/act_404/approve')).status).toBe(404);
    const { action_id: id } = await emulator.actions.propose({ kind: 'send_email' });
    const noReason = await call('POST', `/actions/${id}/reject`, {});
    expect(noReason.status).toBe(422);
    expect(await noReason.json()).toMatchObject({ field: 'reason' });
    expect((await call('POST', '/credits/grant', { amount: 0 })).status).toBe(422);
    expect(emulator.actions.get(id)?.status).toBe('pending');
    expect(emulator.actions.balance).toBe(before - 1);
    const refused = await emulator.fetch(`http://emulator.test/api/v1/_emulator/actions`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"kind":"send_email"}' });
    expect(refused.status).toBe(401);
    expect(emulator.actions.balance).toBe(before - 1);
    // Another path under _emulator is no route of these: the service's 404.
    expect((await call('POST', '/nothing', {})).status).toBe(404);
  });

  it('a proposal with the credits exhausted is 402, its credit.exhausted listed, and no action made', async () => {
    const poor = createEmulator({ deliveryDelayMs: 0, actions: { credits: 0 } });
    const response = await poor.fetch('http://emulator.test/api/v1/_emulator/actions', {
      method: 'POST',
      headers: { 'content-type': 'application/json', authorization: 'Bearer vdr_x' },
      body: '{"kind":"send_email"}',
    });
    expect(response.status).toBe(402);
    expect(await response.json()).toMatchObject({ error: expect.stringContaining('the credits are exhausted'), events: [{ event: 'credit.exhausted', data: { balance: 0 } }] });
    expect(poor.actions.get('act_1')).toBeUndefined();
    await poor.close();
  });
});
