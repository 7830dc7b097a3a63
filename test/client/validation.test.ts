import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, ValidationError, type RoomCreateParams } from '../../src/index.node.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';

const server = useMockService();
const sent: string[] = [];
server.events.on('request:start', ({ request }) => {
  sent.push(`${request.method} ${request.url}`);
});
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0 });
const URL_RULE = 'url must be an https:// URL of your receiver, such as https://example.com/webhooks (http:// only to localhost, 127.0.0.1 or [::1]). Nothing was sent.';

/** Runs a call that must be refused before sending; returns the error. */
async function refused(call: () => Promise<unknown>): Promise<ValidationError> {
  const before = sent.length;
  const error = await call().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ValidationError);
  expect(sent.length).toBe(before); // nothing reached the wire
  return error as ValidationError;
}

describe('bad input is refused before sending, naming the field and the fix', () => {
  it.each([
    ['deals.create without name', () => client.deals.create({ stage: 'sourcing', asset_class: 'equity' } as never), "[svc-sdk] deals.create: name is required: pass the deal name as a string. Nothing was sent."],
    ['deals.create with an empty name', () => client.deals.create({ name: '', stage: 'sourcing', asset_class: 'equity' }), "[svc-sdk] deals.create: name must not be empty: pass the deal name. Nothing was sent."],
    ['deals.create with a numeric stage', () => client.deals.create({ name: 'A', stage: 3 as never, asset_class: 'equity' }), "[svc-sdk] deals.create: stage is required: pass a value such as 'sourcing' or 'closing' as a string. Nothing was sent."],
    ['rooms.create without room_type', () => client.rooms.create({ name: 'VDR' } as never), "[svc-sdk] rooms.create: room_type is required: pass a value such as 'company_investment' as a string. Nothing was sent."],
    ['transactions.create with a string deal_id', () => client.transactions.create({ name: 'T', deal_id: '7' as never }), '[svc-sdk] transactions.create: deal_id must be an integer id, as the service returned it. Nothing was sent.'],
    ['transactions.update with a fractional id', () => client.transactions.update(1.5, { linked_room_id: 2 }), '[svc-sdk] transactions.update: txId must be an integer id, as the service returned it. Nothing was sent.'],
    ['transactions.update with linked_room_id 0', () => client.transactions.update(1, { linked_room_id: 0 }), '[svc-sdk] transactions.update: linked_room_id must be a positive integer id. Nothing was sent.'],
    ['transactions.list without deal_id', () => client.transactions.list({} as never), '[svc-sdk] transactions.list: deal_id must be an integer id, as the service returned it. Nothing was sent.'],
    ['deals.linkedRoomIds with a null id', () => client.deals.linkedRoomIds(null as never), '[svc-sdk] deals.linkedRoomIds: dealId must be an integer id, as the service returned it. Nothing was sent.'],
    ['search.query with an empty query', () => client.search.query(1, { query: '' }), '[svc-sdk] search.query: query must not be empty: pass the question to ask. Nothing was sent.'],
    ['webhooks.create with a relative url', () => client.webhooks.create({ url: '/hook', name: 'h', event_types: null }), '[svc-sdk] webhooks.create: url must be an https:// URL of your receiver, such as https://example.com/webhooks (http:// only to localhost, 127.0.0.1 or [::1]). Nothing was sent.'],
    ['webhooks.create with an ftp url', () => client.webhooks.create({ url: 'ftp://x.test/h', name: 'h', event_types: null }), '[svc-sdk] webhooks.create: url must be an https:// URL of your receiver, such as https://example.com/webhooks (http:// only to localhost, 127.0.0.1 or [::1]). Nothing was sent.'],
    ['webhooks.create with a plain http url to another host', () => client.webhooks.create({ url: 'http://receiver.example.com/h', name: 'h', event_types: null }), '[svc-sdk] webhooks.create: ' + URL_RULE],
    ['webhooks.create with http to a host named like loopback', () => client.webhooks.create({ url: 'http://127.0.0.1.example.com/h', name: 'h', event_types: null }), '[svc-sdk] webhooks.create: ' + URL_RULE],
    ['webhooks.update with a plain http url', () => client.webhooks.update(1, { url: 'http://10.0.0.8/h' }), '[svc-sdk] webhooks.update: ' + URL_RULE],
    ['webhooks.update with a url that is not a string', () => client.webhooks.update(1, { url: 42 as never }), '[svc-sdk] webhooks.update: url must be an https:// URL of your receiver, such as https://example.com/webhooks (http:// only to localhost, 127.0.0.1 or [::1]). Nothing was sent.'],
    ['webhooks.create without event_types', () => client.webhooks.create({ url: 'https://x.test/h', name: 'h' } as never), '[svc-sdk] webhooks.create: event_types is required: pass an array of event kinds, or null to receive every kind. Nothing was sent.'],
    ['webhooks.retrieve with a string id', () => client.webhooks.retrieve('3' as never), '[svc-sdk] webhooks.retrieve: webhookId must be an integer id, as the service returned it. Nothing was sent.'],
    ['documents.upload of bytes without a filename', () => client.documents.upload(1, new Uint8Array([1])), '[svc-sdk] documents.upload: filename is required for this input: pass { filename } in the options. Nothing was sent.'],
  ])('%s', async (_title, call, message) => {
    expect((await refused(call)).message).toBe(message);
  });

  it.each([
    ['no params at all', undefined],
    ['params that are a string', 'VDR'],
    ['params that are a number', 7],
  ])('rooms.create with %s: a ValidationError, not a raw TypeError', async (_title, params) => {
    const error = await refused(() => client.rooms.create(params as never));
    expect(error.issues).toHaveLength(1);
    expect(error.issues[0]!.path).toEqual([]);
  });

  it('an id that is an object (from JavaScript): a ValidationError naming it, not a raw TypeError', async () => {
    const error = await refused(() => client.webhooks.retrieve({ id: 3 } as never));
    expect(error.message).toBe('[svc-sdk] webhooks.retrieve: webhookId must be an integer id, as the service returned it. Nothing was sent.');
  });

  it('maxResponseBytes of 1 is a bound, not a bad option: the answer is refused for its size', async () => {
    const small = new Client({ apiKey: API_KEY, baseUrl: 'https://svc.test', maxRetries: 0, maxResponseBytes: 1, fetch: async () => Response.json({ id: 1 }) });
    const error = await small.webhooks.retrieve(1).catch((caught: unknown) => caught);
    expect(error).not.toBeInstanceOf(ValidationError);
    expect((error as Error).message).toContain('the answer is larger than maxResponseBytes (1 bytes');
    const roomy = new Client({ apiKey: API_KEY, baseUrl: 'https://svc.test', maxRetries: 0, fetch: async () => Response.json({ id: 1 }) });
    const perCall = await roomy.webhooks.retrieve(1, { maxResponseBytes: 1 }).catch((caught: unknown) => caught);
    expect((perCall as Error).message).toContain('the answer is larger than maxResponseBytes (1 bytes');
  });

  it('every problem is reported at once, each with its path', async () => {
    const error = await refused(() => client.deals.create({ name: '', stage: '', asset_class: 1 as never }));
    expect(error.issues.map((issue) => issue.path.join('.'))).toEqual(['name', 'stage', 'asset_class']);
  });

  it.each(['https://receiver.example.com/h', 'http://localhost:3000/h', 'http://127.0.0.1:8080/h', 'http://127.8.9.10/h', 'http://[::1]:9000/h'])(
    'webhooks.create accepts the receiver url %s and sends it',
    async (url) => {
      const { http, HttpResponse } = await import('msw');
      let body: unknown;
      server.use(
        http.post(`${BASE_URL}/api/v1/webhooks/`, async ({ request }) => {
          body = await request.json();
          return HttpResponse.json({ id: 1, secret: 's', event_types: null });
        }),
      );
      await client.webhooks.create({ url, name: 'h', event_types: null });
      expect(body).toMatchObject({ url });
    },
  );

  it('unknown fields of params are sent as given', async () => {
    const { http, HttpResponse } = await import('msw');
    let body: unknown;
    server.use(
      http.post(`${BASE_URL}/api/v1/rooms`, async ({ request }) => {
        body = await request.json();
        return HttpResponse.json({ success: true, data: { id: 1, name: 'r' } });
      }),
    );
    // The documented way past the exact params type: a field the SDK does not know yet, typed on purpose.
    const params: RoomCreateParams & { region: string } = { name: 'r', room_type: 'company_investment', region: 'eu' };
    await client.rooms.create(params);
    expect(body).toEqual({ name: 'r', room_type: 'company_investment', region: 'eu' });
  });
});

