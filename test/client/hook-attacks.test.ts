// Client hooks attacked as a hostile or careless third-party hook would: the key never reaches a
// hook (nor can a hook replace it), odd hook sets are a ValidationError naming the field, and a hook
// that never settles cannot hold its call past the call's timeout or signal.
import { http, HttpResponse } from 'msw';
import { describe, expect, it, vi } from 'vitest';
import { APITimeoutError, APIUserAbortError, Client, InternalServerError, SvcError, ValidationError, type ClientHooks } from '../../src/index.node.js';
import { API_KEY, BASE_URL, recordRequests, useMockService } from '../support/msw.js';

const server = useMockService();
const requests = recordRequests(server);
const ROOM = { id: 7, name: 'VDR', room_type: 'company_investment' };
const roomParams = { name: 'VDR', room_type: 'company_investment' };
const roomOk = () => HttpResponse.json({ success: true, data: ROOM }, { status: 201 });
const never = () => new Promise<never>(() => {});

/** Every string reachable from `value` (own properties, getters not called). */
function strings(value: unknown): string[] {
  if (typeof value === 'string') return [value];
  if (typeof value !== 'object' || value === null) return [];
  return Object.keys(value).flatMap((key) => {
    const descriptor = Object.getOwnPropertyDescriptor(value, key)!;
    return [key, ...('value' in descriptor ? strings(descriptor.value) : [])];
  });
}

describe('the key never reaches a hook', () => {
  it('a beforeRequest that keeps its headers object reads no key from it a microtask, a timer, or the whole call later', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, roomOk));
    const kept: Record<string, string>[] = [];
    const later: string[][] = [];
    const client = new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      hooks: {
        beforeRequest: ({ headers }) => {
          kept.push(headers);
          queueMicrotask(() => later.push(strings(headers)));
          setTimeout(() => later.push(strings(headers)), 0);
        },
      },
    });
    await client.rooms.create(roomParams);
    await new Promise((resolve) => setTimeout(resolve, 5));
    later.push(strings(kept[0]));
    expect(later).toHaveLength(3);
    for (const seen of later) {
      expect(seen.join(' ')).not.toContain(API_KEY);
      expect(seen.map((name) => name.toLowerCase())).not.toContain('authorization');
    }
    expect(requests.at(-1)!.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
  });

  it('an authorization accessor defined by a hook is never called with the key, and what it answers is not sent', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, roomOk));
    const setterHeard: unknown[] = [];
    let getterCalls = 0;
    const client = new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      hooks: {
        beforeRequest: ({ headers }) => {
          for (const name of ['authorization', 'x-sneaky']) {
            Object.defineProperty(headers, name, {
              enumerable: true,
              configurable: true,
              get: () => {
                getterCalls++;
                return 'Bearer vdr_the_hooks_own_key';
              },
              set: (value: unknown) => void setterHeard.push(value),
            });
          }
        },
      },
    });
    await client.rooms.create(roomParams);
    expect(setterHeard).toEqual([]);
    expect(getterCalls).toBe(0);
    const sent = requests.at(-1)!;
    expect(sent.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
    expect(sent.headers.has('x-sneaky')).toBe(false);
  });

  it('authorization in any casing, from a hook or the client\'s own headers, is never shown and never sent: the client\'s key is', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, roomOk));
    const shown: string[][] = [];
    const client = new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      headers: { AUTHORIZATION: 'Bearer vdr_from_headers', 'x-team': 'deals' },
      hooks: [
        {
          beforeRequest: ({ headers }) => {
            shown.push(Object.keys(headers));
            headers.Authorization = 'Bearer vdr_a';
            headers.AuThOrIzAtIoN = 'Bearer vdr_b';
            headers['x-number'] = 7 as unknown as string; // not a string: left out
          },
        },
        { beforeRequest: ({ headers }) => void shown.push(Object.keys(headers)) },
      ],
    });
    await client.rooms.create(roomParams);
    expect(shown[0]!.map((name) => name.toLowerCase())).not.toContain('authorization');
    expect(shown[1]!.filter((name) => name.toLowerCase() === 'authorization')).toEqual(['Authorization', 'AuThOrIzAtIoN']);
    const sent = requests.at(-1)!;
    expect(sent.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
    expect(sent.headers.get('x-team')).toBe('deals');
    expect(sent.headers.has('x-number')).toBe(false);
  });
});

