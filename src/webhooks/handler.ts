import { memoryStore } from './dedupe-memory.js';
import type { DedupeStore } from './dedupe.js';
import { parseWebhookEvent, type WebhookEvent } from './events.js';
import { SIGNATURE_HEADER, toSecrets, type SigningSecret } from './signature.js';

/** Options of `createWebhookHandler`. */
export interface WebhookHandlerOptions {
  /** The webhook's signing secret, or several during a rotation (any one may match). */
  secret: SigningSecret;
  /** Processes one verified event; the delivery is acknowledged (200) once it resolves, retried when it throws. */
  on: (event: WebhookEvent) => unknown;
  /**
   * Deduplication by `delivery_id`: on by default (in memory, 10 000 ids, 12 h); `false` turns it
   * off; a `DedupeStore` (e.g. `createRedisDedupeStore`) replaces the store.
   */
  dedupe?: boolean | DedupeStore;
  /**
   * Hears what `on` threw (the answer is 500, so the service retries). Default: `console.error`,
   * so a failing receiver is never silent; the error is never put in the response.
   */
  onError?: (error: unknown, event: WebhookEvent) => void;
}

/** A fetch-standard request handler: Next.js route handlers, Hono, Workers, Bun.serve, Deno.serve. */
export type WebhookHandler = (request: Request) => Promise<Response>;

type Verify = (body: Uint8Array, header: string | null, secret: SigningSecret) => Promise<boolean>;

/** `createWebhookHandler` over a given `verifySignature` (each entry passes its own HMAC back end). */
export function createHandlerWith(verify: Verify, options: WebhookHandlerOptions): WebhookHandler {
  const { secret, on, dedupe = true, onError = logError } = options ?? ({} as WebhookHandlerOptions);
  const fail = (problem: string) => {
    throw new TypeError(`[svc-sdk] createWebhookHandler: ${problem}`);
  };
  if (toSecrets(secret).length === 0) fail("secret must be the webhook's signing secret (an array of them while rotating)");
  if (typeof on !== 'function') fail('on must be a function');
  if (typeof dedupe !== 'boolean' && typeof dedupe?.claim !== 'function') fail('dedupe must be true, false or a DedupeStore');
  const store = dedupe === true ? memoryStore() : dedupe || undefined;

  return async (request) => {
    if (request.method !== 'POST') return reply(405, 'Method not allowed', { allow: 'POST' });
    let body: Uint8Array;
    try {
      // The raw bytes: the signature covers them exactly, so nothing may parse or re-encode them first.
      body = new Uint8Array(await request.arrayBuffer());
    } catch {
      return reply(400, 'Unreadable body');
    }
    if (!(await verify(body, request.headers.get(SIGNATURE_HEADER), secret))) {
      return reply(401, 'Invalid signature');
    }
    let event: WebhookEvent;
    try {
      event = parseWebhookEvent(body);
    } catch (error) {
      // parseWebhookEvent throws WebhookPayloadError only; its message names the field, never a value.
      return reply(400, (error as Error).message);
    }
    const id = event.delivery_id;
    try {
      const state = store ? await store.claim(id) : 'claimed';
      if (state === 'done') return reply(200);
      if (state === 'processing') {
        // Being processed by another request right now: the service may come back in a minute.
        return reply(409, 'Delivery in progress', { 'retry-after': '60' });
      }
    } catch {
      // The store is down: refuse rather than risk processing twice; the service retries.
      return reply(500, 'Dedupe store failed');
    }
    try {
      await on(event);
    } catch (error) {
      // Release the claim so the service's retry is processed; a failed release only delays it
      // until the claim expires. The error goes to onError, not into the answer: it may hold internals.
      await settle(() => onError(error, event));
      await settle(() => store?.release(id));
      return reply(500, 'Handler failed');
    }
    // The event was processed: acknowledge it even if recording that fails (the claim then expires,
    // and a retry, if any, is processed again, which beats the service retrying for hours).
    await settle(() => store?.complete(id));
    return reply(200);
  };
}

function logError(error: unknown, event: WebhookEvent): void {
  console.error(`[svc-sdk] webhook on() failed for delivery ${event.delivery_id} (answered 500, to be retried)`, error);
}

async function settle(step: () => unknown): Promise<void> {
  try {
    await step();
  } catch {
    // See the callers: a store failure here must not change the answer.
  }
}

/** The answer to the service: `{ received: true }`, or `{ error }` saying what went wrong. */
function reply(status: number, error?: string, headers?: Record<string, string>): Response {
  // Response.json sets content-type: application/json (Node 18+, Workers, Deno, Bun, browsers).
  return Response.json(error ? { error } : { received: true }, { status, headers });
}
