import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import {
  APIConnectionError,
  Client,
  InternalServerError,
  NotFoundError,
  SvcError,
  ValidationError,
  type BeforeRetryContext,
  type ClientHooks,
} from '../../src/index.node.js';
import { API_KEY, BASE_URL, recordRequests, useMockService } from '../support/msw.js';

const server = useMockService();
const requests = recordRequests(server);
const ROOM = { id: 7, name: 'VDR', room_type: 'company_investment' };
const roomParams = { name: 'VDR', room_type: 'company_investment' };
const unavailable = () => HttpResponse.json({ error: 'busy' }, { status: 503, headers: { 'retry-after': '0' } });
const roomOk = () => HttpResponse.json({ success: true, data: ROOM }, { status: 201 });

/** A handler answering from a script, the last entry repeating. */
function scripted(...answers: Array<() => Response>) {
  let calls = 0;
  return () => answers[Math.min(calls++, answers.length - 1)]!();
}

/** Records every hook call as `name:detail`. */
function recorder(tag = '') {
  const events: string[] = [];
  const hooks: ClientHooks = {
    beforeRequest: ({ call, attempt }) => void events.push(`${tag}beforeRequest:${call.operation}#${attempt}`),
    afterResponse: ({ response, attempts }) => void events.push(`${tag}afterResponse:${response.status}/${attempts}`),
    beforeRetry: ({ attempt, error }) => void events.push(`${tag}beforeRetry:#${attempt}:${error.name}`),
    onError: ({ error, attempts }) => void events.push(`${tag}onError:${error.name}/${attempts}`),
  };
  return { events, hooks };
}

