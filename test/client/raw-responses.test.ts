import { http, HttpResponse } from 'msw';
import { beforeEach, describe, expect, it } from 'vitest';
import { Client, NotFoundError } from '../../src/index.node.js';
import { API_KEY, BASE_URL, recordRequests, useMockService } from '../support/msw.js';

const server = useMockService();
const requests = recordRequests(server);
beforeEach(() => {
  requests.length = 0;
});
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0 });
const roomParams = { name: 'VDR', room_type: 'company_investment' };
const created = () =>
  HttpResponse.json({ success: true, data: { id: 5, name: 'VDR' } }, { status: 201, headers: { 'x-request-id': 'req_7' } });

describe('raw responses', () => {
  it('withResponse() gives the data, the response with its body unread, and the request id', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, created));
    const { data, response, requestId } = await client.rooms.create(roomParams).withResponse();
    expect(data).toEqual({ id: 5, name: 'VDR' });
    expect(requestId).toBe('req_7');
    expect(response.status).toBe(201);
    expect(response.url).toBe(`${BASE_URL}/api/v1/rooms`);
    expect(response.bodyUsed).toBe(false);
    expect(await response.json()).toEqual({ success: true, data: { id: 5, name: 'VDR' } });
  });

  it('asResponse() gives the raw response, body unread, without parsing it', async () => {
    // A body the schema would refuse: asResponse does not parse it.
    server.use(http.get(`${BASE_URL}/api/v1/webhooks/3/`, () => HttpResponse.json({ id: 'three' }, { headers: { 'x-request-id': 'req_8' } })));
    const response = await client.webhooks.retrieve(3).asResponse();
    expect(response.status).toBe(200);
    expect(response.headers.get('x-request-id')).toBe('req_8');
    expect(response.bodyUsed).toBe(false);
    expect(await response.json()).toEqual({ id: 'three' });
  });

  it('awaiting the same promise still gives the data, and the request is sent once', async () => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, created));
    const promise = client.rooms.create(roomParams);
    const [room, response, both] = await Promise.all([promise, promise.asResponse(), promise.withResponse()]);
    expect(room).toEqual({ id: 5, name: 'VDR' });
    expect(response.status).toBe(201);
    expect(both.data).toBe(room);
    expect(requests).toHaveLength(1);
  });

  it('a failed call rejects asResponse() and withResponse() with the APIError', async () => {
    server.use(http.get(`${BASE_URL}/api/v1/webhooks/3/`, () => HttpResponse.json({ error: 'gone' }, { status: 404 })));
    await expect(client.webhooks.retrieve(3).asResponse()).rejects.toBeInstanceOf(NotFoundError);
    await expect(client.webhooks.retrieve(3).withResponse()).rejects.toBeInstanceOf(NotFoundError);
  });

  it('a 204 answer gives a response with no body', async () => {
    server.use(http.delete(`${BASE_URL}/api/v1/webhooks/3/`, () => new HttpResponse(null, { status: 204 })));
    const { data, response } = await client.webhooks.delete(3).withResponse();
    expect(data).toBeUndefined();
    expect(response.status).toBe(204);
    expect(response.body).toBeNull();
  });

  it('client.request, documents.upload and deals.linkedRoomIds have them too', async () => {
    server.use(
      http.get(`${BASE_URL}/api/v1/status`, () => HttpResponse.json({ ok: true }, { headers: { 'x-request-id': 'req_s' } })),
      http.post(`${BASE_URL}/api/v1/rooms/5/documents`, () => HttpResponse.json({ id: 1, original_filename: 'a.txt' }, { headers: { 'x-request-id': 'req_u' } })),
      http.get(`${BASE_URL}/api/v1/svc/transactions`, () => HttpResponse.json([{ id: 1, linked_room_id: 4 }], { headers: { 'x-request-id': 'req_l' } })),
    );
    expect(await client.request({ method: 'GET', path: '/status' }).withResponse()).toMatchObject({ data: { ok: true }, requestId: 'req_s' });
    const upload = await client.documents.upload(5, new Blob(['hi']), { filename: 'a.txt' }).withResponse();
    expect(upload).toMatchObject({ data: { id: 1 }, requestId: 'req_u' });
    expect(await client.deals.linkedRoomIds(7).withResponse()).toMatchObject({ data: [4], requestId: 'req_l' });
  });
});
