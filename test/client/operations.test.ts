// The table of operations (src/operations.ts) is what the wire shows: each method sends its entry's
// method and path (parameters filled in and encoded), retries as its entry allows, and its hooks hear
// the entry's name and URL template. client.request is operation `request`, its template the path's
// with ids templated and no query.
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { Client, ValidationError, type CallInfo, type ClientHooks } from '../../src/index.node.js';
import { defineOperation } from '../../src/core/operation.js';
import { rawOperation } from '../../src/core/raw-request.js';
import { operations } from '../../src/operations.js';
import { API_KEY, BASE_URL, recordRequests, useMockService } from '../support/msw.js';

const server = useMockService();
const requests = recordRequests(server);

const ROOM = { id: 7, name: 'VDR', room_type: 'company_investment' };
const DEAL = { id: 3, name: 'Acme', stage: 'sourcing', asset_class: 'equity' };
const TX = { id: 9, name: 'T', deal_id: 3, linked_room_id: null };
const HOOK = { id: 12, url: 'https://x.test/h', name: 'h', event_types: null, failure_count: 0 };
const DOCUMENT = { id: 5, room_id: 7, original_filename: 'a.txt' };

/** A fitting answer for each entry's path (the mock service answers every operation of the table). */
function answer(method: string, pathname: string): Response {
  if (method === 'DELETE' || pathname.endsWith('/ping/')) return new Response(null, { status: 204 });
  if (pathname.endsWith('/rotate-secret/')) return HttpResponse.json({ secret: 'whsec_x' });
  if (pathname.endsWith('/search')) return HttpResponse.json({ success: true, data: { answer: 'yes', citations: [] } });
  if (pathname.endsWith('/documents')) return HttpResponse.json({ success: true, data: DOCUMENT }, { status: 201 });
  if (pathname.includes('/svc/crm/deals')) return HttpResponse.json({ success: true, data: DEAL }, { status: 201 });
  if (pathname.includes('/svc/transactions')) return HttpResponse.json({ success: true, data: method === 'GET' ? [TX] : TX });
  if (pathname.endsWith('/rooms')) return HttpResponse.json({ success: true, data: ROOM }, { status: 201 });
  if (pathname === '/api/v1/webhooks/' && method === 'POST') return HttpResponse.json({ ...HOOK, secret: 'whsec_x' }, { status: 201 });
  if (pathname === '/api/v1/webhooks/') return HttpResponse.json([HOOK]);
  return HttpResponse.json(HOOK);
}
const serve = () => server.use(http.all(`${BASE_URL}/api/v1/*`, ({ request }) => answer(request.method, new URL(request.url).pathname)));

/** One call of every entry, by name, with the ids it is called with. */
const calls: Record<keyof typeof operations, { ids: number[]; call: (client: Client) => Promise<unknown> }> = {
  'deals.create': { ids: [], call: (c) => c.deals.create({ name: 'Acme', stage: 'sourcing', asset_class: 'equity' }) },
  'rooms.create': { ids: [], call: (c) => c.rooms.create({ name: 'VDR', room_type: 'company_investment' }) },
  'transactions.create': { ids: [], call: (c) => c.transactions.create({ name: 'T', deal_id: 3 }) },
  'transactions.update': { ids: [9], call: (c) => c.transactions.update(9, { linked_room_id: 7 }) },
  'transactions.list': { ids: [], call: (c) => c.transactions.list({ deal_id: 3 }) },
  'documents.upload': { ids: [7], call: (c) => c.documents.upload(7, new Uint8Array([1]), { filename: 'a.txt' }) },
  'search.query': { ids: [7], call: (c) => c.search.query(7, { query: 'risk?' }) },
  'webhooks.create': { ids: [], call: (c) => c.webhooks.create({ url: 'https://x.test/h', name: 'h', event_types: null }) },
  'webhooks.list': { ids: [], call: (c) => c.webhooks.list() },
  'webhooks.retrieve': { ids: [12], call: (c) => c.webhooks.retrieve(12) },
  'webhooks.update': { ids: [12], call: (c) => c.webhooks.update(12, { name: 'n' }) },
  'webhooks.delete': { ids: [12], call: (c) => c.webhooks.delete(12) },
  'webhooks.rotateSecret': { ids: [12], call: (c) => c.webhooks.rotateSecret(12) },
  'webhooks.ping': { ids: [12], call: (c) => c.webhooks.ping(12) },
};

/** The entry's path with its parameters filled in, in order. */
function filled(path: string, ids: number[]): string {
  let next = 0;
  return path.replace(/\{\w+\}/g, () => String(ids[next++]));
}