describe('hook sets are read once, into plain records, inside a guard', () => {
  const revoked = Proxy.revocable({}, {});
  revoked.revoke();
  const throwingKeys = new Proxy({}, {
    ownKeys() {
      throw new RangeError('trap');
    },
  });
  const throwingGetter = {
    get beforeRequest(): never {
      throw new Error('getter');
    },
  };
  // eslint-disable-next-line no-sparse-arrays -- a hole is the point
  const holes = [, { onError: () => undefined }] as unknown as ClientHooks[];
  it.each([
    ['a hole in the array of sets', holes, 'hooks.0', 'hooks.0 is a hole in the array: give a set of hooks (or leave the entry out)'],
    ['a set whose getter throws', [throwingGetter], 'hooks.0', 'hooks.0 could not be read (Error): pass plain objects of functions'],
    ['a Proxy set whose ownKeys trap throws', throwingKeys, 'hooks', 'hooks could not be read (RangeError): pass plain objects of functions'],
    ['a revoked Proxy', revoked.proxy, 'hooks', 'hooks could not be read (TypeError): pass plain objects of functions'],
    ['a hook that is not a function', { afterResponse: 'log' }, 'hooks.afterResponse', 'hooks.afterResponse must be a function'],
    ['an array where a set belongs', [[() => undefined]], 'hooks.0', 'hooks.0 must be an object of hooks (beforeRequest, afterResponse, beforeRetry, onError), or an array of them'],
  ])('%s is a ValidationError naming the field, from new Client() and from a call (nothing sent)', async (_name, hooks, field, message) => {
    const before = requests.length;
    let thrown: unknown;
    try {
      new Client({ apiKey: API_KEY, baseUrl: BASE_URL, hooks: hooks as ClientHooks });
    } catch (error) {
      thrown = error;
    }
    expect(thrown).toBeInstanceOf(ValidationError);
    expect((thrown as ValidationError).issues).toEqual([{ path: field.split('.').map((part) => (/^\d+$/.test(part) ? Number(part) : part)), message }]);
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL });
    const error = await client.rooms.create(roomParams, { hooks: hooks as ClientHooks }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toBe(`[svc-sdk] rooms.create: ${message}. Nothing was sent.`);
    expect(requests.length).toBe(before);
  });

  it('a getter that throws something other than an Error is named by its type', () => {
    const set = {
      get onError(): never {
        throw 'nope'; // a hostile getter throws anything
      },
    };
    expect(() => new Client({ apiKey: API_KEY, baseUrl: BASE_URL, hooks: set })).toThrow('hooks could not be read (string): pass plain objects of functions');
  });

  it('what runs is the copy made with the client: a getter read once, a set changed later changes nothing', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, roomOk));
    const ran: string[] = [];
    let reads = 0;
    const set: ClientHooks = {
      get afterResponse() {
        reads++;
        return reads === 1 ? () => void ran.push('first') : () => void ran.push('later');
      },
    };
    const plain: ClientHooks = { onError: () => void ran.push('onError') };
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, hooks: [set, plain] });
    plain.afterResponse = () => void ran.push('added later');
    await client.rooms.create(roomParams);
    await client.rooms.create(roomParams);
    expect(ran).toEqual(['first', 'first']);
    expect(reads).toBe(1);
  });
});

