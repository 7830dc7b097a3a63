import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/http.js';
import { RoomCreateParamsSchema, RoomSchema, type Room, type RoomCreateParams } from '../schemas/rooms.js';
import { Resource } from './resource.js';

/** Data rooms (VDR), where counterparties share documents. */
export class Rooms extends Resource {
  /**
   * Creates a data room.
   *
   * @example
   * ```ts
   * const room = await client.rooms.create({ name: 'Acme data room', room_type: 'company_investment' });
   * ```
   */
  create(params: RoomCreateParams, options?: RequestOptions): APIPromise<Room> {
    return this.core.call('rooms.create', options, (parse) => ({
      method: 'POST',
      path: '/rooms',
      json: parse(RoomCreateParamsSchema, params),
      schema: RoomSchema,
    }));
  }
}