describe('the table of operations', () => {
  it('is read-only, each entry named by its key, every flag a boolean, changesState what its effect says', () => {
    expect(Object.isFrozen(operations)).toBe(true);
    for (const [key, entry] of Object.entries(operations)) {
      expect(Object.isFrozen(entry)).toBe(true);
      expect(Object.isFrozen(entry.pathParameters) && Object.isFrozen(entry.pathParts) && entry.pathParameters.every(Object.isFrozen)).toBe(true);
      expect(entry.name).toBe(key);
      for (const flag of ['mayRetry', 'changesState', 'returnsNothing', 'list', 'upload', 'returnsSecret'] as const) expect(typeof entry[flag]).toBe('boolean');
      // A create is never retried; a GET always may be.
      if (entry.method === 'GET') expect(entry.mayRetry && !entry.changesState).toBe(true);
      // One source: changesState is what the effect says; a GET reads, a DELETE destroys.
      expect(entry.changesState).toBe(entry.effect !== 'read');
      if (entry.method === 'GET') expect(entry.effect).toBe('read');
      if (entry.method === 'DELETE') expect(entry.effect).toBe('destroy');
    }
    expect(() => {
      (operations as Record<string, unknown>)['rooms.create'] = undefined;
    }).toThrow(TypeError);
  });

  it.each(Object.keys(calls) as (keyof typeof operations)[])('%s sends its entry\'s method and path, and its hooks hear its name and URL template', async (name) => {
    serve();
    const heard: CallInfo[] = [];
    const hooks: ClientHooks = { afterResponse: ({ call }) => void heard.push(call) };
    const client = new Client({ apiKey: API_KEY, baseUrl: `${BASE_URL}/gw`, maxRetries: 0, hooks });
    server.use(http.all(`${BASE_URL}/gw/api/v1/*`, ({ request }) => answer(request.method, new URL(request.url).pathname.replace('/gw', ''))));
    const entry = operations[name];
    const { ids, call } = calls[name];
    await call(client);
    const sent = requests.at(-1)!;
    expect(sent.method).toBe(entry.method);
    expect(new URL(sent.url).pathname).toBe(`/gw/api/v1${filled(entry.path, ids)}`);
    expect(heard).toEqual([{ operation: name, method: entry.method, urlTemplate: `/gw/api/v1${entry.path}` }]);
  });

  it.each(Object.keys(calls) as (keyof typeof operations)[])('%s is retried after a 503 exactly when its entry may be', async (name) => {
    server.use(http.all(`${BASE_URL}/api/v1/*`, () => HttpResponse.json({ error: 'busy' }, { status: 503, headers: { 'retry-after': '0' } })));
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 1, logLevel: 'off' });
    const before = requests.length;
    await calls[name].call(client).catch(() => undefined);
    expect(requests.length - before).toBe(operations[name].mayRetry ? 2 : 1);
  });

  it('an entry whose template and parameters do not match fails when the table is loaded', () => {
    expect(() => defineOperation({ name: 'x.get', method: 'GET', path: '/x/{x_id}', mayRetry: true, effect: 'read' })).toThrow(
      '[svc-sdk] operation x.get: its path /x/{x_id} names {x_id}, its parameters are none',
    );
    expect(() => defineOperation({ name: 'x.get', method: 'GET', path: '/x', pathParameters: { y_id: operations['webhooks.retrieve'].pathParameters[0]!.schema }, mayRetry: true, effect: 'read' })).toThrow(
      '[svc-sdk] operation x.get: its path /x names {}, its parameters are y_id',
    );
    const id = operations['webhooks.retrieve'].pathParameters[0]!.schema;
    expect(() => defineOperation({ name: 'x.get', method: 'GET', path: '/x/{a}/{b}', pathParameters: { a: id }, mayRetry: true, effect: 'read' })).toThrow(
      '[svc-sdk] operation x.get: its path /x/{a}/{b} names {a}, {b}, its parameters are a',
    );
    expect(() => defineOperation({ name: 'x.get', method: 'GET', path: '/x/{a}', pathParameters: { a: id, b: id }, mayRetry: true, effect: 'read' })).toThrow(
      '[svc-sdk] operation x.get: its path /x/{a} names {a}, its parameters are a, b',
    );
  });

  it("client.request's entry: retried unless a POST not marked idempotent, a write unless a GET, nothing else set", () => {
    expect(rawOperation('POST', '/rooms/5', false)).toEqual({
      name: 'request',
      method: 'POST',
      path: '/rooms/{id}',
      pathParameters: [],
      pathParts: ['/rooms/5'],
      params: undefined,
      response: undefined,
      mayRetry: false,
      effect: 'write',
      changesState: true,
      returnsNothing: false,
      list: false,
      upload: false,
      returnsSecret: false,
      dryRun: undefined,
    });
    expect(rawOperation('POST', '/rooms', true).mayRetry).toBe(true);
    expect([rawOperation('GET', '/rooms', false).mayRetry, rawOperation('GET', '/rooms', false).changesState]).toEqual([true, false]);
    expect([rawOperation('DELETE', '/rooms/1', false).mayRetry, rawOperation('DELETE', '/rooms/1', false).changesState]).toEqual([true, true]);
    expect([rawOperation('GET', '/rooms', false).effect, rawOperation('DELETE', '/rooms/1', false).effect]).toEqual(['read', 'write']);
  });

  it("deals.create's dry run is the entry's: its query, its answer, and safe to send again", async () => {
    let sent = 0;
    server.use(
      http.post(`${BASE_URL}/api/v1/svc/crm/deals`, ({ request }) =>
        sent++ === 0
          ? HttpResponse.json({ error: 'busy' }, { status: 503, headers: { 'retry-after': '0' } })
          : HttpResponse.json({ success: true, data: { ...DEAL, id: null }, query: new URL(request.url).search }),
      ),
    );
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 1, logLevel: 'off' });
    const preview = await client.deals.create({ name: 'Acme', stage: 'sourcing', asset_class: 'equity' }, { ephemeral: true });
    expect(preview.id).toBeNull();
    expect(sent).toBe(2);
    expect(new URL(requests.at(-1)!.url).search).toBe('?ephemeral=true');
  });

  it('a path parameter is encoded into the template: an id can never change the endpoint', async () => {
    serve();
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0 });
    const before = requests.length;
    const error = await client.webhooks.retrieve('1/../../admin' as unknown as number).catch((caught: unknown) => caught);
    expect((error as Error).message).toBe('[svc-sdk] webhooks.retrieve: webhookId must be an integer id, as the service returned it. Nothing was sent.');
    expect(requests.length).toBe(before);
  });
});