describe('a hook after the attempt is raced against the call\'s timeout and signal', () => {
  it('an afterResponse that never settles fails the call once its timeout passes, saying the service answered', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, roomOk));
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, timeout: 100, hooks: { afterResponse: never } });
    const started = performance.now();
    const error = await client.rooms.create(roomParams).catch((caught: unknown) => caught);
    expect(performance.now() - started).toBeLessThan(1_000);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as Error).name).toBe('SvcError');
    expect((error as Error).message).toBe("[svc-sdk] rooms.create: the afterResponse hook did not settle within 100 ms (the call's timeout), so the call stopped waiting for it");
  });

  it('an afterResponse that never settles ends with the caller\'s signal, as an APIUserAbortError', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, roomOk));
    const controller = new AbortController();
    const client = new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      timeout: 60_000,
      hooks: { afterResponse: () => (setTimeout(() => controller.abort(new Error('user left')), 10), never()) },
    });
    const error = await client.rooms.create(roomParams, { signal: controller.signal }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect((error as Error).message).toBe("[svc-sdk] POST /api/v1/rooms: cancelled by the caller's signal (Error: user left)");
  });

  it('an afterResponse that aborts the caller\'s signal itself and never settles ends at once, as an APIUserAbortError', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, roomOk));
    const controller = new AbortController();
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, timeout: 5_000, hooks: { afterResponse: () => (controller.abort('enough'), never()) } });
    const started = performance.now();
    const error = await client.rooms.create(roomParams, { signal: controller.signal }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIUserAbortError);
    expect(performance.now() - started).toBeLessThan(2_000);
  });

  it('a hook that returns a thenable (not a Promise) is awaited and raced like one', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, roomOk));
    const order: string[] = [];
    const thenable = { then: (resolve: () => void) => setTimeout(() => (order.push('thenable settled'), resolve()), 20) };
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, hooks: [{ afterResponse: () => thenable as unknown as Promise<void> }, { afterResponse: () => void order.push('next hook') }] });
    await client.rooms.create(roomParams);
    order.push('call done');
    expect(order).toEqual(['thenable settled', 'next hook', 'call done']);
    const hung = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, timeout: 50, hooks: { afterResponse: () => ({ then: () => undefined }) as unknown as Promise<void> } });
    expect(((await hung.rooms.create(roomParams).catch((caught: unknown) => caught)) as Error).message).toContain('did not settle within 50 ms');
  });

  it.each([
    ['settles in time', () => new Promise<void>((resolve) => setTimeout(resolve, 5))],
    ['rejects in time', () => new Promise<void>((_resolve, reject) => setTimeout(() => reject(new Error('no')), 5))],
    ['outlives the timeout', () => new Promise<void>(() => {})],
  ])('an afterResponse that %s leaves no listener on the caller\'s signal behind', async (_name, hook) => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, roomOk));
    const controller = new AbortController();
    const listening = new Map<string, number>();
    const add = controller.signal.addEventListener.bind(controller.signal);
    const remove = controller.signal.removeEventListener.bind(controller.signal);
    controller.signal.addEventListener = ((type: string, ...rest: [EventListener, AddEventListenerOptions?]) => (listening.set(type, (listening.get(type) ?? 0) + 1), add(type, ...rest))) as AbortSignal['addEventListener'];
    controller.signal.removeEventListener = ((type: string, ...rest: [EventListener, EventListenerOptions?]) => (listening.set(type, (listening.get(type) ?? 0) - 1), remove(type, ...rest))) as AbortSignal['removeEventListener'];
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, timeout: 30, hooks: { afterResponse: hook } });
    await client.rooms.create(roomParams, { signal: controller.signal }).catch(() => undefined);
    expect(listening.get('abort') ?? 0).toBe(0);
    expect([...listening.keys()].filter((type) => type !== 'abort')).toEqual([]);
  });

  /** Runs `call` and answers the timers of `ms` it set and left pending (set, neither fired nor cleared). */
  async function pendingTimers(ms: number, call: () => Promise<unknown>): Promise<number> {
    const set = vi.spyOn(globalThis, 'setTimeout');
    const cleared = vi.spyOn(globalThis, 'clearTimeout');
    try {
      await call();
      const ours = set.mock.results.filter((_result, index) => set.mock.calls[index]![1] === ms).map((result) => result.value as NodeJS.Timeout);
      const clearedIds = new Set(cleared.mock.calls.map(([id]) => id));
      return ours.filter((timer) => !clearedIds.has(timer) && timer.hasRef()).length;
    } finally {
      set.mockRestore();
      cleared.mockRestore();
    }
  }

  it.each([
    ['settles', () => new Promise<void>((resolve) => setTimeout(resolve, 5))],
    ['rejects', () => new Promise<void>((_resolve, reject) => setTimeout(() => reject(new Error('no')), 5))],
  ])('an afterResponse that %s in time leaves no timer of the call\'s timeout behind: a script ends at once, not 60 s later', async (_name, hook) => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, roomOk));
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, timeout: 60_000, hooks: { afterResponse: hook } });
    expect(await pendingTimers(60_000, () => client.rooms.create(roomParams).catch(() => undefined))).toBe(0);
  });

  it('an afterResponse ended by the caller\'s signal leaves no timer behind either', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, roomOk));
    const controller = new AbortController();
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, timeout: 60_000, hooks: { afterResponse: () => (queueMicrotask(() => controller.abort('enough')), never()) } });
    let error: unknown;
    expect(await pendingTimers(60_000, async () => (error = await client.rooms.create(roomParams, { signal: controller.signal }).catch((caught: unknown) => caught)))).toBe(0);
    expect(error).toBeInstanceOf(APIUserAbortError);
  });

  it('a beforeRequest that never settles is the attempt\'s timeout, and nothing is sent', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, roomOk));
    const before = requests.length;
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, timeout: 50, hooks: { beforeRequest: never } });
    const error = await client.rooms.create(roomParams).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APITimeoutError);
    expect(requests.length).toBe(before);
  });

  it('a beforeRetry that never settles stops the retries when the timeout passes', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/webhooks/4/`, () => HttpResponse.json({ error: 'busy' }, { status: 503, headers: { 'retry-after': '0' } })));
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, timeout: 100, maxRetries: 3, logLevel: 'off', hooks: { beforeRetry: never } });
    const before = requests.length;
    const error = await client.webhooks.retrieve(4).catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/^\[svc-sdk\] webhooks\.retrieve: the beforeRetry hook did not settle within 100 ms/);
    expect(requests.length - before).toBe(1);
  });

  it('an onError that never settles lets the call fail with its own error once the timeout passes', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, () => HttpResponse.json({ error: 'down' }, { status: 500 })));
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, timeout: 100, hooks: { onError: never } });
    const error = await client.rooms.create(roomParams).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(InternalServerError);
  });

  it('an onError that never settles ends with the caller\'s signal', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, () => HttpResponse.json({ error: 'down' }, { status: 500 })));
    const controller = new AbortController();
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, hooks: { onError: () => (setTimeout(() => controller.abort(), 10), never()) } });
    const error = await client.rooms.create(roomParams, { signal: controller.signal }).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(APIUserAbortError);
  });
});
