// `emulator.actions` over HTTP, for a process that only has the emulator's URL (`svc-sdk trigger
// action.approved` plays the proposal and then the decision; a workflow in another process
// proposes as an agent's tool call would). Each answer lists the events the call fired and the
// deliveries scheduled for each, so a caller can tell which delivery is which.
import type { HttpHandler } from 'msw/http';
import type { EventKind } from '../webhooks/event-kinds.js';
import { CreditsExhaustedError, type EmulatorAction, type EmulatorActions } from './actions.js';
import { CONTROL_ACTIONS_PATH, CONTROL_CREDITS_PATH } from './control-path.js';
import type { ScheduledDelivery } from './deliveries.js';
import { authenticate, internalError, type HandlerContext } from './handlers.js';
import { msw } from './msw.js';
import { isServicePath, withRequestId } from './production-rules.js';
import { fail, HttpProblem, ok, readJson } from './requests.js';

/** An event a control call fired, with the deliveries scheduled for it. */
export interface FiredEvent {
  event: EventKind;
  /** The event's data, exactly as delivered. */
  data: Record<string, unknown>;
  deliveries: Array<{ webhook_id: number; delivery_id: string }>;
}

/** The emulator's actions, and a way to hear the events fired while a call runs. */
export interface ControlActions {
  actions: EmulatorActions;
  /** Adds a listener of every event the actions fire; returns its removal. */
  onFire(listener: (kind: EventKind, data: Record<string, unknown>, scheduled: readonly ScheduledDelivery[]) => void): () => void;
}

/** Reads the JSON body; a decision's body may be left out (`{}`), a proposal's may not. */
type Call = (read: (optional?: boolean) => Promise<Record<string, unknown>>, id: string | undefined) => Promise<{ status?: number; data: Record<string, unknown> }>;

/**
 * The control routes of actions and credits, placed before the service's routes as the events route is: one msw
 * handler, routed here, so a service request pays one match for them all.
 *
 * @param context The emulator's handler context (its API key and body limits).
 * @param control Its actions, and the hook that hears what they fire.
 */
export function createActionControlHandlers(context: HandlerContext, control: ControlActions): HttpHandler[] {
  const { actions } = control;
  const routes: Array<{ method: string; path: RegExp; call: Call }> = [];
  const route = (method: 'GET' | 'POST', path: string, call: Call) => {
    routes.push({ method, path: new RegExp(`^/api/v1${path.replace(':id', '([^/]+)')}$`), call });
  };
  const handler = msw.http.all(`*/api/v1/_emulator/*`, async ({ request, params }) => {
    if (!isServicePath(request, params)) return undefined;
    const { pathname } = new URL(request.url);
    let id: string | undefined;
    const found = routes.find(({ method, path }) => {
      const match = request.method === method ? path.exec(pathname) : null;
      id = match?.[1] === undefined ? undefined : decodeURIComponent(match[1]);
      return match !== null;
    });
    if (found === undefined) return undefined; // the events route's, or no route: the service's 404
    const apiKey = authenticate(request, context.apiKey);
    if (typeof apiKey !== 'string') return withRequestId(apiKey);
    const events: FiredEvent[] = [];
    const stop = control.onFire((event, data, scheduled) => events.push({ event, data, deliveries: scheduled.map(({ webhookId, deliveryId }) => ({ webhook_id: webhookId, delivery_id: deliveryId })) }));
    try {
      const { status, data } = await found.call(async (optional = false) => (optional && request.headers.get('content-type') === null ? {} : readJson(request, context.limits)), id);
      return withRequestId(ok({ ...data, events }, status));
    } catch (error) {
      if (error instanceof CreditsExhaustedError) return withRequestId(Response.json({ error: error.message, events }, { status: 402 }));
      if (error instanceof HttpProblem) return withRequestId(fail(error.status, error.message, error.field));
      return withRequestId(internalError(error));
    } finally {
      stop();
    }
  });
  const pending = (id: string | undefined, verb: string): EmulatorAction => {
    const action = id === undefined ? undefined : actions.get(id);
    if (action === undefined) throw new HttpProblem(404, `no action ${JSON.stringify(id)}: propose one first (POST /api/v1${CONTROL_ACTIONS_PATH})`, 'action_id');
    if (action.status !== 'pending') throw new HttpProblem(409, `action ${action.action_id} is ${action.status}, not pending: the service can ${verb} only a pending action`, 'action_id');
    return action;
  };

  route('POST', CONTROL_ACTIONS_PATH, async (read) => {
    const { kind, run_id: runId, proposal } = await read();
    if (typeof kind !== 'string' || kind === '') throw new HttpProblem(422, 'kind is required: the action\'s kind, such as "send_email"', 'kind');
    if (runId !== undefined && !(typeof runId === 'string' || typeof runId === 'number')) throw new HttpProblem(422, 'run_id must be a string or a number, or left out for a new run', 'run_id');
    return { status: 201, data: { action: await actions.propose({ kind, runId, proposal }), balance: actions.balance } };
  });
  route('GET', `${CONTROL_ACTIONS_PATH}/:id`, async (_read, id) => {
    const action = id === undefined ? undefined : actions.get(id);
    if (action === undefined) throw new HttpProblem(404, `no action ${JSON.stringify(id)}`, 'action_id');
    return { data: { action } };
  });
  route('POST', `${CONTROL_ACTIONS_PATH}/:id/approve`, async (read, id) => {
    pending(id, 'approve');
    const { result } = await read(true);
    return { data: { action: await actions.approve(id!, result ?? {}) } };
  });
  route('POST', `${CONTROL_ACTIONS_PATH}/:id/reject`, async (read, id) => {
    pending(id, 'reject');
    const { reason } = await read(true);
    if (typeof reason !== 'string') throw new HttpProblem(422, 'reason is required: why the GP rejects the action, a string', 'reason');
    return { data: { action: await actions.reject(id!, reason) } };
  });
  route('POST', `${CONTROL_ACTIONS_PATH}/:id/expire`, async (_read, id) => {
    pending(id, 'expire');
    return { data: { action: await actions.expire(id!) } };
  });
  route('GET', CONTROL_CREDITS_PATH, async () => ({ data: { balance: actions.balance } }));
  route('POST', `${CONTROL_CREDITS_PATH}/grant`, async (read) => {
    const { amount, note } = await read();
    if (!(typeof amount === 'number' && Number.isFinite(amount) && amount > 0)) throw new HttpProblem(422, 'amount is required: the credits to add, a number above 0', 'amount');
    if (note !== undefined && typeof note !== 'string') throw new HttpProblem(422, 'note must be a string', 'note');
    return { data: { balance: await actions.grant(amount, note) } };
  });
  return [handler];
}
