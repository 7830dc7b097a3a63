import type { HttpHandler } from 'msw/http';
import type { EventKind } from '../webhooks/event-kinds.js';
import type { DeliveryScheduler, ScheduledDelivery } from './deliveries.js';
import { msw } from './msw.js';
import { paginate } from './pages.js';
import { fail, HttpProblem, ok, pathId, readJson, readUpload, type BodyLimits } from './requests.js';
import { searchDocuments } from './search-index.js';
import { newSecret, webhookView, type Store, type StoredWebhook } from './store.js';
import { isReceiverUrl, RECEIVER_URL_ERROR } from '../schemas/webhooks.js';
import { isServicePath, unknownMethod, withRequestId } from './production-rules.js';

/** What the handlers share with the emulator. */
export interface HandlerContext {
  store: Store;
  scheduler: DeliveryScheduler;
  /** The one accepted key; undefined accepts any `vdr_…` key. */
  apiKey: string | undefined;
  /** The largest bodies read. */
  limits: BodyLimits;
  /** Paginate every list with pages of this size; undefined: only when the request asks for a page. */
  pageSize: number | undefined;
}

type Params = Record<string, string | readonly string[] | undefined>;
type Route = (call: { request: Request; params: Params; apiKey: string }) => Response | Promise<Response>;

/** Dispatches `event` to every endpoint in `webhooks` subscribed to it. */
export function dispatch(
  context: HandlerContext,
  webhooks: Iterable<StoredWebhook>,
  kind: EventKind,
  data: Record<string, unknown>,
): ScheduledDelivery[] {
  const scheduled: ScheduledDelivery[] = [];
  for (const webhook of webhooks) {
    if (webhook.event_types === null || webhook.event_types.includes(kind)) {
      scheduled.push(context.scheduler.deliver(webhook, kind, data));
    }
  }
  return scheduled;
}

