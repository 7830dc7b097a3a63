// Faults the emulator injects on request (createEmulator({ faults }), `svc-sdk emulator` flags), so
// an integration can be tried against a slow, failing or cut-off service before production. Kept
// apart from the routes: a fault wraps the emulator's whole answer, whatever the operation.
import { fail } from './requests.js';

/**
 * Faults of the emulator. Live: set a field of `emulator.faults` at any time and the next request
 * sees it (`emulator.faults.unavailableRate = 0` turns the 503s off again).
 */
export interface EmulatorFaults {
  /** Milliseconds added before every answer (after the request is handled). Default 0. */
  latencyMs?: number | undefined;
  /**
   * Share of requests, from 0 to 1, answered 503 without being handled (nothing stored), spread
   * evenly and deterministically: 0.25 answers the 4th, 8th, 12th ... request. Default 0.
   */
  unavailableRate?: number | undefined;
  /**
   * Resets the connection (TCP RST) once this many bytes of a request body have arrived: the request
   * is never handled and gets no answer. Over `emulator.listen()`; through `emulator.fetch` the call
   * rejects like a reset fetch. Default: never.
   */
  resetAfterBytes?: number | undefined;
  /**
   * Rate-limit mode: a token bucket of this many requests a second (it holds one second's worth, full
   * at the start). A request without a token is answered 429 without being handled, with `Retry-After`
   * and the IETF draft's `RateLimit` / `RateLimit-Policy`; every answer carries the latter two. Default: no limit.
   */
  rateLimitPerSecond?: number | undefined;
  /**
   * Delays each delivery's first attempt by a random 0 to this many ms more than `deliveryDelayMs`,
   * so deliveries arrive out of order (a decision before its `action.approval_required`). Default 0.
   */
  deliveryJitterMs?: number | undefined;
  /**
   * Share of deliveries, from 0 to 1, sent twice: a second attempt chain with the same delivery_id
   * and body (as when the service did not hear a 2xx), spread evenly as `unavailableRate` is. Default 0.
   */
  duplicateRate?: number | undefined;
}

/** The live faults of one emulator: checked when set, read on every request. */
export function createFaults(initial: EmulatorFaults = {}): EmulatorFaults {
  const values: EmulatorFaults = {};
  const faults = {} as EmulatorFaults;
  const field = (name: keyof EmulatorFaults, valid: (value: number) => boolean, what: string) => {
    Object.defineProperty(faults, name, {
      enumerable: true,
      get: () => values[name],
      set: (value: number | undefined) => {
        if (value !== undefined && !(typeof value === 'number' && valid(value))) {
          throw new TypeError(`[svc-sdk] emulator faults: ${name} must be ${what}, or undefined for none`);
        }
        values[name] = value;
      },
    });
  };
  field('latencyMs', (value) => Number.isFinite(value) && value >= 0 && value <= 600_000, 'a number of milliseconds from 0 to 600000');
  field('unavailableRate', (value) => value >= 0 && value <= 1, 'a share of requests from 0 to 1');
  field('resetAfterBytes', (value) => Number.isSafeInteger(value) && value >= 1, 'a whole number of bytes, 1 or more');
  field('rateLimitPerSecond', (value) => Number.isSafeInteger(value) && value >= 1 && value <= 1_000_000, 'a whole number of requests a second, 1 or more');
  field('deliveryJitterMs', (value) => Number.isFinite(value) && value >= 0 && value <= 86_400_000, 'a number of milliseconds from 0 to 86400000');
  field('duplicateRate', (value) => value >= 0 && value <= 1, 'a share of deliveries from 0 to 1');
  Object.seal(faults);
  if (initial === null || typeof initial !== 'object') throw new TypeError('[svc-sdk] createEmulator: faults must be an object such as { latencyMs: 20 }');
  for (const [name, value] of Object.entries(initial)) {
    if (!(name in faults)) {
      throw new TypeError(`[svc-sdk] createEmulator: unknown fault "${name}": use latencyMs, unavailableRate, resetAfterBytes, rateLimitPerSecond, deliveryJitterMs or duplicateRate`);
    }
    faults[name as keyof EmulatorFaults] = value as number | undefined;
  }
  return faults;
}

/** The socket of a request served by `emulator.listen()` (@hono/node-server passes it as `env.incoming`). */
export interface ServedBy {
  incoming?: { socket?: { resetAndDestroy?: () => unknown; destroy: () => unknown } | null } | undefined;
}

/**
 * Wraps the emulator's answer with its faults: a 503 for the evenly spread share, a reset once the
 * body passes `resetAfterBytes` (the socket's when served, else a rejected fetch), then the latency.
 */
