import type { RequestOptions } from '../core/http.js';
import { parseParams } from '../core/validate.js';
import { RoomCreateParamsSchema, RoomSchema, type Room, type RoomCreateParams } from '../schemas/rooms.js';
import { Resource } from './resource.js';

/** Data rooms (VDR), where counterparties share documents. */
export class Rooms extends Resource {
  /** Creates a data room. */
  async create(params: RoomCreateParams, options?: RequestOptions): Promise<Room> {
    const json = parseParams('rooms.create', RoomCreateParamsSchema, params);
    return this.core.request({ method: 'POST', path: '/rooms', json, schema: RoomSchema, operation: 'rooms.create' }, options);
  }
}
