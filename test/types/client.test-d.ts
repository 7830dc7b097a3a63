import { describe, expectTypeOf, it } from 'vitest';
import type { Client, Deal, DealPreview, DealStage, Room, Transaction, WebhookCreated } from '../../src/index.node.js';

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
});
