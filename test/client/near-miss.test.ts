// A params key that is a near miss of a known field (case, or one or two letters off) is refused
// before sending with "did you mean"; any other unknown key is still sent as given.
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { Client, ValidationError } from '../../src/index.node.js';
import { API_KEY, BASE_URL, recordRequests, useMockService } from '../support/msw.js';

const server = useMockService();
const sent = recordRequests(server);
const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0 });

/** Params as a user's JavaScript (or a cast) passes them: the types would refuse these keys. */
const loose = <T>(params: Record<string, unknown>) => params as T;

describe('a near miss of a known field is refused before sending', () => {
  it.each([
    ['transactions.create', () => client.transactions.create(loose({ name: 'T', deal_Id: 1 })), 'deal_Id is not a field the SDK knows: did you mean `deal_id`?'],
    ['transactions.list', () => client.transactions.list(loose({ dealid: 1 })), 'dealid is not a field the SDK knows: did you mean `deal_id`?'],
    ['webhooks.update (swapped letters)', () => client.webhooks.update(1, loose({ nmae: 'n', evnet_types: null })), 'nmae is not a field the SDK knows: did you mean `name`?; evnet_types is not a field the SDK knows: did you mean `event_types`?'],
    ['webhooks.create (two letters off)', () => client.webhooks.create(loose({ url: 'https://x.test/h', name: 'n', evnt_type: null })), 'evnt_type is not a field the SDK knows: did you mean `event_types`?'],
    ['rooms.create (case)', () => client.rooms.create(loose({ Name: 'R', room_type: 'company_investment' })), 'Name is not a field the SDK knows: did you mean `name`?'],
    ['search.query (one letter missing)', () => client.search.query(1, loose({ qery: 'q' })), 'qery is not a field the SDK knows: did you mean `query`?'],
    ['deals.create (one letter extra)', () => client.deals.create(loose({ name: 'D', stage: 'sourcing', asset_classs: 'equity' })), 'asset_classs is not a field the SDK knows: did you mean `asset_class`?'],
  ])('%s', async (operation, call, message) => {
    const error = await call().then(
      () => undefined,
      (thrown: unknown) => thrown,
    );
    expect(error).toBeInstanceOf(ValidationError);
    expect((error as Error).message).toBe(`[svc-sdk] ${operation.split(' ')[0]}: ${message}. Nothing was sent.`);
    expect(sent).toEqual([]);
  });
});

it('two letters off a field of five letters is not a near miss: the missing field is reported instead', async () => {
  const error = await client.search.query(1, loose({ qry: 'q' })).then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect((error as Error).message).toBe('[svc-sdk] search.query: query is required: pass the question to ask as a string. Nothing was sent.');
});

/** The message of the ValidationError `call` rejects with. */
async function refusal(call: () => Promise<unknown>): Promise<ValidationError> {
  const error = await call().then(
    () => undefined,
    (thrown: unknown) => thrown,
  );
  expect(error).toBeInstanceOf(ValidationError);
  return error as ValidationError;
}

describe('the edit distance at its edges', () => {
  it.each([
    // Keys whose distance to the field is past the bound once every edit is counted: the missing field is reported.
    ['transactions.create', () => client.transactions.create(loose({ name: 'T', vazl_id: 1 })), 'deal_id must be an integer id, as the service returned it'],
    ['rooms.create', () => client.rooms.create(loose({ bnme: 'R', room_type: 'company_investment' })), 'name is required: pass the room name as a string'],
    ['transactions.update', () => client.transactions.update(1, loose({ in_ed_roomb_id: 2 })), 'linked_room_id must be an integer id, as the service returned it'],
    // One letter inserted inside a long field: a near miss.
    ['webhooks.update', () => client.webhooks.update(1, loose({ eventn_types: null })), 'eventn_types is not a field the SDK knows: did you mean `event_types`?'],
  ])('%s %#', async (operation, call, message) => {
    expect((await refusal(call)).message).toBe(`[svc-sdk] ${operation}: ${message}. Nothing was sent.`);
  });

  it('names the misspelt key as the issue\'s path', async () => {
    const error = await refusal(() => client.transactions.create(loose({ name: 'T', deal_Id: 1 })));
    expect(error.issues).toEqual([{ path: ['deal_Id'], message: 'deal_Id is not a field the SDK knows: did you mean `deal_id`?' }]);
  });

  it('an object where the schema takes no object (an id) is refused by the schema, not a TypeError', async () => {
    expect((await refusal(() => client.deals.linkedRoomIds({ id: 1 } as never))).message).toBe(
      '[svc-sdk] deals.linkedRoomIds: dealId must be an integer id, as the service returned it. Nothing was sent.',
    );
  });

  it('params that are not an object are refused by the schema, not a TypeError', async () => {
    expect((await refusal(() => client.transactions.create(null as never))).message).toMatch(/^\[svc-sdk\] transactions\.create: /);
  });
});

describe('other unknown keys still pass through', () => {
  it.each([
    // Three letters off a five-letter field, two off a short one, or the field it resembles is given too.
    [{ name: 'R', room_type: 'company_investment', region: 'eu' }],
    [{ name: 'R', room_type: 'company_investment', label: 'x' }],
    [{ name: 'R', room_type: 'company_investment', Name: 'also sent' }],
    [{ name: 'R', room_type: 'company_investment', room_types: ['a'] }],
    [{ name: 'R', room_type: 'company_investment', id: 7 }],
  ])('%j is sent as given', async (params) => {
    server.use(http.post(`${BASE_URL}/api/v1/rooms`, () => HttpResponse.json({ success: true, data: { id: 1, name: 'R' } })));
    await client.rooms.create(loose(params));
    expect(await sent.at(-1)!.json()).toEqual(params);
  });

  it('a key three edits from a long field, or two from a short one, is not a typo', async () => {
    server.use(http.patch(`${BASE_URL}/api/v1/webhooks/1/`, () => HttpResponse.json({ success: true, data: { id: 1 } })));
    await client.webhooks.update(1, loose({ evnt_tipe: ['x'], nm: 'two letters off name' }));
    expect(await sent.at(-1)!.json()).toEqual({ evnt_tipe: ['x'], nm: 'two letters off name' });
  });
});
