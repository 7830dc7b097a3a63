import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { Client, ResponseValidationError } from '../../src/index.node.js';
import { API_KEY, BASE_URL, recordRequests, useMockService } from '../support/msw.js';

const server = useMockService();
const requests = recordRequests(server);
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0 });
const ok = (data: unknown) => HttpResponse.json({ success: true, data });

function lastRequest(): Request {
  const request = requests.at(-1);
  if (!request) throw new Error('no request was sent');
  return request;
}

describe('the wire', () => {
  it('deals.create(params) POSTs JSON with the Bearer key to /api/v1/svc/crm/deals', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/svc/crm/deals`, () => ok({ id: 1, name: 'Acme', stage: 'sourcing', owner: 'x' })));
    const deal = await client.deals.create({ name: 'Acme', stage: 'sourcing', asset_class: 'equity' });
    expect(deal).toEqual({ id: 1, name: 'Acme', stage: 'sourcing', owner: 'x' });
    const request = lastRequest();
    expect(request.method).toBe('POST');
    expect(new URL(request.url).search).toBe('');
    expect(request.headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
    expect(request.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await request.json()).toEqual({ name: 'Acme', stage: 'sourcing', asset_class: 'equity' });
  });

  it('deals.create(params, { ephemeral: true }) adds ?ephemeral=true and returns id: null', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/svc/crm/deals`, () => ok({ id: null, name: 'Acme', stage: 'closing' })));
    const preview = await client.deals.create({ name: 'Acme', stage: 'closing', asset_class: 'equity' }, { ephemeral: true });
    expect(preview.id).toBeNull();
    expect(new URL(lastRequest().url).searchParams.get('ephemeral')).toBe('true');
  });

  it('rooms.create(params) POSTs to /api/v1/rooms', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, () => ok({ id: 5, name: 'VDR' })));
    expect(await client.rooms.create({ name: 'VDR', room_type: 'company_investment' })).toEqual({ id: 5, name: 'VDR' });
    expect(await lastRequest().json()).toEqual({ name: 'VDR', room_type: 'company_investment' });
  });

  it('transactions.create, update and list use POST, PATCH /{id} and GET ?deal_id=', async () => {
    server.use(
      http.post(`${BASE_URL}/api/v1/svc/transactions`, () => ok({ id: 9, name: 'Series A', deal_id: 1 })),
      http.patch(`${BASE_URL}/api/v1/svc/transactions/9`, () => ok({ id: 9, linked_room_id: 5 })),
      http.get(`${BASE_URL}/api/v1/svc/transactions`, () => ok([{ id: 9, deal_id: 1, linked_room_id: 5 }])),
    );
    await client.transactions.create({ name: 'Series A', deal_id: 1 });
    expect(await lastRequest().json()).toEqual({ name: 'Series A', deal_id: 1 });
    await client.transactions.update(9, { linked_room_id: 5 });
    expect(lastRequest().method).toBe('PATCH');
    expect(await lastRequest().json()).toEqual({ linked_room_id: 5 });
    expect(await client.transactions.list({ deal_id: 1 })).toEqual([{ id: 9, deal_id: 1, linked_room_id: 5 }]);
    expect(new URL(lastRequest().url).searchParams.get('deal_id')).toBe('1');
  });

  it('transactions.list accepts a bare array and a { results } page', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, () => HttpResponse.json({ results: [{ id: 3 }], next: null })));
    expect(await client.transactions.list({ deal_id: 2 })).toEqual([{ id: 3 }]);
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, () => HttpResponse.json([{ id: 4 }])));
    expect(await client.transactions.list({ deal_id: 2 })).toEqual([{ id: 4 }]);
  });

  it('webhooks.list accepts a { results } page, and a page whose results are not a list is a ResponseValidationError', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/webhooks/`, () => HttpResponse.json({ results: [{ id: 7, url: 'https://x.test/h' }] })));
    expect(await client.webhooks.list()).toEqual([{ id: 7, url: 'https://x.test/h' }]);
    server.use(http.get(`${BASE_URL}/api/v1/webhooks/`, () => HttpResponse.json({ results: 'none' })));
    await expect(client.webhooks.list()).rejects.toBeInstanceOf(ResponseValidationError);
  });

  it('deals.linkedRoomIds(dealId) joins through the transactions\' linked_room_id', async () => {
    server.use(
      http.get(`${BASE_URL}/api/v1/svc/transactions`, () =>
        ok([{ id: 1, linked_room_id: 5 }, { id: 2, linked_room_id: null }, { id: 3 }, { id: 4, linked_room_id: 5 }, { id: 5, linked_room_id: 8 }]),
      ),
    );
    expect(await client.deals.linkedRoomIds(7)).toEqual([5, 8]);
    expect(new URL(lastRequest().url).searchParams.get('deal_id')).toBe('7');
  });

  it('documents.upload(roomId, blob) sends multipart with one part named file', async () => {
    let form: FormData | undefined;
    server.use(
      http.post(`${BASE_URL}/api/v1/rooms/5/documents`, async ({ request }) => {
        form = await request.formData();
        return ok({ id: 11, original_filename: 'memo.txt' });
      }),
    );
    const document = await client.documents.upload(5, new Blob(['hello']), { filename: 'memo.txt' });
    expect(document).toEqual({ id: 11, original_filename: 'memo.txt' });
    if (!form) throw new Error('the upload did not reach the service');
    const file = form.get('file') as File;
    expect([...form.keys()]).toEqual(['file']);
    expect(file.name).toBe('memo.txt');
    expect(await file.text()).toBe('hello');
  });

  it('search.query(roomId, { query }) POSTs the question to /rooms/{id}/search', async () => {
    server.use(
      http.post(`${BASE_URL}/api/v1/rooms/5/search`, () =>
        ok({ answer: 'Yes.', citations: [{ document_id: 11, filename: 'memo.txt', passage: 'Yes, indeed.' }] }),
      ),
    );
    const result = await client.search.query(5, { query: 'Is it?' });
    expect(result.citations?.[0]?.document_id).toBe(11);
    expect(await lastRequest().json()).toEqual({ query: 'Is it?' });
  });

  it('webhooks.create POSTs to /webhooks/ (trailing slash) and returns the unwrapped registration', async () => {
    server.use(
      http.post(`${BASE_URL}/api/v1/webhooks/`, () => HttpResponse.json({ id: 3, secret: 'whsec_x', event_types: ['document.uploaded'] })),
    );
    const created = await client.webhooks.create({ url: 'https://example.com/hook', name: 'hook', event_types: ['document.uploaded'] });
    expect(created).toEqual({ id: 3, secret: 'whsec_x', event_types: ['document.uploaded'] });
    expect(new URL(lastRequest().url).pathname).toBe('/api/v1/webhooks/');
    expect(await lastRequest().json()).toEqual({ url: 'https://example.com/hook', name: 'hook', event_types: ['document.uploaded'] });
  });

  it('webhooks.create sends event_types: null to subscribe to every kind', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/webhooks/`, () => HttpResponse.json({ id: 4, secret: 's', event_types: null })));
    await client.webhooks.create({ url: 'https://example.com/hook', name: 'all', event_types: null });
    expect(await lastRequest().json()).toMatchObject({ event_types: null });
  });

  it('webhooks list, retrieve, update, delete, rotateSecret and ping use the assumed paths', async () => {
    const endpoint = { id: 3, url: 'https://example.com/hook', name: 'hook', event_types: null, failure_count: 0 };
    server.use(
      http.get(`${BASE_URL}/api/v1/webhooks/`, () => ok([endpoint])),
      http.get(`${BASE_URL}/api/v1/webhooks/3/`, () => HttpResponse.json(endpoint)),
      http.patch(`${BASE_URL}/api/v1/webhooks/3/`, () => ok({ ...endpoint, name: 'renamed' })),
      http.delete(`${BASE_URL}/api/v1/webhooks/3/`, () => new HttpResponse(null, { status: 204 })),
      http.post(`${BASE_URL}/api/v1/webhooks/3/rotate-secret/`, () => ok({ secret: 'new' })),
      http.post(`${BASE_URL}/api/v1/webhooks/3/ping/`, () => ok({ queued: true })),
    );
    expect(await client.webhooks.list()).toEqual([endpoint]);
    expect(await client.webhooks.retrieve(3)).toEqual(endpoint);
    expect((await client.webhooks.update(3, { name: 'renamed' })).name).toBe('renamed');
    expect(await lastRequest().json()).toEqual({ name: 'renamed' });
    await expect(client.webhooks.delete(3)).resolves.toBeUndefined();
    expect(lastRequest().method).toBe('DELETE');
    // A write without params has no body, so it claims no JSON content type either.
    expect(lastRequest().headers.get('content-type')).toBeNull();
    expect(await client.webhooks.rotateSecret(3)).toEqual({ secret: 'new' });
    await expect(client.webhooks.ping(3)).resolves.toBeUndefined();
    expect(new URL(lastRequest().url).pathname).toBe('/api/v1/webhooks/3/ping/');
    expect([lastRequest().headers.get('content-type'), await lastRequest().text()]).toEqual([null, '']);
  });

  it('request() calls a path relative to /api/v1 and unwraps the envelope', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/rooms/5`, () => ok({ id: 5, name: 'VDR' })));
    expect(await client.request({ method: 'GET', path: '/rooms/5', query: { expand: 'all' } })).toEqual({ id: 5, name: 'VDR' });
    expect(new URL(lastRequest().url).search).toBe('?expand=all');
  });

  it('request() returns a body that is not an envelope as it came', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/status`, () => HttpResponse.json({ ok: true, success: 'yes' })));
    expect(await client.request({ method: 'GET', path: 'status' })).toEqual({ ok: true, success: 'yes' });
  });

  it('a baseUrl with a path and a trailing slash keeps its path', async () => {
    const prefixed = new Client({ apiKey: API_KEY, baseUrl: `${BASE_URL}/tenant-a/`, maxRetries: 0 });
    server.use(http.post(`${BASE_URL}/tenant-a/api/v1/rooms`, () => ok({ id: 1, name: 'r' })));
    await prefixed.rooms.create({ name: 'r', room_type: 'company_investment' });
    expect(new URL(lastRequest().url).pathname).toBe('/tenant-a/api/v1/rooms');
  });

  it('client and per-call headers are sent, and per-call options override the client', async () => {
    const custom = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, headers: { 'x-team': 'deals' }, maxRetries: 0 });
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, () => ok({ id: 1, name: 'r' })));
    await custom.rooms.create({ name: 'r', room_type: 'company_investment' }, { headers: { 'x-trace': 'abc' } });
    expect(lastRequest().headers.get('x-team')).toBe('deals');
    expect(lastRequest().headers.get('x-trace')).toBe('abc');
  });

  it('a header set to undefined (from JavaScript) is not sent, and a per-call undefined removes the client\'s', async () => {
    const headers = { 'x-team': 'deals', 'x-unset': undefined } as unknown as Record<string, string>;
    const custom = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, headers, maxRetries: 0 });
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, () => ok({ id: 1, name: 'r' })));
    await custom.rooms.create({ name: 'r', room_type: 'company_investment' });
    expect(lastRequest().headers.get('x-team')).toBe('deals');
    expect(lastRequest().headers.has('x-unset')).toBe(false);
    await custom.rooms.create({ name: 'r', room_type: 'company_investment' }, { headers: { 'x-team': undefined } as unknown as Record<string, string> });
    expect(lastRequest().headers.has('x-team')).toBe(false);
  });

  it('a custom fetch is called as fetch(url, init), with the body, headers and a signal in init', async () => {
    const calls: { input: unknown; init: RequestInit | undefined }[] = [];
    const custom = new Client({
      apiKey: API_KEY,
      baseUrl: BASE_URL,
      maxRetries: 0,
      fetch: async (input, init) => {
        calls.push({ input, init });
        return Response.json({ success: true, data: { id: 9, name: 'r' } }, { status: 201 });
      },
    });
    expect(await custom.rooms.create({ name: 'r', room_type: 'company_investment' })).toEqual({ id: 9, name: 'r' });
    const [{ input, init }] = calls as [(typeof calls)[number]];
    expect(input).toBe(`${BASE_URL}/api/v1/rooms`);
    expect(init?.method).toBe('POST');
    expect(JSON.parse(init?.body as string)).toEqual({ name: 'r', room_type: 'company_investment' });
    // A Headers of its own, as ever (the core hands Node's fetch a plain object, which it validates once).
    expect(init?.headers).toBeInstanceOf(Headers);
    const headers = init?.headers as Headers;
    expect(headers.get('authorization')).toBe(`Bearer ${API_KEY}`);
    expect(headers.get('content-type')).toBe('application/json');
    expect(init?.signal).toBeInstanceOf(AbortSignal);
  });
});
