// `svc-sdk trigger action.* | credit.granted` plays the sequence as the emulator's agents and GP do
// (its actions over the control routes), and `svc-sdk listen` prints an action's sequence one line
// per event with its action_id and status. Asserted at a real receiver: what was delivered, signed.
import { createHmac } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/index.node.js';
import { receiver, run, start, startEmulator } from './support.js';

interface Delivered {
  event: string;
  delivery_id: string;
  data: Record<string, unknown>;
}

/** A receiver subscribed to every kind on `emulator`, keeping the verified deliveries it got. */
async function subscribed(emulator: { baseUrl: string; apiKey: string }) {
  let secret = '';
  const target = await receiver((_, res) => res.writeHead(200).end());
  const client = new Client({ apiKey: emulator.apiKey, baseUrl: emulator.baseUrl, maxRetries: 0 });
  const hook = await client.webhooks.create({ url: target.url, name: 'app', event_types: null });
  secret = hook.secret;
  const delivered = () =>
    target.got.map(({ body, signature }) => {
      expect(signature).toBe(`sha256=${createHmac('sha256', secret).update(body).digest('hex')}`);
      return JSON.parse(body) as Delivered;
    });
  return {
    hook,
    delivered,
    async close() {
      await client.webhooks.delete(hook.id);
      await target.close();
    },
  };
}

