import * as z from 'zod/mini';
import { openEnum, openEnumOut, requiredString, type KnownFields } from './common.js';

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

/** Body of `rooms.create`. @interface */
export type RoomCreateParams = KnownFields<z.input<typeof RoomCreateParamsSchema>>;
/** A VDR room in which counterparties share documents. @interface */
export type Room = z.output<typeof RoomSchema>;
