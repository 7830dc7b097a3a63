import * as z from 'zod/mini';
import { openEnum, openEnumOut, requiredString } from './common.js';

/** Room types the spec names; others are accepted. */
export type RoomType = 'company_investment' | (string & {});

/** Body of `rooms.create`; extra fields are sent as given. */
export const RoomCreateParamsSchema = z.looseObject({
  name: requiredString('name', 'the room name'),
  room_type: openEnum('room_type', ['company_investment']),
});

/** A data room as the service returns it; fields the spec does not name are kept. */
export const RoomSchema = z.looseObject({
  id: z.number(),
  name: z.string(),
  room_type: z.optional(openEnumOut<'company_investment'>()),
});

/** Body of `rooms.create`. */
export interface RoomCreateParams {
  /** The room's name, such as `'Acme data room'`. */
  name: string;
  /** The kind of room: `'company_investment'`, or another type the service accepts. */
  room_type: RoomType;
}
/** A VDR room in which counterparties share documents. */
export interface Room {
  /** A field the spec does not name, kept as the service sent it. */
  [field: string]: unknown;
  /** The room's id, for uploads, search and `transactions.update({ linked_room_id })`. */
  id: number;
  /** The room's name. */
  name: string;
  /** The kind of room, such as `'company_investment'`. */
  room_type?: RoomType | undefined;
}
