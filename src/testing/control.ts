// The emulator's control route: `POST /api/v1/_emulator/events` fires an event through the
// emulator, as `emulator.trigger` does in-process, for a process that only has its URL
// (`svc-sdk trigger <kind>`). Authenticated with the emulator's API key like every route, so a
// page in a browser (or another user's process without the key) cannot fire events.
import type { HttpHandler } from 'msw/http';
import { WEBHOOK_EVENT_KINDS, type EventKind } from '../webhooks/event-kinds.js';
import { CONTROL_EVENTS_PATH } from './control-path.js';
import { sampleEventData } from './events.js';
import { authenticate, dispatch, internalError, type HandlerContext } from './handlers.js';
import { msw } from './msw.js';
import { isServicePath, withRequestId } from './production-rules.js';
import { fail, HttpProblem, ok, readJson } from './requests.js';

/**
 * The control routes, to be placed before the service's routes (whose last one answers 404 to any
 * other `/api/v1` path). Body `{ event, data? }`; answers 202 with the deliveries scheduled, one per
 * subscribed endpoint of any key (as `emulator.trigger`), each with the spec's retry schedule.
 */
export function createControlHandlers(context: HandlerContext): HttpHandler[] {
  return [
    msw.http.post(`*/api/v1${CONTROL_EVENTS_PATH}`, async ({ request, params }) =>
      // Held to the service's rules like every route (production-rules.ts): the path prefix exactly, an x-request-id.
      isServicePath(request, params) ? withRequestId(await fireEvent(request, context)) : undefined,
    ),
  ];
}

/** `POST /api/v1/_emulator/events`: authenticated, then `{ event, data? }` dispatched to every subscribed endpoint. */
async function fireEvent(request: Request, context: HandlerContext): Promise<Response> {
  const apiKey = authenticate(request, context.apiKey);
  if (typeof apiKey !== 'string') return apiKey;
  try {
    const body = await readJson(request, context.limits);
    const kind = body['event'];
    if (typeof kind !== 'string' || !(WEBHOOK_EVENT_KINDS as readonly string[]).includes(kind)) {
      throw new HttpProblem(422, `event is required: pass one of ${WEBHOOK_EVENT_KINDS.join(', ')}`, 'event');
    }
    const data = body['data'] ?? sampleEventData(kind as EventKind);
    if (typeof data !== 'object' || data === null || Array.isArray(data)) {
      throw new HttpProblem(422, 'data must be a JSON object, or left out for sample data', 'data');
    }
    const scheduled = dispatch(context, context.store.webhooks.values(), kind as EventKind, data as Record<string, unknown>);
    return ok({ event: kind, deliveries: scheduled.map(({ webhookId, deliveryId }) => ({ webhook_id: webhookId, delivery_id: deliveryId })) }, 202);
  } catch (error) {
    if (error instanceof HttpProblem) return fail(error.status, error.message, error.field);
    return internalError(error);
  }
}