describe('svc-sdk trigger plays the agent-action sequences through a running emulator', () => {
  let emulator: Awaited<ReturnType<typeof startEmulator>>;
  let app: Awaited<ReturnType<typeof subscribed>>;
  let env: Record<string, string>;
  beforeAll(async () => {
    emulator = await startEmulator();
    env = { SVC_BASE_URL: emulator.baseUrl, SVC_API_KEY: emulator.apiKey };
  });
  afterAll(async () => {
    expect(await emulator.stop()).toBe(0);
  });
  const fresh = async () => {
    app = await subscribed(emulator);
    return app;
  };

  it('action.approved: proposes (action.approval_required with a real action_id), then approves that action, each event listed with its delivery', async () => {
    const { hook, delivered, close } = await fresh();
    try {
      const { code, stdout, stderr } = await run(['trigger', 'action.approved', '--data', '{"kind":"send_email","run_id":"run_7","proposal":{"to":"lp@example.com"},"result":{"message_id":"m1"}}'], env);
      expect(stderr).toBe('');
      expect(code).toBe(0);
      const match = new RegExp(
        `^action\\.approval_required · action (act_\\d+) pending \\(send_email, run run_7\\) → 1 webhook of the emulator at ${emulator.baseUrl}:\\n  webhook ${hook.id}: delivery ([0-9a-f-]{36})\\n` +
          `action\\.approved · action \\1 approved \\(send_email, run run_7\\) → 1 webhook of the emulator at ${emulator.baseUrl}:\\n  webhook ${hook.id}: delivery ([0-9a-f-]{36})\\n$`,
      ).exec(stdout);
      expect(match, stdout).not.toBeNull();
      const [, actionId, proposedId, approvedId] = match!;
      await expect.poll(() => delivered().length).toBe(2);
      const byKind = Object.fromEntries(delivered().map((event) => [event.event, event]));
      expect(byKind['action.approval_required']).toMatchObject({ delivery_id: proposedId, data: { action_id: actionId, run_id: 'run_7', kind: 'send_email', proposal: { to: 'lp@example.com' } } });
      expect(byKind['action.approved']).toMatchObject({ delivery_id: approvedId, data: { action_id: actionId, run_id: 'run_7', kind: 'send_email', result: { message_id: 'm1' } } });
    } finally {
      await close();
    }
  });

  it('action.approval_required proposes only; --action decides that proposal (one delivery), and a second decision is refused with nothing delivered', async () => {
    const { delivered, close } = await fresh();
    try {
      const proposed = await run(['trigger', 'action.approval_required', '--data', '{"kind":"capital_call","run_id":"run_9","proposal":{"amount":5}}'], env);
      expect(proposed.code).toBe(0);
      const [, actionId] = /^action\.approval_required · action (act_\d+) pending \(capital_call, run run_9\) → 1 webhook/.exec(proposed.stdout)!;
      expect(proposed.stdout).not.toMatch(/action\.(approved|rejected|expired)/);
      await expect.poll(() => delivered().length).toBe(1);

      const rejected = await run(['trigger', 'action.rejected', '--action', actionId!, '--data', '{"reason":"Not this quarter"}'], env);
      expect(rejected.stderr).toBe('');
      expect(rejected.code).toBe(0);
      expect(rejected.stdout).toMatch(new RegExp(`^action\\.rejected · action ${actionId} rejected \\(capital_call, run run_9\\): Not this quarter → 1 webhook[^\\n]*\\n  webhook \\d+: delivery [0-9a-f-]{36}\\n$`));
      await expect.poll(() => delivered().length).toBe(2);
      expect(delivered()[1]).toMatchObject({ event: 'action.rejected', data: { action_id: actionId, run_id: 'run_9', kind: 'capital_call', reason: 'Not this quarter' } });

      const again = await run(['trigger', 'action.expired', '--action', actionId!], env);
      expect(again.code).toBe(1);
      expect(again.stderr).toBe(`[svc-sdk] the emulator at ${emulator.baseUrl} refused: action ${actionId} is rejected, not pending: the service can expire only a pending action\n`);
      const unknown = await run(['trigger', 'action.approved', '--action', 'act_nope'], env);
      expect(unknown.code).toBe(1);
      expect(unknown.stderr).toMatch(/^\[svc-sdk\] the emulator at \S+ refused: no action "act_nope": propose one first/);
      // Nothing more was delivered: poll a moment on an event that must not come, then count.
      await run(['trigger', 'ping.test'], env);
      await expect.poll(() => delivered().length).toBe(3);
      expect(delivered().map(({ event }) => event)).toEqual(['action.approval_required', 'action.rejected', 'ping.test']);
    } finally {
      await close();
    }
  });

  it('action.expired: the interface\'s fields exactly (action_type, expired_at, expiry_hours; no kind, no run_id)', async () => {
    const { delivered, close } = await fresh();
    try {
      const { code, stdout } = await run(['trigger', 'action.expired'], env);
      expect(code).toBe(0);
      const [, actionId] = /^action\.expired · action (act_\d+) expired \(send_email, after 24 h\)/m.exec(stdout)!;
      await expect.poll(() => delivered().length).toBe(2);
      const expired = delivered().find(({ event }) => event === 'action.expired')!;
      expect(Object.keys(expired.data).sort()).toEqual(['action_id', 'action_type', 'expired_at', 'expiry_hours']);
      expect(expired.data).toMatchObject({ action_id: actionId, action_type: 'send_email', expiry_hours: 24 });
    } finally {
      await close();
    }
  });

  it('credit.granted tops the emulator\'s credits up: new_balance is the balance after the grant', async () => {
    const { delivered, close } = await fresh();
    try {
      await run(['trigger', 'action.approval_required'], env); // spends 1
      const { code, stdout } = await run(['trigger', 'credit.granted', '--data', '{"amount":50,"note":"top-up"}'], env);
      expect(code).toBe(0);
      const [, balance] = /^credit\.granted · credits \+50 → (\d+) → 1 webhook/.exec(stdout)!;
      await expect.poll(() => delivered().length).toBe(2);
      const granted = delivered().find(({ event }) => event === 'credit.granted')!;
      expect(granted.data).toEqual({ amount: 50, new_balance: Number(balance), note: 'top-up' });
      const again = await run(['trigger', 'credit.granted', '--data', '{"amount":1}'], env);
      expect(again.stdout).toMatch(new RegExp(`^credit\\.granted · credits \\+1 → ${Number(balance) + 1} → `));
    } finally {
      await close();
    }
  });

  it('listen prints an action\'s sequence one line per event, with its action_id and status', async () => {
    const forwarded = await receiver((_, res) => res.writeHead(200).end());
    const listen = start(['listen', '--forward-to', forwarded.url, '--events', 'action.approval_required,action.approved'], env);
    try {
      await listen.waitFor(/^Forwarding to /m);
      const { stdout } = await run(['trigger', 'action.approved', '--data', '{"kind":"send_email","run_id":"run_3","result":{}}'], env);
      const [, actionId] = /action (act_\d+) pending/.exec(stdout)!;
      await expect.poll(() => forwarded.got.length).toBe(2);
      await expect.poll(() => listen.stdout().split('\n').filter((line) => line.includes(` · action ${actionId} `)).sort()).toEqual([
        expect.stringMatching(new RegExp(`^action\\.approval_required [0-9a-f-]{36} attempt 1 → 200 OK · action ${actionId} pending \\(send_email, run run_3\\)$`)),
        expect.stringMatching(new RegExp(`^action\\.approved [0-9a-f-]{36} attempt 1 → 200 OK · action ${actionId} approved \\(send_email, run run_3\\)$`)),
      ]);
    } finally {
      expect(await listen.stop('SIGINT')).toBe(0);
      await forwarded.close();
    }
  });

  it('misuses of --action are exit 2 with the fix, and nothing is sent', async () => {
    const proposing = await run(['trigger', 'action.approval_required', '--action', 'act_1'], env);
    expect(proposing.code).toBe(2);
    expect(proposing.stderr).toContain('--action decides an existing proposal: use it with action.approved, action.rejected, action.expired (action.approval_required proposes a new action)');
    const straight = await run(['trigger', 'action.approved', '--action', 'act_1', '--url', 'http://127.0.0.1:9/hook', '--secret', 'whsec_x'], env);
    expect(straight.code).toBe(2);
    expect(straight.stderr).toContain('--action goes through the emulator');
    const typo = await run(['trigger', 'action.aproved'], env);
    expect(typo.code).toBe(2);
    expect(typo.stderr).toContain('did you mean "action.approved"?');
    const flagTypo = await run(['trigger', 'action.approved', '--actoin', 'act_1'], env);
    expect(flagTypo.code).toBe(2);
    expect(flagTypo.stderr).toContain('did you mean "--action"?');
    const help = await run(['trigger', '--help']);
    expect(help.stdout).toContain('--action <action-id>');
    expect(help.stdout).toContain('svc-sdk trigger action.approved|action.rejected|action.expired --action <action-id>');
  });
});