describe("client.request's operation", () => {
  it.each([
    ['/rooms', '/api/v1/rooms'],
    ['/rooms/42?access_token=secret', '/api/v1/rooms/{id}'],
    ['/rooms/42/documents/7#part', '/api/v1/rooms/{id}/documents/{id}'],
    ['/share/0b6c36a4-62b8-4e3a-9e8c-6a8f7f0d1c2e', '/api/v1/share/{id}'],
    ['/share/0B6C36A4-62B8-4E3A-9E8C-6A8F7F0D1C2E/files', '/api/v1/share/{id}/files'],
    ['/rooms/2fa', '/api/v1/rooms/2fa'],
    ['/rooms/0b6c36a4', '/api/v1/rooms/0b6c36a4'],
  ])('%s is operation request with URL template %s', async (path, urlTemplate) => {
    server.use(http.all(`${BASE_URL}/api/v1/*`, () => HttpResponse.json({ ok: true })));
    const heard: CallInfo[] = [];
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, hooks: { afterResponse: ({ call }) => void heard.push(call) } });
    await client.request({ method: 'GET', path });
    expect(heard).toEqual([{ operation: 'request', method: 'GET', urlTemplate }]);
  });

  it('its errors still name the request as written (the method and path)', async () => {
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL });
    const error = await client.request({ method: 'GET', path: '/rooms\t' }).catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/^\[svc-sdk\] GET \/rooms\t: path must not contain control characters/);
  });

  it.each([
    [{ idempotent: true }, 2],
    [{}, 1],
  ])('a POST through client.request %j is sent %i time(s) when the service answers 503 first: retried only when marked idempotent', async (marked, times) => {
    let calls = 0;
    server.use(http.post(`${BASE_URL}/api/v1/imports`, () => (calls++ === 0 ? HttpResponse.json({ error: 'busy' }, { status: 503 }) : HttpResponse.json({ ok: true }))));
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 1 });
    await client.request({ method: 'POST', path: '/imports', json: { a: 1 }, ...marked }).catch(() => undefined);
    expect(calls).toBe(times);
  });

  it('a raw body is sent as it is, with the content type the call names; a call with neither body nor json sends no body', async () => {
    const seen: [string | null, string][] = [];
    server.use(
      http.all(`${BASE_URL}/api/v1/notes`, async ({ request }) => {
        seen.push([request.headers.get('content-type'), await request.text()]);
        return HttpResponse.json({ ok: true });
      }),
    );
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL });
    await client.request({ method: 'PUT', path: '/notes', body: 'plain words' }, { headers: { 'content-type': 'text/plain' } });
    await client.request({ method: 'PUT', path: '/notes' });
    await client.request({ method: 'PUT', path: '/notes', json: { a: 1 } });
    expect(seen).toEqual([
      ['text/plain', 'plain words'],
      [null, ''],
      ['application/json', '{"a":1}'],
    ]);
  });

  it('a json body JSON cannot carry is a ValidationError naming json, and nothing is sent', async () => {
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL });
    const before = requests.length;
    const error = await client.request({ method: 'POST', path: '/rooms', json: { size: 1n } }).catch((caught: unknown) => caught);
    expect((error as Error).message).toMatch(/^\[svc-sdk\] POST \/rooms: json cannot be sent as JSON \(.*BigInt.*\): pass plain data\. Nothing was sent\.$/);
    expect((error as ValidationError).issues).toEqual([{ path: ['json'], message: expect.stringMatching(/^json cannot be sent as JSON \(.*BigInt.*\): pass plain data$/) }]);
    expect(requests.length).toBe(before);
  });
});