/** The msw handlers of every operation; they match `/api/v1/...` on any origin. */
export function createHandlers(context: HandlerContext): HttpHandler[] {
  const { store } = context;

  const route = (method: 'get' | 'post' | 'patch' | 'delete' | 'all', path: string, run: Route) =>
    msw.http[method](`*/api/v1${path}`, async ({ request, params }) => {
      // `/foo/api/v1/...` or `/api/v1/api/v1/...`: not the service's path, not this route's.
      if (!isServicePath(request, params)) return undefined;
      return withRequestId(await answer(request, params as Params, run));
    });

  /** One route's answer: 405 for an unknown method, 401 without a key, else what the route answers (errors as JSON). */
  const answer = async (request: Request, params: Params, run: Route): Promise<Response> => {
    const refused = unknownMethod(request);
    if (refused) return refused;
    const apiKey = authenticate(request, context.apiKey);
    if (typeof apiKey !== 'string') return apiKey;
    try {
      return await run({ request, params, apiKey });
    } catch (error) {
      if (error instanceof HttpProblem) return fail(error.status, error.message, error.field);
      return internalError(error);
    }
  };

  const ownWebhook = (params: Params, apiKey: string): StoredWebhook => {
    const webhook = store.webhooks.get(pathId(params['id'], 'webhook'));
    // Another key's endpoint is as unknown as a missing one: registrations are scoped per client.
    if (!webhook || webhook.apiKey !== apiKey) throw new HttpProblem(404, `webhook ${String(params['id'])} not found`);
    return webhook;
  };

  return [
    route('post', '/svc/crm/deals', async ({ request }) => {
      const body = await readJson(request, context.limits);
      const fields = {
        name: requireString(body, 'name', 'the deal name'),
        stage: requireString(body, 'stage', "a stage such as 'sourcing'"),
        asset_class: requireString(body, 'asset_class', "an asset class such as 'equity'"),
      };
      if (new URL(request.url).searchParams.get('ephemeral') === 'true') return ok({ ...body, ...fields, id: null });
      const deal = { ...body, ...fields, id: store.nextId('deal') };
      store.deals.set(deal.id, deal);
      return ok(deal, 201);
    }),

    route('post', '/rooms', async ({ request }) => {
      const body = await readJson(request, context.limits);
      const fields = {
        name: requireString(body, 'name', 'the room name'),
        room_type: requireString(body, 'room_type', "a room type such as 'company_investment'"),
      };
      const room = { ...body, ...fields, id: store.nextId('room') };
      store.rooms.set(room.id, room);
      return ok(room, 201);
    }),

    route('post', '/svc/transactions', async ({ request }) => {
      const body = await readJson(request, context.limits);
      const name = requireString(body, 'name', 'the transaction name');
      const dealId = requireId(body, 'deal_id');
      if (!store.deals.has(dealId)) throw new HttpProblem(404, `deal ${dealId} not found: create the deal first`, 'deal_id');
      const transaction = { ...body, name, deal_id: dealId, linked_room_id: null, id: store.nextId('transaction') };
      store.transactions.set(transaction.id, transaction);
      return ok(transaction, 201);
    }),

    route('patch', '/svc/transactions/:id', async ({ request, params }) => {
      const transaction = store.transactions.get(pathId(params['id'], 'transaction'));
      if (!transaction) throw new HttpProblem(404, `transaction ${String(params['id'])} not found`);
      const body = await readJson(request, context.limits);
      const roomId = requireId(body, 'linked_room_id');
      if (!store.rooms.has(roomId)) throw new HttpProblem(404, `room ${roomId} not found: create the room first`, 'linked_room_id');
      Object.assign(transaction, body, { linked_room_id: roomId, id: transaction.id, deal_id: transaction.deal_id });
      return ok(transaction);
    }),

    route('get', '/svc/transactions', ({ request }) => {
      const raw = new URL(request.url).searchParams.get('deal_id');
      const dealId = raw === null ? undefined : Number(raw);
      if (raw !== null && !(/^[0-9]+$/.test(raw) && dealId! > 0)) {
        throw new HttpProblem(422, 'deal_id must be an integer id', 'deal_id');
      }
      const list = [...store.transactions.values()].filter((tx) => dealId === undefined || tx.deal_id === dealId);
      // Enveloped, with absolute links; the webhook list answers the other shape a client must follow.
      return ok(paginate(request, list, context.pageSize, 'absolute'));
    }),

    route('post', '/rooms/:id/documents', async ({ request, params, apiKey }) => {
      const roomId = pathId(params['id'], 'room');
      if (!store.rooms.has(roomId)) throw new HttpProblem(404, `room ${roomId} not found`);
      const file = await readUpload(request, context.limits);
      const id = store.nextId('document');
      const filename = file.filename || 'upload';
      const uploaderId = store.uploaderId(apiKey);
      store.documents.set(id, { id, roomId, filename, contentType: file.type, bytes: file.bytes, uploaderId });
      const ownWebhooks = [...store.webhooks.values()].filter((webhook) => webhook.apiKey === apiKey);
      dispatch(context, ownWebhooks, 'document.uploaded', { room_id: roomId, document_id: id, filename, uploader_id: uploaderId });
      return ok({ id, original_filename: filename, room_id: roomId, size: file.bytes.byteLength, content_type: file.type || null }, 201);
    }),

    route('post', '/rooms/:id/search', async ({ request, params }) => {
      const roomId = pathId(params['id'], 'room');
      if (!store.rooms.has(roomId)) throw new HttpProblem(404, `room ${roomId} not found`);
      const body = await readJson(request, context.limits);
      const query = requireString(body, 'query', 'the question to ask');
      const documents = [...store.documents.values()].filter((document) => document.roomId === roomId);
      return ok({ query, ...(await searchDocuments(documents, query)) });
    }),

    route('post', '/webhooks/', async ({ request, apiKey }) => {
      const body = await readJson(request, context.limits);
      const fields = {
        url: requireUrl(body),
        name: requireString(body, 'name', 'a label for the endpoint'),
        event_types: requireEventTypes(body),
      };
      const webhook: StoredWebhook = { ...fields, id: store.nextId('webhook'), apiKey, secret: newSecret(), failure_count: 0 };
      store.webhooks.set(webhook.id, webhook);
      // Not enveloped, as the spec shows; the only answer that carries the secret besides rotation.
      return Response.json({ id: webhook.id, secret: webhook.secret, event_types: webhook.event_types, url: webhook.url, name: webhook.name }, { status: 201 });
    }),

    route('get', '/webhooks/', ({ request, apiKey }) => {
      const list = [...store.webhooks.values()].filter((webhook) => webhook.apiKey === apiKey).map(webhookView);
      const answer = paginate(request, list, context.pageSize, 'relative');
      // A page comes bare, with links relative to the origin (as Django REST Framework-style APIs
      // may answer); the whole list keeps its envelope, as before.
      return Array.isArray(answer) ? ok(answer) : Response.json(answer);
    }),

    route('get', '/webhooks/:id/', ({ params, apiKey }) => ok(webhookView(ownWebhook(params, apiKey)))),

    route('patch', '/webhooks/:id/', async ({ request, params, apiKey }) => {
      const webhook = ownWebhook(params, apiKey);
      const body = await readJson(request, context.limits);
      if ('url' in body) webhook.url = requireUrl(body);
      if ('name' in body) webhook.name = requireString(body, 'name', 'a label for the endpoint');
      if ('event_types' in body) webhook.event_types = requireEventTypes(body);
      return ok(webhookView(webhook));
    }),

    route('delete', '/webhooks/:id/', ({ params, apiKey }) => {
      const webhook = ownWebhook(params, apiKey);
      webhook.deleted = true;
      store.webhooks.delete(webhook.id);
      return new Response(null, { status: 204 });
    }),

    route('post', '/webhooks/:id/rotate-secret/', ({ params, apiKey }) => {
      const webhook = ownWebhook(params, apiKey);
      webhook.secret = newSecret();
      return ok({ secret: webhook.secret });
    }),

    route('post', '/webhooks/:id/ping/', ({ params, apiKey }) => {
      const webhook = ownWebhook(params, apiKey);
      const { deliveryId } = context.scheduler.deliver(webhook, 'ping.test', { webhook_id: webhook.id });
      return ok({ delivery_id: deliveryId }, 202);
    }),

    // Last: anything else under /api/v1 is an unknown operation (after the key check, like the service).
    route('all', '/*', ({ request }) => {
      throw new HttpProblem(404, `no operation ${request.method} ${new URL(request.url).pathname} in the emulator`);
    }),
  ];
}

