import { afterAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/index.node.js';
import { createEmulator, type Emulator } from '../../src/testing/index.js';
import { call, KEY, ORIGIN, OTHER_KEY } from './support.js';

const closers: Array<() => Promise<unknown>> = [];
afterAll(async () => {
  for (const close of closers) await close();
});

/** A deal with `count` transactions, and one transaction of another deal that no page may show. */
async function dealWithTransactions(emulator: Emulator, count: number) {
  const deal = (await call(emulator, 'POST', '/svc/crm/deals', { json: { name: 'Acme', stage: 'sourcing', asset_class: 'equity' } })).body.data;
  const other = (await call(emulator, 'POST', '/svc/crm/deals', { json: { name: 'B', stage: 'sourcing', asset_class: 'equity' } })).body.data;
  await call(emulator, 'POST', '/svc/transactions', { json: { name: 'other', deal_id: other.id } });
  for (let index = 1; index <= count; index += 1) {
    await call(emulator, 'POST', '/svc/transactions', { json: { name: `T${index}`, deal_id: deal.id } });
  }
  return deal.id as number;
}

async function webhooks(emulator: Emulator, count: number, key = KEY) {
  for (let index = 1; index <= count; index += 1) {
    await call(emulator, 'POST', '/webhooks/', { key, json: { url: `https://r.test/${index}`, name: `W${index}`, event_types: null } });
  }
}

describe('createEmulator(): pages of a list', () => {
  it('transactions: ?page_size pages inside the envelope, absolute next/previous links, null at the ends', async () => {
    const emulator = createEmulator();
    const dealId = await dealWithTransactions(emulator, 5);
    const first = await call(emulator, 'GET', `/svc/transactions?deal_id=${dealId}&page_size=2`);
    expect(first.status).toBe(200);
    const url = (page: number) => `${ORIGIN}/api/v1/svc/transactions?deal_id=${dealId}&page_size=2&page=${page}`;
    expect(first.body).toEqual({
      success: true,
      data: { count: 5, next: expect.any(String), previous: null, results: [expect.objectContaining({ name: 'T1' }), expect.objectContaining({ name: 'T2' })] },
    });
    expect(new URL(first.body.data.next).href).toBe(new URL(url(2)).href);
    expect(first.body.data.next.startsWith(`${ORIGIN}/api/v1/svc/transactions?`)).toBe(true);

    // Following next to the end gives every item once, in order.
    const names: string[] = [];
    let next: string | null = first.body.data.next;
    names.push(...first.body.data.results.map((tx: { name: string }) => tx.name));
    let last;
    while (next !== null) {
      last = await call(emulator, 'GET', next.slice(`${ORIGIN}/api/v1`.length));
      names.push(...last.body.data.results.map((tx: { name: string }) => tx.name));
      next = last.body.data.next;
    }
    expect(names).toEqual(['T1', 'T2', 'T3', 'T4', 'T5']);
    expect(last!.body.data).toMatchObject({ count: 5, next: null, results: [expect.objectContaining({ name: 'T5' })] });
    expect(new URL(last!.body.data.previous).searchParams.get('page')).toBe('2');
  });

  it('webhooks: a bare { count, next, previous, results } page with links relative to the origin, scoped per key', async () => {
    const emulator = createEmulator();
    await webhooks(emulator, 3);
    await webhooks(emulator, 2, OTHER_KEY);
    const first = await call(emulator, 'GET', '/webhooks/?page_size=2');
    expect(first.body).toEqual({
      count: 3,
      next: '/api/v1/webhooks/?page_size=2&page=2',
      previous: null,
      results: [expect.objectContaining({ id: 1, name: 'W1' }), expect.objectContaining({ id: 2, name: 'W2' })],
    });
    expect(JSON.stringify(first.body)).not.toContain('whsec_');
    const second = await call(emulator, 'GET', '/webhooks/?page_size=2&page=2');
    expect(second.body).toEqual({ count: 3, next: null, previous: '/api/v1/webhooks/?page_size=2&page=1', results: [expect.objectContaining({ id: 3 })] });
  });

  it('without page_size or page, lists answer as before: the whole list in the envelope', async () => {
    const emulator = createEmulator();
    const dealId = await dealWithTransactions(emulator, 3);
    await webhooks(emulator, 3);
    expect((await call(emulator, 'GET', `/svc/transactions?deal_id=${dealId}`)).body).toEqual({ success: true, data: expect.any(Array) });
    expect((await call(emulator, 'GET', `/svc/transactions?deal_id=${dealId}`)).body.data).toHaveLength(3);
    expect((await call(emulator, 'GET', '/webhooks/')).body.data).toHaveLength(3);
  });

  it('createEmulator({ pageSize }) pages every list, also a request that asks for no page; page_size still wins', async () => {
    const emulator = createEmulator({ pageSize: 2 });
    const dealId = await dealWithTransactions(emulator, 3);
    await webhooks(emulator, 3);
    const transactions = await call(emulator, 'GET', `/svc/transactions?deal_id=${dealId}`);
    expect(transactions.body.data).toMatchObject({ count: 3, previous: null, results: [{ name: 'T1' }, { name: 'T2' }] });
    expect(transactions.body.data.next).toBe(`${ORIGIN}/api/v1/svc/transactions?deal_id=${dealId}&page=2&page_size=2`);
    const hooks = await call(emulator, 'GET', '/webhooks/');
    expect(hooks.body).toMatchObject({ count: 3, next: '/api/v1/webhooks/?page=2&page_size=2' });
    expect((await call(emulator, 'GET', '/webhooks/?page_size=3')).body).toMatchObject({ count: 3, next: null });
  });

  it('an empty list is one page with no links; a page past the last is 404; a bad page or page_size is 422 naming it', async () => {
    const emulator = createEmulator();
    expect((await call(emulator, 'GET', '/webhooks/?page_size=10')).body).toEqual({ count: 0, next: null, previous: null, results: [] });
    await webhooks(emulator, 3);
    expect((await call(emulator, 'GET', '/webhooks/?page=1')).body).toMatchObject({ count: 3, next: null }); // default size 100
    const past = await call(emulator, 'GET', '/webhooks/?page_size=2&page=3');
    expect(past).toEqual({ status: 404, body: { error: 'page 3 does not exist: there are 2 pages of 2', field: 'page' } });
    for (const [query, field] of [['page_size=0', 'page_size'], ['page_size=1001', 'page_size'], ['page_size=2.5', 'page_size'], ['page=0', 'page'], ['page=x', 'page']]) {
      const { status, body } = await call(emulator, 'GET', `/webhooks/?${query}`);
      expect(status, query).toBe(422);
      expect(body.field, query).toBe(field);
    }
  });

  it('over HTTP, next is an absolute URL on the server\'s own origin', async () => {
    const emulator = createEmulator({ pageSize: 1 });
    const { url } = await emulator.listen(0);
    closers.push(() => emulator.close());
    const dealId = await dealWithTransactions(emulator, 2);
    const response = await fetch(`${url}/api/v1/svc/transactions?deal_id=${dealId}`, { headers: { authorization: `Bearer ${KEY}` } });
    const { data } = await response.json();
    expect(data.next).toBe(`${url}/api/v1/svc/transactions?deal_id=${dealId}&page=2&page_size=1`);
    const second = await (await fetch(data.next, { headers: { authorization: `Bearer ${KEY}` } })).json();
    expect(second.data).toMatchObject({ count: 2, next: null, results: [{ name: 'T2' }] });
  });

  it('a Client reads every page of both lists end to end (absolute and relative next), over HTTP and through emulator.fetch', async () => {
    const emulator = createEmulator({ pageSize: 2 });
    const { url } = await emulator.listen(0);
    closers.push(() => emulator.close());
    const dealId = await dealWithTransactions(emulator, 5);
    await webhooks(emulator, 5);
    for (const client of [
      new Client({ apiKey: KEY, baseUrl: url, maxRetries: 0 }),
      new Client({ apiKey: KEY, baseUrl: ORIGIN, fetch: emulator.fetch, maxRetries: 0 }),
    ]) {
      expect((await client.transactions.list({ deal_id: dealId })).map((tx) => tx.name)).toEqual(['T1', 'T2', 'T3', 'T4', 'T5']);
      expect((await client.webhooks.list()).map((webhook) => webhook.name)).toEqual(['W1', 'W2', 'W3', 'W4', 'W5']);
    }
  });
});
