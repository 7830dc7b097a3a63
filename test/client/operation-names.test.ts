import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { Client, ResponseValidationError, ValidationError } from '../../src/index.node.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';

// Every method's errors say which method failed (`[svc-sdk] <resource>.<method>: ...`) and which
// argument: a caller with several calls in flight learns from the message alone what to fix.

const server = useMockService();
const sent: string[] = [];
server.events.on('request:start', ({ request }) => {
  sent.push(`${request.method} ${request.url}`);
});
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'off' });

async function rejection(call: () => Promise<unknown>): Promise<unknown> {
  return call().then(
    () => {
      throw new Error('expected the call to fail');
    },
    (caught: unknown) => caught,
  );
}

describe('a bad path id names the method and the argument; nothing is sent', () => {
  it.each([
    ['documents.upload', 'roomId', () => client.documents.upload(0, new Uint8Array([1]), { filename: 'a.txt' })],
    ['search.query', 'roomId', () => client.search.query(0, { query: 'risk?' })],
    ['transactions.update', 'txId', () => client.transactions.update(-1, { linked_room_id: 2 })],
    ['deals.linkedRoomIds', 'dealId', () => client.deals.linkedRoomIds(0)],
    ['webhooks.retrieve', 'webhookId', () => client.webhooks.retrieve(0)],
    ['webhooks.update', 'webhookId', () => client.webhooks.update(0, { name: 'n' })],
    ['webhooks.delete', 'webhookId', () => client.webhooks.delete(0)],
    ['webhooks.rotateSecret', 'webhookId', () => client.webhooks.rotateSecret(0)],
    ['webhooks.ping', 'webhookId', () => client.webhooks.ping(0)],
  ])('%s with %s 0', async (operation, field, call) => {
    const before = sent.length;
    const error = await rejection(call);
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toBe(`[svc-sdk] ${operation}: ${field} must be a positive integer id. Nothing was sent.`);
    expect(sent.length).toBe(before);
  });
});

describe('an answer of the wrong shape names the method', () => {
  const wrongItem = { id: 'not-a-number' };
  it.each([
    ['deals.create', http.post(`${BASE_URL}/api/v1/svc/crm/deals`, () => HttpResponse.json({ success: true, data: wrongItem })), () => client.deals.create({ name: 'A', stage: 'sourcing', asset_class: 'equity' })],
    ['rooms.create', http.post(`${BASE_URL}/api/v1/rooms`, () => HttpResponse.json({ success: true, data: wrongItem })), () => client.rooms.create({ name: 'VDR', room_type: 'company_investment' })],
    ['documents.upload', http.post(`${BASE_URL}/api/v1/rooms/5/documents`, () => HttpResponse.json({ success: true, data: wrongItem }, { status: 201 })), () => client.documents.upload(5, new Uint8Array([1]), { filename: 'a.txt' })],
    ['search.query', http.post(`${BASE_URL}/api/v1/rooms/5/search`, () => HttpResponse.json({ success: true, data: { answer: 7 } })), () => client.search.query(5, { query: 'risk?' })],
    ['transactions.create', http.post(`${BASE_URL}/api/v1/svc/transactions`, () => HttpResponse.json({ success: true, data: wrongItem })), () => client.transactions.create({ name: 'T', deal_id: 1 })],
    ['transactions.update', http.patch(`${BASE_URL}/api/v1/svc/transactions/9`, () => HttpResponse.json({ success: true, data: wrongItem })), () => client.transactions.update(9, { linked_room_id: 2 })],
    ['transactions.list', http.get(`${BASE_URL}/api/v1/svc/transactions`, () => HttpResponse.json({ success: true, data: [wrongItem] })), () => client.transactions.list({ deal_id: 1 })],
    ['webhooks.create', http.post(`${BASE_URL}/api/v1/webhooks/`, () => HttpResponse.json(wrongItem)), () => client.webhooks.create({ url: 'https://x.test/h', name: 'h', event_types: null })],
    ['webhooks.list', http.get(`${BASE_URL}/api/v1/webhooks/`, () => HttpResponse.json([wrongItem])), () => client.webhooks.list()],
    ['webhooks.retrieve', http.get(`${BASE_URL}/api/v1/webhooks/3/`, () => HttpResponse.json(wrongItem)), () => client.webhooks.retrieve(3)],
    ['webhooks.update', http.patch(`${BASE_URL}/api/v1/webhooks/3/`, () => HttpResponse.json(wrongItem)), () => client.webhooks.update(3, { name: 'n' })],
    ['webhooks.rotateSecret', http.post(`${BASE_URL}/api/v1/webhooks/3/rotate-secret/`, () => HttpResponse.json({ secret: 42 })), () => client.webhooks.rotateSecret(3)],
    // The two that answer nothing: an HTML page (a proxy's, a login page) is not success.
    ['webhooks.delete', http.delete(`${BASE_URL}/api/v1/webhooks/3/`, () => HttpResponse.html('<html>login</html>')), () => client.webhooks.delete(3)],
    ['webhooks.ping', http.post(`${BASE_URL}/api/v1/webhooks/3/ping/`, () => HttpResponse.html('<html>login</html>')), () => client.webhooks.ping(3)],
  ])('%s', async (operation, handler, call) => {
    server.use(handler);
    const error = await rejection(call);
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toMatch(new RegExp(`^\\[svc-sdk\\] ${operation.replace('.', '\\.')}: `));
  });
});