/** The caller's API key, or the 401 answer. */
export function authenticate(request: Request, expected: string | undefined): string | Response {
  const header = request.headers.get('authorization') ?? '';
  const match = /^Bearer\s+(\S+)$/i.exec(header);
  if (!match) return fail(401, 'missing API key: send Authorization: Bearer vdr_…');
  const key = match[1]!;
  // `vdr_` alone is the prefix, not a key.
  if (expected === undefined ? !/^vdr_./.test(key) : key !== expected) return fail(401, 'invalid API key');
  return key;
}

/** A bug or an unexpected state in the emulator: a JSON 500 naming it, never msw's or the server's own page. */
export function internalError(error: unknown): Response {
  const message = error instanceof Error ? error.message : String(error);
  // A missing peer's message is the whole story (it names the install command); anything else is a bug.
  return fail(500, message.startsWith('[svc-sdk]') ? message : `the emulator failed to answer: ${message}`);
}

function requireString(body: Record<string, unknown>, field: string, what: string): string {
  const value = body[field];
  if (typeof value !== 'string' || value.trim() === '') {
    throw new HttpProblem(422, `${field} is required: pass ${what} as a non-empty string`, field);
  }
  return value;
}

function requireId(body: Record<string, unknown>, field: string): number {
  const value = body[field];
  if (typeof value !== 'number' || !Number.isInteger(value) || value <= 0) {
    throw new HttpProblem(422, `${field} is required: pass an integer id`, field);
  }
  return value;
}

function requireUrl(body: Record<string, unknown>): string {
  const value = body['url'];
  // The service's rule, and the client's: https, or http to this machine's loopback (local receivers).
  if (typeof value !== 'string' || !isReceiverUrl(value)) throw new HttpProblem(422, RECEIVER_URL_ERROR, 'url');
  return value;
}

function requireEventTypes(body: Record<string, unknown>): string[] | null {
  const value = body['event_types'];
  if (value === null) return null;
  if (!Array.isArray(value) || !value.every((kind) => typeof kind === 'string' && kind !== '')) {
    throw new HttpProblem(422, 'event_types is required: pass an array of event kinds, or null for every kind', 'event_types');
  }
  return [...(value as string[])];
}
