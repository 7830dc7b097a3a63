// The public and shared types of svc-sdk/webhooks, at the bottom of the module graph: every file
// may import from here and this file imports only leaf modules (events, errors, dedupe), so
// `webhooks/` has no import cycle (test/structure.test.ts).
import type { ClaimResult, DedupeStore } from './dedupe.js';
import type { WebhookVerificationReason } from './errors.js';
import type { WebhookEvent } from './events.js';

/** The raw request body, exactly as received: text (UTF-8), bytes (Node `Buffer` included) or an ArrayBuffer. */
export type RawBody = string | Uint8Array | ArrayBuffer;

/** One signing secret, or several at once while a secret is being rotated. */
export type SigningSecret = string | readonly string[];

/**
 * The `X-Svc-Signature` value as your framework gives it: Node's `req.headers` may hold an array
 * (a repeated header), which never verifies since it is ambiguous.
 */
export type SignatureHeader = string | readonly string[] | null | undefined;

/** The handler's `secret` option: the secret(s), or a function that returns them (possibly async), read at the first delivery. */
export type WebhookSecretOption = SigningSecret | (() => SigningSecret | undefined | Promise<SigningSecret | undefined>);

/** Options of `verifyWebhook`. */
export interface VerifyWebhookOptions {
  /**
   * The replay window, in ms: a delivery whose signed `timestamp` is older is refused
   * (`reason: 'stale_timestamp'`), as is one more than 5 minutes ahead. Default 12 h (the
   * service retries for about 10.6 h); `false` turns the check off. Keep it within your dedupe
   * store's memory, so that a replay inside the window is a known duplicate.
   */
  tolerance?: number | false | undefined;
}

/**
 * One HMAC back end's check: whether `hex` (64 lowercase hex digits, already checked) is the
 * HMAC-SHA256 of `body` under `secret`, compared in constant time. A string body is UTF-8.
 */
export type HmacVerify = (secret: string, body: string | Uint8Array, hex: string) => boolean | Promise<boolean>;

/** One HMAC back end's digest: HMAC-SHA256 of `body` under `secret`. */
export type HmacSign = (secret: string, body: Uint8Array) => Uint8Array | Promise<Uint8Array>;

/**
 * Why `createWebhookHandler` refused a delivery before processing it (what `onVerificationError`
 * hears, and the `error` of the answer): a body over `maxBodyBytes` (413), one that did not arrive
 * within `bodyTimeoutMs` (408), an unreadable body, a missing or wrong signature
 * (401), a signed body that is not a delivery, or a timestamp that has no zone or lies outside the
 * replay window (400).
 */
export type WebhookRejectReason =
  | Exclude<WebhookVerificationReason, 'no_secret'>
  | 'body_too_large'
  | 'body_timeout'
  | 'invalid_payload';

