// Params types are exact: a key the SDK does not know is a compile error in an object literal (a
// typo is caught where it is typed); a field the SDK does not know yet is sent by typing it on purpose.
import { describe, expectTypeOf, it } from 'vitest';
import type {
  Client,
  DealCreateParams,
  RoomCreateParams,
  SearchParams,
  TransactionCreateParams,
  TransactionListParams,
  TransactionUpdateParams,
  WebhookCreateParams,
  WebhookUpdateParams,
} from '../../src/index.node.js';

declare const client: Client;

describe('params types are exact', () => {
  it('a misspelt key is a compile error on every params type', () => {
    // @ts-expect-error nmae and evnet_types are not fields of webhooks.update
    void client.webhooks.update(1, { nmae: 'n', evnet_types: null });
    // @ts-expect-error deal_Id is not deal_id
    void client.transactions.create({ name: 'T', deal_Id: 1 });
    // @ts-expect-error dealId is not deal_id
    void client.transactions.list({ dealId: 1 });
    // @ts-expect-error linked_room is not linked_room_id
    void client.transactions.update(1, { linked_room: 2 });
    // @ts-expect-error Name is not name
    void client.rooms.create({ Name: 'R', room_type: 'company_investment' });
    // @ts-expect-error assetClass is not asset_class
    void client.deals.create({ name: 'D', stage: 'sourcing', asset_class: 'equity', assetClass: 'equity' });
    // @ts-expect-error q is not query
    void client.search.query(1, { query: 'q', q: 'q' });
    // @ts-expect-error event_type is not event_types
    void client.webhooks.create({ url: 'https://x.test/h', name: 'n', event_types: null, event_type: 'x' });
  });

  it('no params type has an index signature', () => {
    expectTypeOf<keyof DealCreateParams>().toEqualTypeOf<'name' | 'stage' | 'asset_class'>();
    expectTypeOf<keyof RoomCreateParams>().toEqualTypeOf<'name' | 'room_type'>();
    expectTypeOf<keyof TransactionCreateParams>().toEqualTypeOf<'name' | 'deal_id'>();
    expectTypeOf<keyof TransactionUpdateParams>().toEqualTypeOf<'linked_room_id'>();
    expectTypeOf<keyof TransactionListParams>().toEqualTypeOf<'deal_id'>();
    expectTypeOf<keyof SearchParams>().toEqualTypeOf<'query'>();
    expectTypeOf<keyof WebhookCreateParams>().toEqualTypeOf<'url' | 'name' | 'event_types'>();
    expectTypeOf<keyof WebhookUpdateParams>().toEqualTypeOf<'url' | 'name' | 'event_types'>();
  });

  it('optional fields stay optional', () => {
    expectTypeOf<WebhookUpdateParams>().toEqualTypeOf<{ url?: string | undefined; name?: string | undefined; event_types?: WebhookCreateParams['event_types'] | undefined }>();
  });

  it('a field the SDK does not know yet is sent by typing it on purpose (the README\'s way)', () => {
    const params: RoomCreateParams & { region: string } = { name: 'R', room_type: 'company_investment', region: 'eu' };
    expectTypeOf(client.rooms.create(params)).resolves.toHaveProperty('id');
  });
});
