import { describe, expect, it } from 'vitest';
import { Client, NotFoundError } from '../../src/index.node.js';
import { createEmulator } from '../../src/testing/index.js';
import { call, fileForm, KEY, OTHER_KEY, seed } from './support.js';

describe('createEmulator(): auth', () => {
  it('answers 401 JSON without a Bearer key, with a key lacking vdr_, and with a key other than the configured one', async () => {
    const open = createEmulator();
    for (const key of [null, 'sk_live_123']) {
      const { status, body } = await call(open, 'POST', '/rooms', { key, json: { name: 'R', room_type: 'x' } });
      expect(status).toBe(401);
      expect(body.error).toEqual(expect.any(String));
    }
    const strict = createEmulator({ apiKey: 'vdr_only_this' });
    expect((await call(strict, 'GET', '/webhooks/', { key: 'vdr_another' })).status).toBe(401);
    expect((await call(strict, 'GET', '/webhooks/', { key: 'vdr_only_this' })).status).toBe(200);
  });

  it('checks the key before anything else, also on unknown paths', async () => {
    const emulator = createEmulator();
    expect((await call(emulator, 'GET', '/nope', { key: null })).status).toBe(401);
    const unknown = await call(emulator, 'GET', '/nope');
    expect(unknown.status).toBe(404);
    expect(unknown.body.error).toMatch(/GET \/api\/v1\/nope/);
  });

  it('answers 404 JSON for a path outside /api/v1', async () => {
    const response = await createEmulator().fetch(new Request('https://svc.test/other'));
    expect(response.status).toBe(404);
    expect((await response.json()).error).toMatch(/no route/);
  });

  it('is a fetch a Client can use directly: no server, no msw', async () => {
    const emulator = createEmulator();
    const client = new Client({ apiKey: KEY, baseUrl: 'https://svc.test', fetch: emulator.fetch });
    const room = await client.rooms.create({ name: 'R', room_type: 'company_investment' });
    expect(room).toMatchObject({ id: 1, name: 'R' });
    await expect(client.webhooks.retrieve(99)).rejects.toBeInstanceOf(NotFoundError);
    // And like the global fetch, it takes a URL and an init.
    const response = await emulator.fetch('https://svc.test/api/v1/webhooks/', { headers: { authorization: `Bearer ${KEY}` } });
    expect(response.status).toBe(200);
  });

  it('rejects an apiKey option that does not start with vdr_', () => {
    expect(() => createEmulator({ apiKey: 'abc' })).toThrow(/^\[svc-sdk\] createEmulator: apiKey must start with "vdr_"/);
  });
});

