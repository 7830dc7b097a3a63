import { describe, expectTypeOf, it } from 'vitest';
import type {
  APIPromise,
  Client,
  Deal,
  DealPreview,
  DealStage,
  ListOptions,
  Logger,
  LogLevel,
  PagePromise,
  RateLimitInfo,
  Room,
  Transaction,
  WebhookCreated,
  WebhookEndpoint,
  WithResponse,
} from '../../src/index.node.js';

declare const client: Client;
const params = { name: 'Acme', stage: 'sourcing', asset_class: 'equity' } as const;

describe('types', () => {
  it('deals.create returns a Deal with a numeric id', () => {
    expectTypeOf(client.deals.create(params)).resolves.toEqualTypeOf<Deal>();
    expectTypeOf<Deal['id']>().toEqualTypeOf<number>();
  });

  it('deals.create with { ephemeral: true } returns a DealPreview whose id is null', () => {
    expectTypeOf(client.deals.create(params, { ephemeral: true })).resolves.toEqualTypeOf<DealPreview>();
    expectTypeOf<DealPreview['id']>().toEqualTypeOf<null>();
  });

  it('deals.create with { ephemeral: false } or a boolean variable returns the matching types', () => {
    expectTypeOf(client.deals.create(params, { ephemeral: false })).resolves.toEqualTypeOf<Deal>();
    const flag = Math.random() > 0.5;
    expectTypeOf(client.deals.create(params, { ephemeral: flag })).resolves.toEqualTypeOf<Deal | DealPreview>();
  });

  it('stage is an open enum: the known values autocomplete, any string is accepted', () => {
    expectTypeOf<'sourcing'>().toExtend<DealStage>();
    expectTypeOf<'closing'>().toExtend<DealStage>();
    expectTypeOf<'diligence'>().toExtend<DealStage>();
    expectTypeOf<Deal['stage']>().toEqualTypeOf<'sourcing' | 'closing' | (string & {})>();
    // @ts-expect-error a stage must be a string
    void client.deals.create({ name: 'A', stage: 1, asset_class: 'equity' });
  });

  it('resources keep fields the spec does not name, typed unknown', () => {
    expectTypeOf<Room['owner']>().toEqualTypeOf<unknown>();
    expectTypeOf<Transaction['linked_room_id']>().toEqualTypeOf<number | null | undefined>();
  });

  it('webhooks.create returns the secret and event types', () => {
    expectTypeOf<WebhookCreated['secret']>().toEqualTypeOf<string>();
    // @ts-expect-error event_types is required (an array, or null for all kinds)
    void client.webhooks.create({ url: 'https://x.test', name: 'n' });
  });

  it('deals.linkedRoomIds returns room ids', () => {
    expectTypeOf(client.deals.linkedRoomIds(1)).resolves.toEqualTypeOf<number[]>();
  });

  it('every method returns an APIPromise: awaited it is the data, withResponse() and asResponse() are typed', () => {
    expectTypeOf(client.rooms.create({ name: 'r', room_type: 'x' })).toEqualTypeOf<APIPromise<Room>>();
    expectTypeOf(client.rooms.create({ name: 'r', room_type: 'x' }).withResponse()).resolves.toEqualTypeOf<WithResponse<Room>>();
    expectTypeOf<WithResponse<Room>>().toEqualTypeOf<{ data: Room; response: Response; requestId: string | undefined; rateLimit: RateLimitInfo | undefined }>();
    expectTypeOf(client.webhooks.delete(1).asResponse()).resolves.toEqualTypeOf<Response>();
    expectTypeOf(client.deals.create(params, { ephemeral: true }).withResponse()).resolves.toEqualTypeOf<WithResponse<DealPreview>>();
    expectTypeOf(client.request<{ ok: boolean }>({ method: 'GET', path: '/status' })).resolves.toEqualTypeOf<{ ok: boolean }>();
  });

  it('a list is a PagePromise: awaited, every item; iterated, one item at a time', async () => {
    const list = client.transactions.list({ deal_id: 1 }, { maxPages: 10 });
    expectTypeOf(list).toEqualTypeOf<PagePromise<Transaction>>();
    expectTypeOf(list).resolves.toEqualTypeOf<Transaction[]>();
    for await (const tx of list) expectTypeOf(tx).toEqualTypeOf<Transaction>();
    expectTypeOf(client.webhooks.list()).resolves.toEqualTypeOf<WebhookEndpoint[]>();
    expectTypeOf<ListOptions['maxPages']>().toEqualTypeOf<number | undefined>();
  });

  it('logLevel and logger are typed options of the client', () => {
    expectTypeOf<LogLevel>().toEqualTypeOf<'debug' | 'info' | 'warn' | 'error' | 'off'>();
    expectTypeOf(console).toExtend<Logger>();
    // @ts-expect-error 'verbose' is not a level
    void new (class extends (Object as unknown as typeof Client) {})({ logLevel: 'verbose' });
  });
});