describe('new Client(options)', () => {
  afterEach(() => vi.unstubAllEnvs());

  it('reads SVC_API_KEY and SVC_BASE_URL from the environment', () => {
    vi.stubEnv('SVC_API_KEY', API_KEY);
    vi.stubEnv('SVC_BASE_URL', 'https://env.test/');
    expect(new Client().baseUrl).toBe('https://env.test');
  });

  it.each([
    [{ baseUrl: BASE_URL }, '[svc-sdk] new Client(): apiKey is missing: pass it or set SVC_API_KEY. Nothing was sent.'],
    [{ apiKey: 'sk_live_123', baseUrl: BASE_URL }, '[svc-sdk] new Client(): apiKey must start with "vdr_": copy the key the developer portal issued. Nothing was sent.'],
    [{ apiKey: API_KEY }, '[svc-sdk] new Client(): baseUrl is missing: pass it or set SVC_BASE_URL. Nothing was sent.'],
    [{ apiKey: API_KEY, baseUrl: 'svc.test' }, '[svc-sdk] new Client(): baseUrl must be an absolute http(s) URL, such as https://api.example.com. Nothing was sent.'],
    [{ apiKey: API_KEY, baseUrl: BASE_URL, timeout: 0 }, '[svc-sdk] new Client(): timeout must be a whole number of milliseconds from 1 to 2147483647. Nothing was sent.'],
    [{ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: -1 }, '[svc-sdk] new Client(): maxRetries must be a whole number, 0 or more. Nothing was sent.'],
  ])('new Client(%o) throws a clear ValidationError', (options, message) => {
    vi.stubEnv('SVC_API_KEY', undefined);
    vi.stubEnv('SVC_BASE_URL', undefined);
    expect(() => new Client(options)).toThrow(message);
  });

  it('a wrong key is never echoed back in the error', () => {
    const wrong = 'sk_live_do_not_print_me';
    expect(() => new Client({ apiKey: wrong, baseUrl: BASE_URL })).toThrow(expect.objectContaining({ message: expect.not.stringContaining(wrong) }));
  });
});
