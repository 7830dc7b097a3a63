// The rules of `createWebhookHandler`'s options, checked when the handler is made: a bad option is
// a TypeError there, never a failed delivery later. Their defaults are filled in here too, once, so
// the handler and its receiver (receiver.ts) use what was checked. The secret lookup (secrets.ts)
// reads a secret by these rules.
import {
  DEFAULT_BODY_TIMEOUT_MS,
  DEFAULT_MAX_BODY_BYTES,
  DEFAULT_SECRET_TIMEOUT_MS,
  DEFAULT_STORE_TIMEOUT_MS,
  DEFAULT_TOLERANCE_MS,
  FUTURE_SKEW_MS,
  MAX_TIMER_MS,
} from '../shared/limits.js';
import type { DedupeStore } from './dedupe.js';
import { memoryStore } from './dedupe-memory.js';
import { isTolerance } from './replay.js';
import type { WebhookHandlerOptions, WebhookHooks, WebhookHooksOption } from './types.js';

/** `createWebhookHandler`'s options once checked, their defaults filled in: what the handler and its receiver use. */
export interface CheckedOptions extends WebhookHandlerOptions {
  /** The dedupe store: the given one, a memory store by default (none with an inbox), none for `dedupe: false`. */
  readonly store: DedupeStore | undefined;
  readonly maxBodyBytes: number;
  readonly bodyTimeoutMs: number;
  readonly storeTimeoutMs: number;
  readonly secretTimeoutMs: number;
  /** The sets of `hooks` (`undefined`: none). */
  readonly hookSets: readonly WebhookHooks[] | undefined;
}

/** A secret that is present but can never be one (an empty string, a number, an array of non-strings): the message says why, else `undefined`. */
export function malformedSecret(secret: unknown): string | undefined {
  if (secret === undefined || typeof secret === 'function') return undefined;
  const list = Array.isArray(secret) ? (secret as unknown[]) : [secret];
  // Blank counts as empty: it is used trimmed. (SVC_WEBHOOK_SECRET is secrets.ts's SECRET_VARIABLE.)
  return list.length && list.every((s) => typeof s === 'string' && s.trim())
    ? undefined
    : `secret must be the webhook's signing secret, never empty (an array of them while rotating), a function returning it, or omitted to read SVC_WEBHOOK_SECRET`;
}

/** The options checked, with their defaults; else throws a `[svc-sdk] createWebhookHandler:` error naming the first bad option and its fix. */
export function checkOptions(options: WebhookHandlerOptions): CheckedOptions {
  const {
    secret,
    on,
    inbox,
    // With an inbox, its key (delivery_id) deduplicates: no store of our own unless one is given.
    dedupe = inbox === undefined,
    maxBodyBytes = DEFAULT_MAX_BODY_BYTES,
    tolerance = DEFAULT_TOLERANCE_MS,
    storeTimeoutMs = DEFAULT_STORE_TIMEOUT_MS,
    secretTimeoutMs = DEFAULT_SECRET_TIMEOUT_MS,
    bodyTimeoutMs = DEFAULT_BODY_TIMEOUT_MS,
    waitUntil,
  } = options ?? {};
  // The default store is made before the checks, so that its ttlMs is checked as a given store's is.
  const store = dedupe === true ? memoryStore() : dedupe || undefined;
  // In order: the first that is wrong is named.
  const problems: Array<[wrong: boolean, problem: string | undefined]> = [
    [true, malformedSecret(secret)],
    [on !== undefined && inbox !== undefined, 'on and inbox are exclusive: with an inbox, workers run on (inbox.process(on)); pass one of them'],
    [inbox === undefined && typeof on !== 'function', 'on must be a function (or pass an inbox)'],
    [inbox !== undefined && typeof inbox?.put !== 'function', 'inbox must have a put(entry) method (bullmqInbox(...), cloudflareQueueInbox(queue))'],
    [dedupe !== false && typeof store?.claim !== 'function', 'dedupe must be true, false or a DedupeStore'],
    [!(maxBodyBytes > 0), 'maxBodyBytes must be a number of bytes > 0'],
    [!isTolerance(tolerance), 'tolerance must be a number of ms >= 0, or false'],
    [!isDelay(storeTimeoutMs), 'storeTimeoutMs must be a number of ms > 0'],
    [!isDelay(secretTimeoutMs), 'secretTimeoutMs must be a number of ms > 0'],
    [!isDelay(bodyTimeoutMs), 'bodyTimeoutMs must be a number of ms > 0'],
    [waitUntil !== undefined && typeof waitUntil !== 'function', 'waitUntil must be a function'],
    [
      // The default store (memory) keeps processed ids DONE_TTL_MS.
      tolerance !== false && tolerance + FUTURE_SKEW_MS > (store?.ttlMs ?? Infinity),
      "tolerance + 5 minutes must not exceed the dedupe store's ttlMs (a replay would outlive its id)",
    ],
  ];
  const problem = problems.find(([wrong, text]) => wrong && text)?.[1];
  if (problem) throw new TypeError(`[svc-sdk] createWebhookHandler: ${problem}`);
  // hooks last: a bad one is a TypeError too, once every other option checked out.
  return { ...options, store, maxBodyBytes, bodyTimeoutMs, storeTimeoutMs, secretTimeoutMs, hookSets: webhookHookSets(options.hooks) };
}

/** Whether `ms` is a usable timer delay: a number > 0 within setTimeout's own limit (a longer delay fires at once). */
export function isDelay(ms: unknown): boolean {
  return typeof ms === 'number' && ms > 0 && ms <= MAX_TIMER_MS;
}

const HOOK_NAMES = ['onReceive', 'onVerified', 'onOutcome'] as const;

/** The sets of `createWebhookHandler`'s `hooks` option (`undefined`: none); a TypeError naming a bad one. */
export function webhookHookSets(option: WebhookHooksOption | undefined): readonly WebhookHooks[] | undefined {
  if (option === undefined) return undefined;
  const sets: readonly unknown[] = Array.isArray(option) ? option : [option];
  const fail = (problem: string) => new TypeError(`[svc-sdk] createWebhookHandler: ${problem}`);
  for (const set of sets) {
    if (typeof set !== 'object' || set === null || Array.isArray(set)) {
      throw fail(`hooks must be an object of hooks (${HOOK_NAMES.join(', ')}), or an array of them`);
    }
    for (const [name, hook] of Object.entries(set)) {
      if (!(HOOK_NAMES as readonly string[]).includes(name)) throw fail(`hooks.${name} is not a hook: use ${HOOK_NAMES.join(', ')}`);
      if (hook !== undefined && typeof hook !== 'function') throw fail(`hooks.${name} must be a function`);
    }
  }
  return sets.length ? (sets as readonly WebhookHooks[]) : undefined;
}