describe('createEmulator(): deals, rooms, transactions', () => {
  it('creates a deal in a { success, data } envelope with ids from 1', async () => {
    const emulator = createEmulator();
    const { status, body } = await call(emulator, 'POST', '/svc/crm/deals', { json: { name: 'Acme', stage: 'sourcing', asset_class: 'equity' } });
    expect(status).toBe(201);
    expect(body).toEqual({ success: true, data: { id: 1, name: 'Acme', stage: 'sourcing', asset_class: 'equity' } });
  });

  it('?ephemeral=true validates, answers id: null and stores nothing', async () => {
    const emulator = createEmulator();
    const dry = await call(emulator, 'POST', '/svc/crm/deals?ephemeral=true', { json: { name: 'Acme', stage: 'closing', asset_class: 'equity' } });
    expect(dry.body).toEqual({ success: true, data: { id: null, name: 'Acme', stage: 'closing', asset_class: 'equity' } });
    const invalid = await call(emulator, 'POST', '/svc/crm/deals?ephemeral=true', { json: { name: 'Acme', stage: 'closing' } });
    expect(invalid.status).toBe(422);
    // Nothing was stored: a transaction cannot reference deal 1, and the next real deal is id 1.
    expect((await call(emulator, 'POST', '/svc/transactions', { json: { name: 'T', deal_id: 1 } })).status).toBe(404);
    const real = await call(emulator, 'POST', '/svc/crm/deals', { json: { name: 'Acme', stage: 'closing', asset_class: 'equity' } });
    expect(real.body.data.id).toBe(1);
  });

  it.each([
    ['/svc/crm/deals', { stage: 'sourcing', asset_class: 'equity' }, 'name'],
    ['/svc/crm/deals', { name: 'A', stage: 7, asset_class: 'equity' }, 'stage'],
    ['/svc/crm/deals', { name: 'A', stage: 'sourcing' }, 'asset_class'],
    ['/rooms', { name: '', room_type: 'company_investment' }, 'name'],
    ['/rooms', { name: 'R' }, 'room_type'],
    ['/svc/transactions', { deal_id: 1 }, 'name'],
    ['/svc/transactions', { name: 'T', deal_id: '1' }, 'deal_id'],
    ['/webhooks/', { name: 'n', event_types: null }, 'url'],
    ['/webhooks/', { url: 'ftp://x.test', name: 'n', event_types: null }, 'url'],
    ['/webhooks/', { url: 'https://x.test', event_types: null }, 'name'],
    ['/webhooks/', { url: 'https://x.test', name: 'n' }, 'event_types'],
    ['/webhooks/', { url: 'https://x.test', name: 'n', event_types: [1] }, 'event_types'],
  ])('POST %s with %j answers 422 naming %s', async (path, json, field) => {
    const { status, body } = await call(createEmulator(), 'POST', path, { json });
    expect(status).toBe(422);
    expect(body).toEqual({ error: expect.stringMatching(new RegExp(`^${field} `)), field });
  });

  it('answers 422 for a body that is not JSON', async () => {
    const { status, body } = await call(createEmulator(), 'POST', '/rooms', { body: 'name=x', contentType: 'application/json' });
    expect(status).toBe(422);
    expect(body.field).toBe('body');
  });

  it('joins a deal to a room through transactions: create, PATCH linked_room_id, GET ?deal_id=', async () => {
    const emulator = createEmulator();
    const { dealId, roomId } = await seed(emulator);
    const other = (await call(emulator, 'POST', '/svc/crm/deals', { json: { name: 'B', stage: 'sourcing', asset_class: 'equity' } })).body.data;
    const tx = (await call(emulator, 'POST', '/svc/transactions', { json: { name: 'Close', deal_id: dealId } })).body.data;
    expect(tx).toEqual({ id: 1, name: 'Close', deal_id: dealId, linked_room_id: null });
    await call(emulator, 'POST', '/svc/transactions', { json: { name: 'Other', deal_id: other.id } });
    const patched = await call(emulator, 'PATCH', `/svc/transactions/${tx.id}`, { json: { linked_room_id: roomId } });
    expect(patched.body).toEqual({ success: true, data: { id: tx.id, name: 'Close', deal_id: dealId, linked_room_id: roomId } });
    const list = await call(emulator, 'GET', `/svc/transactions?deal_id=${dealId}`);
    expect(list.body).toEqual({ success: true, data: [{ id: tx.id, name: 'Close', deal_id: dealId, linked_room_id: roomId }] });
    expect((await call(emulator, 'GET', '/svc/transactions?deal_id=abc')).status).toBe(422);
  });

  it('answers 404 for unknown deals, transactions and rooms', async () => {
    const emulator = createEmulator();
    const { dealId } = await seed(emulator);
    const missingDeal = await call(emulator, 'POST', '/svc/transactions', { json: { name: 'T', deal_id: 99 } });
    expect(missingDeal).toEqual({ status: 404, body: { error: expect.stringMatching(/deal 99 not found/), field: 'deal_id' } });
    expect((await call(emulator, 'PATCH', '/svc/transactions/42', { json: { linked_room_id: 1 } })).status).toBe(404);
    const tx = (await call(emulator, 'POST', '/svc/transactions', { json: { name: 'T', deal_id: dealId } })).body.data;
    const missingRoom = await call(emulator, 'PATCH', `/svc/transactions/${tx.id}`, { json: { linked_room_id: 77 } });
    expect(missingRoom.status).toBe(404);
    expect(missingRoom.body.field).toBe('linked_room_id');
    expect((await call(emulator, 'POST', '/rooms/77/documents', { body: fileForm('x', 'a.txt') })).status).toBe(404);
    expect((await call(emulator, 'POST', '/rooms/77/search', { json: { query: 'x' } })).status).toBe(404);
    expect((await call(emulator, 'GET', '/webhooks/5/')).status).toBe(404);
  });
});