/** Options of `createWebhookHandler`. */
export interface WebhookHandlerOptions {
  /**
   * The webhook's signing secret, or several during a rotation (any one may match), or a function
   * returning it (possibly async). Read when the first delivery arrives, not when the handler is
   * made, so a module that makes the handler loads where the secret is absent (`next build`).
   * Omitted: `SVC_WEBHOOK_SECRET` from the environment, at the first delivery. While there is no
   * secret, deliveries are answered 500 with a message naming `SVC_WEBHOOK_SECRET`, logged once
   * a minute. A secret that is present but malformed (an empty string, a number) throws when the
   * handler is made; one with surrounding whitespace (a file's trailing newline) is used trimmed,
   * with one warning. A function's secret is kept, and read again when a delivery's signature
   * does not match it (at most once a minute), so a rotated secret is picked up without a restart.
   */
  secret?: WebhookSecretOption | undefined;
  /**
   * The deadline of the `secret` function, in ms; default 5000. A function that has not answered
   * by then (a vault that hangs) fails the delivery (answered 500, the service retries) and is
   * given up: the next delivery calls it again.
   */
  secretTimeoutMs?: number | undefined;
  /**
   * How long a body may take to arrive, in ms, from the moment the handler starts reading it;
   * default 10 000, whatever serves the handler (`@hono/node-server`, Bun, Deno). A sender that
   * trickles its body is answered 408 (`'body_timeout'`) with `connection: close`.
   * `toNodeListener` uses it too, unless given its own.
   */
  bodyTimeoutMs?: number | undefined;
  /**
   * Processes one verified event; the delivery is acknowledged (200) once it resolves, retried when it
   * throws. Exactly one of `on` and `inbox` is given (checked when the handler is made).
   *
   * @param event The verified event, typed by its `event` kind.
   */
  on?: ((event: WebhookEvent) => unknown) | undefined;
  /**
   * A durable inbox instead of `on` (`bullmqInbox(...)` or `cloudflareQueueInbox(queue)` from
   * `svc-sdk/inbox`): each verified delivery is put in it, keyed by its `delivery_id`, and answered
   * 2xx only once stored (500 `inbox_failed` when the inbox fails or misses `storeTimeoutMs`: the
   * service retries); workers run `on` later (`inbox.process(on)`). Deduplication is then the
   * inbox's (by `delivery_id`): `dedupe` defaults to `false`.
   */
  inbox?: WebhookInbox | undefined;
  /**
   * Deduplication by `delivery_id`: on by default (in memory, 50 000 ids, 12 h 5 min); `false`
   * turns it off; a `DedupeStore` (e.g. `createRedisDedupeStore`) replaces the store. While `on`
   * runs, its claim is renewed, so a retry never runs beside it however long it takes.
   */
  dedupe?: boolean | DedupeStore | undefined;
  /**
   * The deadline of every dedupe store call, in ms; default 2000. A store that does not answer by
   * then (a paused Redis, a peer that never replies, a client queueing commands while it
   * reconnects) fails the delivery as a store error does: answered 500, reported to `onError`, and
   * the claim that may land late is released, so the service's retry is processed. (One timer
   * keeps every call's deadline: a call is given between 1 and 1.1 times this.) A renewal of a
   * running `on`'s claim that fails or finds the claim gone is reported to `onError` (once per
   * delivery): past `processingTtlMs` without a renewal, a retry may run `on` beside it.
   */
  storeTimeoutMs?: number | undefined;
  /**
   * Hears what `on` threw and dedupe store failures (the answer is 500, so the service retries), and
   * claims `on` may have lost (a renewal failed: the answer stands).
   * Default: `console.error`, so a failing receiver is never silent; the error is never put in the response.
   *
   * @param error What `on` threw or rejected with.
   * @param event The event `on` was processing.
   */
  onError?: ((error: unknown, event: WebhookEvent) => void) | undefined;
  /**
   * The largest body read, in bytes; default 1 MiB (deliveries are a few kB). A larger
   * `Content-Length` is answered 413 at once, and a body is cut off as soon as it passes the
   * limit, whatever its `Content-Length` said, before any of it is verified.
   */
  maxBodyBytes?: number | undefined;
  /**
   * The replay window, in ms: a delivery whose signed `timestamp` is older is answered 400, as is
   * one more than 5 minutes ahead or one without `Z` or an offset. Default 12 h; `false` turns it
   * off. With the dedupe store remembering ids for longer (checked when the store says how long),
   * a captured delivery can never be processed twice.
   */
  tolerance?: number | false | undefined;
  /**
   * Hears every delivery refused before `on` (bad signature, replay, oversized or stalled body, not
   * a delivery), with the reason and the request, for your logs; whatever its `Host` or URL. Its
   * errors are ignored.
   *
   * @param reason Why the delivery was refused, as a stable code.
   * @param request The refused request, as it arrived.
   */
  onVerificationError?: ((reason: WebhookRejectReason, request: Request) => void) | undefined;
  /**
   * Lets the answer go before the dedupe store has recorded the delivery as processed: the
   * recording is handed to this function, which keeps the runtime alive until it settles. Pass
   * your platform's: `waitUntil` from `cloudflare:workers` or `@vercel/functions`; on a
   * long-lived server (`@hono/node-server`, Bun, Deno), `() => {}`. Without it, or when it throws,
   * the answer waits for the recording (a Redis round trip), since a serverless runtime may freeze
   * once it answers. `toNodeListener` never waits.
   *
   * @param promise The recording to keep alive after the answer is sent.
   */
  waitUntil?: ((promise: Promise<unknown>) => void) | undefined;
  /**
   * Hooks that observe each delivery: its arrival, its verification and its outcome (processed,
   * duplicate, refused with its reason, failed) with the time taken; see `WebhookHooks`.
   * `svc-sdk/otel`'s `webhookTelemetry()` makes a set.
   */
  hooks?: WebhookHooksOption | undefined;
}