describe('credit.low and credit.exhausted as the emulator plays them: proposals spend the credits (svc-sdk emulator --credits)', () => {
  it('a proposal that brings the balance to 100 plays credit.low; at 0 credit.exhausted, and the next proposal is blocked (exit 1)', async () => {
    const emulator = await startEmulator(['--credits', '101']);
    const app = await subscribed(emulator);
    const env = { SVC_BASE_URL: emulator.baseUrl, SVC_API_KEY: emulator.apiKey };
    try {
      const first = await run(['trigger', 'action.approval_required'], env);
      expect(first.stdout).toMatch(/^action\.approval_required · action act_1 pending .*\n.*\ncredit\.low · credits 100, low \(threshold 100\) → 1 webhook/);
      await expect.poll(() => app.delivered().length).toBe(2);
      expect(app.delivered().find(({ event }) => event === 'credit.low')?.data).toEqual({ balance: 100, threshold: 100 });
    } finally {
      await app.close();
      expect(await emulator.stop()).toBe(0);
    }
    const poor = await startEmulator(['--credits', '1']);
    const broke = await subscribed(poor);
    const poorEnv = { SVC_BASE_URL: poor.baseUrl, SVC_API_KEY: poor.apiKey };
    try {
      const last = await run(['trigger', 'action.approval_required'], poorEnv);
      expect(last.code).toBe(0);
      expect(last.stdout).toMatch(/\ncredit\.exhausted · credits 0, exhausted: tool calls are blocked → 1 webhook/);
      const blocked = await run(['trigger', 'action.approved'], poorEnv);
      expect(blocked.code).toBe(1);
      expect(blocked.stdout).toMatch(/^credit\.exhausted · credits 0, exhausted/);
      expect(blocked.stdout).not.toContain('action.approved');
      expect(blocked.stderr).toMatch(/refused: \[svc-sdk\] emulator\.actions\.propose: the tool call is blocked, the credits are exhausted \(balance 0\)/);
      await expect.poll(() => broke.delivered().map(({ event }) => event).sort()).toEqual(['action.approval_required', 'credit.exhausted', 'credit.exhausted', 'credit.low']);
    } finally {
      await broke.close();
      expect(await poor.stop()).toBe(0);
    }
  });
});
