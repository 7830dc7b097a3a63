import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { APIError, Client, ResponseValidationError } from '../../src/index.node.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';

// Answers of unexpected shapes, which mutation testing found unguarded: list bodies that are neither
// an array nor a page, a page whose `next` is not a link, fields of the wrong type deep in an
// answer, and error bodies that are text or nested deeper than any real answer.

const server = useMockService();
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'off' });
const TRANSACTIONS = `${BASE_URL}/api/v1/svc/transactions`;

async function rejection(promise: Promise<unknown>): Promise<unknown> {
  return promise.then(
    () => {
      throw new Error('expected the call to fail');
    },
    (caught: unknown) => caught,
  );
}

describe('a list answered with something that is not a list', () => {
  it.each([
    ['a string', 'not a list'],
    ['a number', 42],
    ['null', null],
  ])('data that is %s is a ResponseValidationError, not a TypeError', async (_, data) => {
    server.use(http.get(TRANSACTIONS, () => HttpResponse.json({ success: true, data })));
    const error = await rejection(client.transactions.list({ deal_id: 1 }));
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect((error as Error).message).toMatch(/^\[svc-sdk\] transactions\.list: unexpected response from the service: /);
  });

  it.each([
    ['a number', 5],
    ['an object', { href: '/page/2' }],
  ])('a page whose next is %s names the field next', async (_, next) => {
    const data = { count: 2, next, previous: null, results: [{ id: 1 }] };
    server.use(http.get(TRANSACTIONS, () => HttpResponse.json({ success: true, data })));
    const error = (await rejection(client.transactions.list({ deal_id: 1 }))) as ResponseValidationError;
    expect(error).toBeInstanceOf(ResponseValidationError);
    expect(error.issues).toEqual([{ path: ['next'], message: 'next must be a URL or null' }]);
    expect(error.message).toBe('[svc-sdk] transactions.list: unexpected response from the service: next must be a URL or null');
  });

  it('a next page on another origin is refused, naming the field next', async () => {
    const data = { count: 2, next: 'https://elsewhere.test/api/v1/svc/transactions?page=2', previous: null, results: [{ id: 1 }] };
    server.use(http.get(TRANSACTIONS, () => HttpResponse.json({ success: true, data })));
    const error = (await rejection(client.transactions.list({ deal_id: 1 }))) as ResponseValidationError;
    expect(error.issues.map((issue) => issue.path)).toEqual([['next']]);
  });
});

describe('fields of the wrong type', () => {
  it('a number field sent as a string says which type was expected', async () => {
    server.use(http.get(TRANSACTIONS, () => HttpResponse.json({ success: true, data: [{ id: 'seven' }] })));
    const error = (await rejection(client.transactions.list({ deal_id: 1 }))) as ResponseValidationError;
    expect(error.message).toBe('[svc-sdk] transactions.list: unexpected response from the service: 0.id: expected number');
  });

  it('a field deep in the answer is named by its dotted path', async () => {
    const data = { answer: 'Yes.', citations: [{ document_id: 3 }, { document_id: 'four' }] };
    server.use(http.post(`${BASE_URL}/api/v1/rooms/5/search`, () => HttpResponse.json({ success: true, data })));
    const error = (await rejection(client.search.query(5, { query: 'risk?' }))) as ResponseValidationError;
    expect(error.message).toBe('[svc-sdk] search.query: unexpected response from the service: citations.1.document_id: expected number');
  });
});

describe('error bodies that are text, long, or deeply nested', () => {
  it('a long text error body is described by its type and length, never quoted; body keeps all of it', async () => {
    const text = `${'upstream failure; '.repeat(30)}end`;
    server.use(http.get(TRANSACTIONS, () => new HttpResponse(text, { status: 502, headers: { 'content-type': 'text/plain' } })));
    const error = (await rejection(client.transactions.list({ deal_id: 1 }))) as APIError;
    expect(error.body).toBe(text);
    expect(error.message).toBe(`GET /api/v1/svc/transactions?deal_id=1 failed with 502: text/plain answer of ${text.length} bytes (kept whole on error.body)`);
  });

  it('a "secret" in a text (not JSON) error body is redacted', async () => {
    const text = 'bad gateway: {"id":3,"secret":"whsec_leaked_in_text"';
    server.use(http.get(TRANSACTIONS, () => new HttpResponse(text, { status: 502, headers: { 'content-type': 'text/plain' } })));
    const error = (await rejection(client.transactions.list({ deal_id: 1 }))) as APIError;
    expect(error.body).toBe('bad gateway: {"id":3,"secret":"[redacted]"');
    expect(error.message).not.toContain('whsec_leaked_in_text');
  });

  it('an error body nested deeper than 16 levels is cut there ([redacted]), shallower levels are kept', async () => {
    let nested: unknown = { secret: 'whsec_deep', leaf: true };
    for (let level = 0; level < 20; level++) nested = { level: nested };
    server.use(http.get(TRANSACTIONS, () => HttpResponse.json({ error: 'deep', detail: nested }, { status: 500 })));
    const error = (await rejection(client.transactions.list({ deal_id: 1 }))) as APIError;
    let cursor = (error.body as { detail: unknown }).detail;
    let depth = 1; // `detail` sits one level below the body
    while (typeof cursor === 'object' && cursor !== null && 'level' in cursor) {
      cursor = (cursor as { level: unknown }).level;
      depth++;
    }
    expect(cursor).toBe('[redacted]');
    expect(depth).toBe(17);
    expect(JSON.stringify(error.body)).not.toContain('whsec_deep');
  });

  it('nesting through arrays counts the same: cut at 16 levels', async () => {
    let nested: unknown = [{ secret: 'whsec_deep_array' }];
    for (let level = 0; level < 20; level++) nested = [nested];
    server.use(http.get(TRANSACTIONS, () => HttpResponse.json({ error: 'deep', detail: nested }, { status: 500 })));
    const error = (await rejection(client.transactions.list({ deal_id: 1 }))) as APIError;
    let cursor = (error.body as { detail: unknown }).detail;
    let depth = 1;
    while (Array.isArray(cursor)) {
      cursor = cursor[0];
      depth++;
    }
    expect(cursor).toBe('[redacted]');
    expect(depth).toBe(17);
  });

  it('a list of error details is redacted item by item', async () => {
    const body = { error: 'conflict', endpoints: [{ id: 1, secret: 'whsec_a' }, { id: 2, nested: [{ secret: 'whsec_b' }] }] };
    server.use(http.get(TRANSACTIONS, () => HttpResponse.json(body, { status: 409 })));
    const error = (await rejection(client.transactions.list({ deal_id: 1 }))) as APIError;
    expect(error.body).toEqual({ error: 'conflict', endpoints: [{ id: 1, secret: '[redacted]' }, { id: 2, nested: [{ secret: '[redacted]' }] }] });
  });
});