/**
 * A fetch-standard request handler: Next.js route handlers, Hono, Workers, Bun.serve, Deno.serve.
 *
 * @param request The incoming delivery, as the framework hands it over.
 */
export type WebhookHandler = (request: Request) => Promise<Response>;

/** What the receiver answers: a status, and for anything but success its error and extra headers. */
export type Answer = [status: number, error?: string, headers?: Record<string, string>];

/** Why no body could be had: it passed `maxBodyBytes`, it failed (the sender went away), or it did not arrive within `bodyTimeoutMs`. */
export type BodyFailure = 'too_large' | 'unreadable' | 'timeout';

/** One delivery as an adapter (the fetch handler, the Node listener) hands it to the receiver, its body read already. */
export interface Delivery {
  /** The HTTP method. */
  method: string | undefined;
  /** The `X-Svc-Signature` header as received. */
  signature: unknown;
  /** The raw bytes, or why there are none. */
  body: Uint8Array | BodyFailure;
  /** Makes the fetch `Request` that `onVerificationError` hears (made only for a refusal). */
  request: () => Request;
  /**
   * When given, the answer does not wait for the store to record completion. A function is handed
   * the recording's promise (a serverless runtime's `waitUntil`; when it throws, the answer waits);
   * `'process'` says the runtime outlives its answers by itself (a Node server): the recording is
   * left to finish, with no deadline, since nobody waits for it. Without it, the answer waits.
   */
  keepAlive?: ((recording: Promise<unknown>) => void) | 'process' | undefined;
}

/** One handler's receiver, shared by its fetch handler and `toNodeListener`. */
export interface Receiver {
  /** The work on one delivery: its stages in order, then the answer. Never rejects. */
  receive: (delivery: Delivery) => Promise<Answer>;
  /** The largest body read, in bytes. */
  maxBodyBytes: number;
  /** How long a body may take to arrive, in ms. */
  bodyTimeoutMs: number;
  /** The handler's `waitUntil`, for the fetch handler. */
  waitUntil: ((promise: Promise<unknown>) => void) | undefined;
}

/** One verified delivery as the receiver puts it in an inbox: all a worker needs to run `on` later. */
export interface InboxEntry {
  /** The delivery's `delivery_id`: the entry's key, the same on every retry of the service. */
  readonly deliveryId: string;
  /** The event kind, like `document.uploaded`. */
  readonly kind: string;
  /** The body exactly as received and verified, as text: a worker parses it into the same `WebhookEvent`. */
  readonly body: string;
  /** When the receiver stored it, in milliseconds since the epoch. */
  readonly receivedAt: number;
}

/**
 * Where `createWebhookHandler({ secret, inbox })` puts each verified delivery before it answers 2xx:
 * `bullmqInbox(...)` (Node, Redis), `cloudflareQueueInbox(queue)` (Workers), or your own.
 */
export interface WebhookInbox {
  /**
   * Stores the entry durably, keyed by `deliveryId`: an entry already there is kept as it is (the
   * service's retry adds nothing). Resolves once stored; rejects when it could not store it (the
   * receiver then answers 500, so the service tries again).
   *
   * @param entry The verified delivery to store: its id, kind, raw body and when it arrived.
   */
  put(entry: InboxEntry): Promise<void>;
}