describe('createEmulator(): documents and search', () => {
  it('stores an upload from the multipart part named file and answers { id, original_filename }', async () => {
    const emulator = createEmulator();
    const { roomId } = await seed(emulator);
    const { status, body } = await call(emulator, 'POST', `/rooms/${roomId}/documents`, { body: fileForm('hello', 'memo.txt') });
    expect(status).toBe(201);
    expect(body).toMatchObject({ success: true, data: { id: 1, original_filename: 'memo.txt' } });
    const wrongPart = new FormData();
    wrongPart.append('document', new Blob(['x']), 'x.txt');
    const rejected = await call(emulator, 'POST', `/rooms/${roomId}/documents`, { body: wrongPart });
    expect(rejected).toEqual({ status: 422, body: { error: expect.stringMatching(/^file is required/), field: 'file' } });
  });

  it('answers search with passages of the room\'s text documents, best first, with citations', async () => {
    const emulator = createEmulator();
    const { roomId } = await seed(emulator);
    const otherRoom = (await call(emulator, 'POST', '/rooms', { json: { name: 'Other', room_type: 'x' } })).body.data.id;
    const memo = 'Acme grew revenue threefold in 2025.\n\nThe main risk is customer concentration in two buyers. Closing is planned for March.';
    const doc = (await call(emulator, 'POST', `/rooms/${roomId}/documents`, { body: fileForm(memo, 'memo.txt') })).body.data;
    await call(emulator, 'POST', `/rooms/${roomId}/documents`, { body: fileForm('\u0000\u0001binary risk', 'blob.bin', 'application/octet-stream') });
    await call(emulator, 'POST', `/rooms/${otherRoom}/documents`, { body: fileForm('Another risk lives here.', 'other.txt') });

    const { status, body } = await call(emulator, 'POST', `/rooms/${roomId}/search`, { json: { query: 'main risk' } });
    expect(status).toBe(200);
    const { answer, citations } = body.data;
    expect(citations[0]).toEqual({ document_id: doc.id, filename: 'memo.txt', passage: expect.stringContaining('customer concentration'), score: expect.any(Number) });
    expect(citations.every((c: { filename: string }) => c.filename === 'memo.txt')).toBe(true); // not the binary, not the other room
    expect(answer).toContain('customer concentration');

    const none = await call(emulator, 'POST', `/rooms/${roomId}/search`, { json: { query: 'zebra' } });
    expect(none.body.data).toMatchObject({ answer: null, citations: [] });
    expect((await call(emulator, 'POST', `/rooms/${roomId}/search`, { json: {} })).body.field).toBe('query');
  });
});

describe('createEmulator(): webhook registrations', () => {
  const registration = { url: 'https://receiver.test/hook', name: 'main', event_types: ['document.uploaded'] };

  it('create answers { id, secret, event_types } without envelope; list and retrieve never show the secret', async () => {
    const emulator = createEmulator();
    const created = await call(emulator, 'POST', '/webhooks/', { json: registration });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ id: 1, secret: expect.stringMatching(/^whsec_[0-9a-f]{64}$/), event_types: ['document.uploaded'] });
    expect(created.body.success).toBeUndefined();
    const view = { id: 1, url: registration.url, name: 'main', event_types: ['document.uploaded'], failure_count: 0 };
    expect((await call(emulator, 'GET', '/webhooks/')).body).toEqual({ success: true, data: [view] });
    expect((await call(emulator, 'GET', '/webhooks/1/')).body).toEqual({ success: true, data: view });
    expect(JSON.stringify((await call(emulator, 'GET', '/webhooks/')).body)).not.toContain(created.body.secret);
  });

  it('rotate-secret answers a new secret; update and delete work', async () => {
    const emulator = createEmulator();
    const { secret } = (await call(emulator, 'POST', '/webhooks/', { json: registration })).body;
    const rotated = await call(emulator, 'POST', '/webhooks/1/rotate-secret/');
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(secret);
    const updated = await call(emulator, 'PATCH', '/webhooks/1/', { json: { name: 'renamed', event_types: null } });
    expect(updated.body.data).toMatchObject({ name: 'renamed', event_types: null });
    expect((await call(emulator, 'PATCH', '/webhooks/1/', { json: { url: 'nope' } })).body.field).toBe('url');
    expect((await call(emulator, 'DELETE', '/webhooks/1/')).status).toBe(204);
    expect((await call(emulator, 'GET', '/webhooks/1/')).status).toBe(404);
  });

  it('scopes registrations per API key', async () => {
    const emulator = createEmulator();
    await call(emulator, 'POST', '/webhooks/', { json: registration, key: KEY });
    expect((await call(emulator, 'GET', '/webhooks/', { key: OTHER_KEY })).body.data).toEqual([]);
    for (const [method, path] of [['GET', '/webhooks/1/'], ['PATCH', '/webhooks/1/'], ['DELETE', '/webhooks/1/'], ['POST', '/webhooks/1/rotate-secret/'], ['POST', '/webhooks/1/ping/']] as const) {
      const { status } = await call(emulator, method, path, { key: OTHER_KEY, json: method === 'PATCH' ? { name: 'x' } : undefined });
      expect(status, `${method} ${path}`).toBe(404);
    }
    expect((await call(emulator, 'GET', '/webhooks/', { key: KEY })).body.data).toHaveLength(1);
  });

  it('reset() forgets every record', async () => {
    const emulator = createEmulator();
    await seed(emulator);
    emulator.reset();
    expect((await call(emulator, 'POST', '/rooms/1/search', { json: { query: 'x' } })).status).toBe(404);
    expect((await call(emulator, 'POST', '/rooms', { json: { name: 'R', room_type: 'x' } })).body.data.id).toBe(1);
  });
});
