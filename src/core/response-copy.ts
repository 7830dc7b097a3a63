// The Response `asResponse()` and `withResponse()` hand out: a copy of the answer over the bytes the
// call read. Loaded by api-promise.ts with the first such call.
import type { Exchange } from './types.js';

/** Bytes per slice of a copied body: large enough that a read costs few steps, small beside any large answer. */
const SLICE_BYTES = 1 << 20;

/**
 * A stream of `bytes` in slices, each a view made when the reader asks for it. A reader that writes
 * into a chunk it was handed writes into the call's bytes (later reads of the same call see it): the
 * price of not copying a large answer, and only a reader of raw chunks can pay it.
 */
function sliced(bytes: Uint8Array): ReadableStream<Uint8Array> {
  let at = 0;
  return new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        const end = Math.min(at + SLICE_BYTES, bytes.byteLength);
        controller.enqueue(bytes.subarray(at, end));
        at = end;
        if (at === bytes.byteLength) controller.close();
      },
    },
    { highWaterMark: 0 },
  );
}

/**
 * A fresh Response holding the exchange's bytes, unread, with the original status, URL and headers,
 * but headers that describe these bytes: fetch has undone any `Content-Encoding`, so it and the
 * wire's `Content-Length` (and `Transfer-Encoding`) would lie about the body.
 */
export function copyResponse({ response, bytes, url }: Exchange): Response {
  const { status, statusText } = response;
  const headers = new Headers(response.headers);
  headers.delete('content-encoding');
  headers.delete('transfer-encoding');
  // Statuses whose Response may not have a body (the Response constructor throws otherwise).
  const nullBody = status === 204 || status === 205 || status === 304;
  if (nullBody) headers.delete('content-length');
  else headers.set('content-length', String(bytes.byteLength));
  // No bytes, no body (null, as fetch gives it). Not `new Response(bytes)`: the constructor copies
  // them whole (Fetch, "extract a body"), and a reader's arrayBuffer() copies again, so a 50 MB
  // answer would be held three times. A stream hands the bytes out in slices as they are read, each a
  // view of the bytes (no copy): a reader's arrayBuffer() then holds the answer a second time, never a third.
  const copy = new Response(nullBody || bytes.byteLength === 0 ? null : sliced(bytes), { status, statusText, headers });
  Object.defineProperty(copy, 'url', { value: response.url || url });
  return copy;
}