/** How a delivery ended: `stored` is a delivery put in the handler's inbox (answered 200). */
export type DeliveryOutcomeKind = 'processed' | 'stored' | 'duplicate' | 'refused' | 'failed';

/** What every receiver hook of one delivery is told: the same object for all of them (a `WeakMap` key). */
export interface DeliveryInfo {
  /** When the handler started on it: `performance.now()` (milliseconds). */
  readonly startedAt: number;
  /** The event, once its signature and payload checked out; `undefined` before (and for a refused one). */
  readonly event: WebhookEvent | undefined;
}

/** How one delivery ended, and how long the handler took. */
export interface DeliveryOutcome {
  readonly delivery: DeliveryInfo;
  readonly outcome: DeliveryOutcomeKind;
  /** The HTTP status answered. */
  readonly status: number;
  /** Why it was refused (`outcome: 'refused'`): a `WebhookRejectReason`, or `'method_not_allowed'` for anything but a POST. */
  readonly reason?: WebhookRejectReason | 'method_not_allowed' | undefined;
  /** For `outcome: 'duplicate'`: `'done'` (processed before, acknowledged) or `'processing'` (in progress elsewhere, answered 409). */
  readonly dedupe?: Exclude<ClaimResult, 'claimed'> | undefined;
  /**
   * For `outcome: 'failed'`: `'handler_failed'` (`on` threw, answered 500), `'dedupe_store_failed'`
   * (the store failed or missed `storeTimeoutMs`), `'inbox_failed'` (the inbox could not store it, or missed
   * `storeTimeoutMs`), or `'no_secret'` (no signing secret configured yet, answered 500).
   */
  readonly failure?: 'handler_failed' | 'dedupe_store_failed' | 'inbox_failed' | 'no_secret' | undefined;
  /** Milliseconds from the delivery's arrival (its body read) to the answer. */
  readonly durationMs: number;
}

/**
 * Hooks of `createWebhookHandler({ hooks })` (one set or an array of sets, run in order): they
 * observe each delivery, from its arrival to its answer, and cannot change it; what they throw is
 * ignored. `svc-sdk/otel`'s `webhookTelemetry()` makes a set.
 *
 * @example
 * ```ts
 * import { createWebhookHandler, type WebhookHooks } from 'svc-sdk/webhooks';
 *
 * const metrics: WebhookHooks = {
 *   onOutcome: ({ outcome, reason, durationMs, delivery }) => {
 *     console.log(delivery.event?.delivery_id, outcome, reason ?? '', `${durationMs.toFixed(1)} ms`);
 *   },
 * };
 * export const POST = createWebhookHandler({
 *   secret: process.env.SVC_WEBHOOK_SECRET!,
 *   on: async (event) => console.log(event.event),
 *   hooks: metrics,
 * });
 * ```
 */
export interface WebhookHooks {
  /**
   * A delivery arrived (its body read, nothing checked yet).
   *
   * @param delivery The delivery as it arrived: when the handler started on it, no event yet.
   */
  onReceive?: ((delivery: DeliveryInfo) => void) | undefined;
  /**
   * Its signature and payload checked out: `delivery.event` is set (the replay window and dedupe come next).
   *
   * @param delivery The delivery, its `event` now set.
   */
  onVerified?: ((delivery: DeliveryInfo & { readonly event: WebhookEvent }) => void) | undefined;
  /**
   * The answer is decided: the outcome, its reason and the time taken.
   *
   * @param outcome The outcome, its reason, the time taken and the delivery.
   */
  onOutcome?: ((outcome: DeliveryOutcome) => void) | undefined;
}

/** The `hooks` option of `createWebhookHandler`: one set, or several run in order. */
export type WebhookHooksOption = WebhookHooks | readonly WebhookHooks[];
