import { createHmac } from 'node:crypto';
import type { Emulator } from '../../src/testing/index.js';

/** The key most tests call the emulator with. */
export const KEY = 'vdr_test_alpha';
/** A second client, for scoping tests. */
export const OTHER_KEY = 'vdr_test_beta';
/** Any origin works: the handlers match `/api/v1/...` everywhere. */
export const ORIGIN = 'https://svc.test';

/** Calls the emulator's fetch handler like a client would; returns the status and the parsed body. */
export async function call(
  emulator: Emulator,
  method: string,
  path: string,
  { key = KEY, json, body, contentType }: { key?: string | null; json?: unknown; body?: BodyInit; contentType?: string } = {},
  // The body is read freely in tests and every use is checked by an expect(): `any` keeps them short.
  // eslint-disable-next-line @typescript-eslint/no-explicit-any
): Promise<{ status: number; body: any }> {
  const headers = new Headers();
  if (key !== null) headers.set('authorization', `Bearer ${key}`);
  if (json !== undefined) headers.set('content-type', 'application/json');
  if (contentType !== undefined) headers.set('content-type', contentType);
  const response = await emulator.fetch(
    new Request(`${ORIGIN}/api/v1${path}`, { method, headers, body: json !== undefined ? JSON.stringify(json) : body }),
  );
  const text = await response.text();
  return { status: response.status, body: text ? JSON.parse(text) : undefined };
}

/** The signature header value computed independently of the SDK, with node:crypto. */
export function expectedSignature(body: string, secret: string): string {
  return `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
}

/** A multipart body with one part named `file`. */
export function fileForm(text: string, filename: string, type = 'text/plain'): FormData {
  const form = new FormData();
  form.append('file', new Blob([text], { type }), filename);
  return form;
}

/** Creates a deal, a room and a transaction linked to it; returns their ids. */
export async function seed(emulator: Emulator, key = KEY) {
  const deal = (await call(emulator, 'POST', '/svc/crm/deals', { key, json: { name: 'Acme', stage: 'sourcing', asset_class: 'equity' } })).body.data;
  const room = (await call(emulator, 'POST', '/rooms', { key, json: { name: 'Acme VDR', room_type: 'company_investment' } })).body.data;
  return { dealId: deal.id as number, roomId: room.id as number };
}
