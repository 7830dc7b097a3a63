import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/http.js';
import { operations } from '../operations.js';
import type { Room, RoomCreateParams } from '../schemas/rooms.js';
import { Resource } from './resource.js';

/** Data rooms (VDR), where counterparties share documents. */
export class Rooms extends Resource {
  /**
   * Creates a data room.
   *
   * @param params The room: its `name` and `room_type`.
   * @param options Per-call overrides of the client's settings: `signal`, `timeout`, `maxRetries`, `headers`, `hooks`.
   *
   * @example
   * ```ts
   * const room = await client.rooms.create({ name: 'Acme data room', room_type: 'company_investment' });
   * ```
   */
  create(params: RoomCreateParams, options?: RequestOptions): APIPromise<Room> {
    return this.core.call(operations['rooms.create'], { params }, options);
  }
}