export function withFaults(faults: EmulatorFaults, answer: (request: Request, servedBy?: ServedBy) => Promise<Response>) {
  let requests = 0;
  const bucket = new TokenBucket();
  return async (request: Request, servedBy?: ServedBy): Promise<Response> => {
    const perSecond = faults.rateLimitPerSecond;
    if (perSecond !== undefined) {
      const taken = bucket.take(perSecond);
      if (!taken.ok) {
        request.body?.cancel().catch(() => undefined);
        const refused = fail(429, `too many requests: the emulator allows ${perSecond} a second (its rateLimitPerSecond)`);
        return withRateLimitHeaders(refused, perSecond, 0, taken.resetSeconds, true);
      }
      return withRateLimitHeaders(await faulty(request, servedBy), perSecond, taken.remaining, taken.resetSeconds, false);
    }
    return faulty(request, servedBy);
  };

  async function faulty(request: Request, servedBy?: ServedBy): Promise<Response> {
    const rate = faults.unavailableRate ?? 0;
    const index = requests++;
    if (Math.floor((index + 1) * rate) > Math.floor(index * rate)) {
      request.body?.cancel().catch(() => undefined);
      await delay(faults.latencyMs);
      return fail(503, "service unavailable: the emulator's unavailableRate fault answered this request");
    }
    let reset = false;
    const limit = faults.resetAfterBytes;
    if (limit !== undefined && request.body) {
      request = resetAfter(request, limit, () => {
        reset = true;
        const socket = servedBy?.incoming?.socket;
        if (socket) (socket.resetAndDestroy ?? socket.destroy).call(socket);
      });
    }
    const response = await answer(request, servedBy);
    if (reset) {
      // Served: the socket is gone and this answer goes nowhere. In process: fail like fetch does.
      const cause = Object.assign(new Error("read ECONNRESET (the emulator's resetAfterBytes fault)"), { code: 'ECONNRESET' });
      throw new TypeError('fetch failed', { cause });
    }
    await delay(faults.latencyMs);
    return response;
  }
}

/**
 * The rate-limit mode's bucket: it holds one second's worth of tokens (`perSecond`), refilled
 * continuously; a request takes one. A change of `rateLimitPerSecond` applies from the next request.
 */
class TokenBucket {
  #tokens = Number.NaN;
  #at = 0;

  take(perSecond: number): { ok: boolean; remaining: number; resetSeconds: number } {
    const now = performance.now();
    this.#tokens = Number.isNaN(this.#tokens) ? perSecond : Math.min(perSecond, this.#tokens + ((now - this.#at) / 1000) * perSecond);
    this.#at = now;
    const ok = this.#tokens >= 1;
    if (ok) this.#tokens -= 1;
    // Whole seconds until the next token (a refusal) or until the bucket is full again (an answer), at least 1 for a refusal.
    const missing = ok ? perSecond - this.#tokens : 1 - this.#tokens;
    return { ok, remaining: Math.floor(this.#tokens), resetSeconds: Math.max(ok ? 0 : 1, Math.ceil(missing / perSecond)) };
  }
}

/** The answer with the draft's headers (`"default";q=…;w=1` and `"default";r=…;t=…`), and `Retry-After` on a refusal. */
function withRateLimitHeaders(response: Response, perSecond: number, remaining: number, resetSeconds: number, refused: boolean): Response {
  const headers = new Headers(response.headers);
  headers.set('ratelimit-policy', `"default";q=${perSecond};w=1`);
  headers.set('ratelimit', `"default";r=${remaining};t=${resetSeconds}`);
  if (refused) headers.set('retry-after', String(resetSeconds));
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

/** The request with a body that calls `onReset` and fails once `limit` bytes have been read from it. */
function resetAfter(request: Request, limit: number, onReset: () => void): Request {
  const reader = request.body!.getReader();
  let seen = 0;
  const body = new ReadableStream<Uint8Array>({
    async pull(controller) {
      const { done, value } = await reader.read();
      if (done) return controller.close();
      seen += value.byteLength;
      if (seen < limit) return controller.enqueue(value);
      onReset();
      const error = new Error("connection reset by the emulator's resetAfterBytes fault");
      controller.error(error);
      await reader.cancel(error).catch(() => undefined);
    },
    cancel: (reason) => reader.cancel(reason),
  });
  return new Request(request.url, { method: request.method, headers: request.headers, body, duplex: 'half' } as RequestInit);
}

function delay(ms: number | undefined): Promise<void> {
  return ms ? new Promise((resolve) => setTimeout(resolve, ms)) : Promise.resolve();
}