describe('client hooks', () => {
  it('run in order, client sets before call sets, once per attempt and once per outcome', async () => {
    const timeline: string[] = [];
    const tagged = (tag: string): ClientHooks => ({
      beforeRequest: ({ attempt }) => void timeline.push(`${tag}req${attempt}`),
      beforeRetry: ({ attempt }) => void timeline.push(`${tag}retry${attempt}`),
      afterResponse: () => void timeline.push(`${tag}res`),
    });
    server.use(http.get(`${BASE_URL}/api/v1/webhooks/3/`, scripted(unavailable, () => HttpResponse.json({ id: 3, url: 'https://x.test', events: [], is_active: true }))));
    const ordered = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, hooks: [tagged('a.'), tagged('b.')] });
    await ordered.webhooks.retrieve(3, { hooks: tagged('c.') });
    expect(timeline).toEqual(['a.req1', 'b.req1', 'c.req1', 'a.retry2', 'b.retry2', 'c.retry2', 'a.req2', 'b.req2', 'c.req2', 'a.res', 'b.res', 'c.res']);
  });

  it('a retried call: beforeRequest per attempt, beforeRetry with the 503 as an APIError, afterResponse once', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/svc/transactions`, scripted(unavailable, () => HttpResponse.json({ success: true, data: { id: 1, name: 'T', deal_id: 2 } }))));
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, scripted(unavailable, () => HttpResponse.json({ success: true, data: [{ id: 1 }] }))));
    const { events, hooks } = recorder();
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, hooks });
    await client.transactions.list({ deal_id: 1 });
    expect(events).toEqual([
      'beforeRequest:transactions.list#1',
      'beforeRetry:#2:InternalServerError',
      'beforeRequest:transactions.list#2',
      'afterResponse:200/2',
    ]);
  });

  it('beforeRetry sees the failed status, and the wait as delayMs', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, scripted(
      () => HttpResponse.json({ error: 'slow down' }, { status: 429, headers: { 'retry-after': '1' } }),
      () => HttpResponse.json({ success: true, data: [] }),
    )));
    const seen: BeforeRetryContext[] = [];
    let retryHeard = 0;
    let durationMs = -1;
    const client = new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      hooks: {
        beforeRetry: (retry) => {
          retryHeard = performance.now();
          seen.push(retry);
        },
        afterResponse: (answer) => void (durationMs = answer.durationMs),
      },
    });
    const started = performance.now();
    await client.transactions.list({ deal_id: 1 });
    const wall = performance.now() - started;
    expect(seen).toHaveLength(1);
    expect(seen[0]!.attempt).toBe(2);
    expect((seen[0]!.error as { status?: number }).status).toBe(429);
    // Retry-After: 1 second, honoured before the hook runs; the delay is counted from the failed attempt's end.
    expect(seen[0]!.delayMs).toBeGreaterThanOrEqual(990);
    expect(seen[0]!.delayMs).toBeLessThanOrEqual(retryHeard - started);
    // From the first attempt's start to the answer: the wait included, within the call's wall time.
    expect(durationMs).toBeGreaterThanOrEqual(seen[0]!.delayMs);
    expect(durationMs).toBeLessThanOrEqual(wall);
    expect(seen[0]!.call).toEqual({ operation: 'transactions.list', method: 'GET', urlTemplate: '/api/v1/svc/transactions' });
  });

  it('beforeRetry returning false cancels the retry: the call fails with that attempt\'s error', async () => {
    let calls = 0;
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, () => (calls++, unavailable())));
    const { events, hooks } = recorder();
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 5, hooks: [hooks, { beforeRetry: () => false }] });
    const error = await client.transactions.list({ deal_id: 1 }).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(InternalServerError);
    expect(calls).toBe(1);
    expect(events).toEqual(['beforeRequest:transactions.list#1', 'beforeRetry:#2:InternalServerError', 'onError:InternalServerError/1']);
  });

  it('no hook can make a create retry: beforeRetry is never called for it, and a 503 fails at once', async () => {
    let calls = 0;
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, () => (calls++, unavailable())));
    const { events, hooks } = recorder();
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 5, hooks: [hooks, { beforeRetry: () => true }] });
    await expect(client.rooms.create(roomParams, { maxRetries: 5 })).rejects.toBeInstanceOf(InternalServerError);
    expect(calls).toBe(1);
    expect(events).toEqual(['beforeRequest:rooms.create#1', 'onError:InternalServerError/1']);
  });

  it('beforeRequest adds and changes headers, sees no authorization header at all, and cannot change or remove the key', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, roomOk));
    const seen: Record<string, string>[] = [];
    const client = new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      headers: { 'x-team': 'deals' },
      hooks: [
        {
          beforeRequest: ({ headers }) => {
            seen.push({ ...headers });
            headers['x-gateway'] = 'g1';
            headers['x-team'] = 'ops';
            // As long as 'authorization' (13 characters): kept, only another spelling of the key is dropped.
            headers['cache-control'] = 'no-store';
            headers.Authorization = 'Bearer stolen';
          },
        },
        { beforeRequest: ({ headers }) => void delete headers.authorization },
      ],
    });
    await client.rooms.create(roomParams);
    // Issue 31: the copy a hook gets holds no spelling of authorization (it read `Bearer [redacted]` before).
    expect(Object.keys(seen[0]!).filter((name) => name.toLowerCase() === 'authorization')).toEqual([]);
    expect(JSON.stringify(seen)).not.toContain(API_KEY);
    const sent = requests.at(-1)!;
    expect(sent.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
    expect(sent.headers.get('x-gateway')).toBe('g1');
    expect(sent.headers.get('x-team')).toBe('ops');
    expect(sent.headers.get('cache-control')).toBe('no-store');
  });

  it('which hooks a set has is read when the client is made: a hook added to the set later is not run', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, roomOk));
    const events: string[] = [];
    const set: ClientHooks = { afterResponse: () => void events.push('afterResponse') };
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, hooks: set });
    set.beforeRequest = ({ headers }) => void (headers['x-late'] = '1');
    set.onError = () => void events.push('onError');
    await client.rooms.create(roomParams);
    expect(events).toEqual(['afterResponse']);
    expect(requests.at(-1)!.headers.get('x-late')).toBeNull();
    // A client made now reads the set as it is.
    await new Client({ apiKey: API_KEY, baseUrl: BASE_URL, hooks: set }).rooms.create(roomParams);
    expect(requests.at(-1)!.headers.get('x-late')).toBe('1');
  });

  it('beforeRequest runs again on each attempt, starting from the call\'s headers', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, scripted(unavailable, () => HttpResponse.json({ success: true, data: [] }))));
    const before = requests.length;
    const client = new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      hooks: { beforeRequest: ({ headers, attempt }) => void (headers['x-attempt'] = `${headers['x-attempt'] ?? ''}${attempt}`) },
    });
    await client.transactions.list({ deal_id: 1 });
    expect(requests.slice(before).map((request) => request.headers.get('x-attempt'))).toEqual(['1', '2']);
    expect(requests.slice(before).map((request) => request.headers.get('authorization'))).toEqual([`Bearer ${API_KEY}`, `Bearer ${API_KEY}`]);
  });

  it.each([
    ['beforeRequest', 'attempt 1 was not sent'],
    ['afterResponse', 'it was answered 201, so it may have taken effect'],
    ['onError', 'it had failed with NotFoundError'],
  ] as const)('a %s hook that throws fails the call with an SvcError whose cause is its error', async (name, consequence) => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, name === 'onError' ? () => HttpResponse.json({ error: 'nope' }, { status: 404 }) : roomOk));
    const thrown = new Error('hook bug');
    const before = requests.length;
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, hooks: { [name]: () => { throw thrown; } } });
    const error = await client.rooms.create(roomParams).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(SvcError);
    expect(error).not.toBeInstanceOf(NotFoundError);
    expect((error as Error).cause).toBe(thrown);
    expect((error as Error).message).toBe(`[svc-sdk] rooms.create: the ${name} hook threw, so the call failed (${consequence}); see the error's cause`);
    expect(requests.length - before).toBe(name === 'beforeRequest' ? 0 : 1);
  });

  it('a beforeRetry hook that throws stops retrying and fails the call with its error as cause', async () => {
    let calls = 0;
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, () => (calls++, unavailable())));
    const thrown = new Error('retry hook bug');
    const failures: string[] = [];
    const client = new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      hooks: { beforeRetry: async () => { throw thrown; }, onError: ({ error }) => void failures.push(error.message) },
    });
    const error = await client.transactions.list({ deal_id: 1 }).catch((e: unknown) => e);
    expect(calls).toBe(1);
    expect(error).toBeInstanceOf(SvcError);
    expect((error as Error).cause).toBe(thrown);
    expect((error as Error).message).toBe('[svc-sdk] transactions.list: the beforeRetry hook threw, so the call failed (it was not retried); see the error\'s cause');
    expect(failures).toEqual([(error as Error).message]);
  });

  it('onError hears a connection failure after the retries, with the number of attempts', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, () => HttpResponse.error()));
    const { events, hooks } = recorder();
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 1, hooks });
    await expect(client.transactions.list({ deal_id: 1 })).rejects.toBeInstanceOf(APIConnectionError);
    expect(events).toEqual(['beforeRequest:transactions.list#1', 'beforeRetry:#2:APIConnectionError', 'beforeRequest:transactions.list#2', 'onError:APIConnectionError/2']);
  });

  it('an attempt that fails leaves no unhandled rejection behind, with hooks that do not time attempts (no beforeRetry)', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, () => HttpResponse.error()));
    const unhandled: unknown[] = [];
    const listener = (reason: unknown) => void unhandled.push(reason);
    process.on('unhandledRejection', listener);
    try {
      const errors: string[] = [];
      const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, hooks: { onError: ({ error, attempts }) => void errors.push(`${error.name}/${attempts}`) } });
      await expect(client.transactions.list({ deal_id: 1 })).rejects.toBeInstanceOf(APIConnectionError);
      // Node reports an unhandled rejection once the microtasks have run: by the next turn of the loop.
      await new Promise((resolve) => setImmediate(resolve));
      expect(errors).toEqual(['APIConnectionError/1']);
      expect(unhandled).toEqual([]);
    } finally {
      process.off('unhandledRejection', listener);
    }
  });

  it('a retried DELETE answered 404 is a success: afterResponse, not onError', async () => {
    server.use(http.delete(`${BASE_URL}/api/v1/webhooks/4/`, scripted(unavailable, () => HttpResponse.json({ error: 'gone' }, { status: 404 }))));
    const { events, hooks } = recorder();
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, hooks });
    await client.webhooks.delete(4);
    expect(events).toEqual(['beforeRequest:webhooks.delete#1', 'beforeRetry:#2:InternalServerError', 'beforeRequest:webhooks.delete#2', 'afterResponse:404/2']);
  });

  it('URL templates of raw paths: the query left out, every id (digits) as {id}, other segments kept', async () => {
    server.use(http.all(`${BASE_URL}/api/v1/*`, () => HttpResponse.json({ error: 'no' }, { status: 404 })));
    const templates: string[] = [];
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, hooks: { onError: ({ call }) => void templates.push(call.urlTemplate) } });
    for (const path of ['/deal/5?x=1', '/foo-bars/5/items/6', '/5', '/rooms', '/rooms?page=2', '/rooms#top', '/rooms/2fa']) await client.request({ method: 'GET', path }).catch(() => undefined);
    expect(templates).toEqual([
      '/api/v1/deal/{id}',
      '/api/v1/foo-bars/{id}/items/{id}',
      '/api/v1/{id}',
      '/api/v1/rooms',
      '/api/v1/rooms',
      '/api/v1/rooms',
      '/api/v1/rooms/2fa',
    ]);
  });

  it('names the URL template of the call, ids named after their collection', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/webhooks/12/rotate-secret/`, () => HttpResponse.json({ secret: 'whsec_x' })));
    const templates: string[] = [];
    const client = new Client({ apiKey: API_KEY, baseUrl: `${BASE_URL}/`, hooks: { afterResponse: ({ call }) => void templates.push(call.urlTemplate) } });
    await client.webhooks.rotateSecret(12).catch(() => undefined);
    expect(templates).toEqual(['/api/v1/webhooks/{webhook_id}/rotate-secret/']);
  });

  it.each([
    [{ hooks: 'x' }, 'hooks must be an object of hooks (beforeRequest, afterResponse, beforeRetry, onError), or an array of them'],
    [{ hooks: [{}, 'x'] }, 'hooks.1 must be an object of hooks (beforeRequest, afterResponse, beforeRetry, onError), or an array of them'],
    [{ hooks: [null] }, 'hooks.0 must be an object of hooks (beforeRequest, afterResponse, beforeRetry, onError), or an array of them'],
    [{ hooks: [{ beforeRequest: 1 }] }, 'hooks.0.beforeRequest must be a function'],
    [{ hooks: { beforeSend: () => {} } }, 'hooks.beforeSend is not a hook: use beforeRequest, afterResponse, beforeRetry, onError'],
  ])('a bad hooks option %j is a ValidationError naming it, and nothing is sent', async (options, message) => {
    const before = requests.length;
    expect(() => new Client({ apiKey: API_KEY, baseUrl: BASE_URL, ...(options as object) })).toThrow(message);
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL });
    const error = await client.rooms.create(roomParams, options as never).catch((e: unknown) => e);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain(message);
    expect((error as ValidationError).issues.map((issue) => issue.path.join('.'))).toEqual([message.split(' ')[0]]);
    expect(requests.length).toBe(before);
  });

  it('a set may leave a hook undefined', () => {
    expect(() => new Client({ apiKey: API_KEY, baseUrl: BASE_URL, hooks: { beforeRequest: undefined } })).not.toThrow();
  });
  it('a client without hooks runs a call\'s; a call\'s empty list leaves the client\'s', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, roomOk));
    const plain = recorder();
    await new Client({ apiKey: API_KEY, baseUrl: BASE_URL }).rooms.create(roomParams, { hooks: plain.hooks });
    expect(plain.events).toEqual(['beforeRequest:rooms.create#1', 'afterResponse:201/1']);
    const own = recorder();
    await new Client({ apiKey: API_KEY, baseUrl: BASE_URL, hooks: own.hooks }).rooms.create(roomParams, { hooks: [] });
    expect(own.events).toEqual(['beforeRequest:rooms.create#1', 'afterResponse:201/1']);
  });

  it('a set without beforeRetry beside one with it: the retry is still heard', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, scripted(unavailable, () => HttpResponse.json({ success: true, data: [] }))));
    const heard: number[] = [];
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, hooks: [{ beforeRequest: () => {} }, { beforeRetry: ({ attempt }) => void heard.push(attempt) }] });
    await client.transactions.list({ deal_id: 1 });
    expect(heard).toEqual([2]);
  });

  it('async hooks run in order, each after the one before settled', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, roomOk));
    const before = requests.length;
    const order: string[] = [];
    const client = new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      hooks: [
        {
          beforeRequest: async ({ headers }) => {
            await new Promise((resolve) => setTimeout(resolve, 5));
            headers['x-first'] = '1';
          },
          afterResponse: async () => {
            await new Promise((resolve) => setTimeout(resolve, 5));
            order.push('first');
          },
        },
        {
          beforeRequest: ({ headers }) => void (headers['x-second'] = `${headers['x-first']}2`),
          afterResponse: () => void order.push('second'),
        },
      ],
    });
    expect(await client.rooms.create(roomParams)).toEqual(ROOM);
    expect(requests.length - before).toBe(1);
    expect(requests.at(-1)!.headers.get('x-second')).toBe('12');
    expect(order).toEqual(['first', 'second']);
  });

  it.each(['beforeRequest', 'afterResponse', 'onError'] as const)('an async %s hook that rejects fails the call with its error as cause; an async onError keeps the error', async (name) => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, name === 'onError' ? () => HttpResponse.json({ error: 'nope' }, { status: 404 }) : roomOk));
    const thrown = new Error('async hook bug');
    const rejecting = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, hooks: { [name]: async () => Promise.reject(thrown) } });
    const error = await rejecting.rooms.create(roomParams).catch((e: unknown) => e);
    expect((error as Error).cause).toBe(thrown);
    expect((error as Error).message).toContain(`the ${name} hook threw`);
    if (name !== 'onError') return;
    const heard: string[] = [];
    const observing = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, hooks: { onError: async ({ error }) => void heard.push(error.name) } });
    await expect(observing.rooms.create(roomParams)).rejects.toBeInstanceOf(NotFoundError);
    expect(heard).toEqual(['NotFoundError']);
  });
  it('beforeRetry runs beside the info-level retry log line', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, scripted(unavailable, () => HttpResponse.json({ success: true, data: [] }))));
    const lines: string[] = [];
    const heard: number[] = [];
    const logger = { debug: () => {}, info: (line: string) => void lines.push(line), warn: () => {}, error: () => {} };
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, logLevel: 'info', logger, hooks: { beforeRetry: ({ attempt }) => void heard.push(attempt) } });
    await client.transactions.list({ deal_id: 1 });
    expect(lines).toEqual([`[svc-sdk] GET ${BASE_URL}/api/v1/svc/transactions?deal_id=1: attempt 2, because it was answered 503`]);
    expect(heard).toEqual([2]);
  });
});
