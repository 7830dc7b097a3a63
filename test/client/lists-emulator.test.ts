import { describe, expect, it } from 'vitest';
import { Client } from '../../src/index.node.js';
import { createEmulator } from '../../src/testing/index.js';

// End to end against the emulator paginating every list (`pageSize`): transactions link pages with
// absolute `next` URLs inside the envelope, webhooks with relative ones in a bare page.
describe('lists against the paginating emulator', () => {
  async function setup(pageSize: number) {
    const emulator = createEmulator({ pageSize });
    const seen: string[] = [];
    const client = new Client({
      apiKey: 'vdr_test',
      baseUrl: 'https://svc.test',
      fetch: (input, init) => {
        seen.push(String(input));
        return emulator.fetch(input, init);
      },
    });
    return { emulator, client, seen };
  }

  it('transactions.list and deals.linkedRoomIds read all 7 transactions from 3 pages of 3', async () => {
    const { emulator, client, seen } = await setup(3);
    try {
      const deal = await client.deals.create({ name: 'Acme', stage: 'sourcing', asset_class: 'equity' });
      const room = await client.rooms.create({ name: 'VDR', room_type: 'company_investment' });
      const created: number[] = [];
      for (let index = 0; index < 7; index++) created.push((await client.transactions.create({ name: `T${index}`, deal_id: deal.id })).id);
      await client.transactions.update(created[6]!, { linked_room_id: room.id });
      seen.length = 0;
      expect((await client.transactions.list({ deal_id: deal.id })).map((tx) => tx.id)).toEqual(created);
      expect(seen).toHaveLength(3);
      expect(await client.deals.linkedRoomIds(deal.id)).toEqual([room.id]);
      seen.length = 0;
      const iterated: number[] = [];
      for await (const tx of client.transactions.list({ deal_id: deal.id })) {
        iterated.push(tx.id);
        if (iterated.length === 4) break;
      }
      expect(iterated).toEqual(created.slice(0, 4));
      expect(seen).toHaveLength(2);
    } finally {
      await emulator.close();
    }
  });

  it('webhooks.list reads all 5 endpoints from 3 pages of 2 (relative next links)', async () => {
    const { emulator, client, seen } = await setup(2);
    try {
      for (const name of ['a', 'b', 'c', 'd', 'e']) await client.webhooks.create({ url: `https://example.com/${name}`, name, event_types: null });
      seen.length = 0;
      expect((await client.webhooks.list()).map((endpoint) => endpoint.name)).toEqual(['a', 'b', 'c', 'd', 'e']);
      expect(seen).toHaveLength(3);
    } finally {
      await emulator.close();
    }
  });
});
