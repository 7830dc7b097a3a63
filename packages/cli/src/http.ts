// What the CLI prints of an HTTP answer: its status, and at most a few KiB of its body.
import { describeFetchFailure, readAtMost } from 'svc-sdk/internal';

/** How much of an answer's body the CLI prints: enough to read an error, never a whole download. */
export const MAX_PRINTED_BYTES = 4096;

/**
 * The first `maxBytes` of a body as text, and whether there was more. Reads no further than that
 * (the library's bounded reader, `partial`: it cancels the stream), so a 300 MB answer costs a few
 * KiB of memory, not 300 MB.
 */
export async function readPreview(body: ReadableStream<Uint8Array> | null, maxBytes = MAX_PRINTED_BYTES): Promise<{ text: string; truncated: boolean }> {
  const bytes = await readAtMost(body, maxBytes, { partial: true });
  const truncated = bytes.byteLength > maxBytes;
  // `stream: true` keeps a character cut at the limit from printing as a replacement mark.
  return { text: new TextDecoder().decode(bytes.subarray(0, maxBytes), { stream: truncated }), truncated };
}

/** A status line: `200 OK`, `503 Service Unavailable`. */
export function statusLine(response: Response): string {
  return `${response.status}${response.statusText ? ` ${response.statusText}` : ''}`;
}

/** Why a request failed: `could not reach <url>: connection refused (ECONNREFUSED): nothing listens there`. */
export function unreachable(url: string | URL, error: unknown, timeoutMs?: number): string {
  return `could not reach ${String(url)}: ${describeFetchFailure(error, timeoutMs)}`;
}
