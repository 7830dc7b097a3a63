import type { Write } from '../core/logger.js';
import type { UploadProgress } from '../core/types.js';
import { runtime } from '../shared/runtime.js';
import type { MultipartBody } from './types.js';

/** Bytes between two progress reports: often enough for a smooth bar, rare enough to cost nothing. */
const REPORT_STEP = 64 * 1024;

/**
 * Wraps a multipart body so `onProgress` hears of the bytes fetch has taken, every 64 KiB and at
 * the end: `loaded` grows strictly and ends equal to `total` when the size is known. The Content-Length is kept
 * (Node's fetch sends it with a stream body), so the server sees the same request as without progress.
 */
export function withUploadProgress(
  multipart: MultipartBody,
  callback: (progress: UploadProgress) => void,
  warn: Write,
): MultipartBody & { finish?: () => void } {
  const { body, size } = multipart;
  const onProgress = guardCallback(callback, warn, 'documents.upload', 'onUploadProgress');
  if (body instanceof Blob && runtime.browser) {
    // Browsers send a stream body only over HTTP/2 (Chromium) or not at all (Firefox, Safari), so
    // the Blob stays a Blob there: progress is 0 at the start and the total once the upload is done.
    // A Blob body always comes with its size (buildMultipart), which is the Blob's own.
    onProgress({ loaded: 0, total: body.size });
    return { ...multipart, finish: () => onProgress({ loaded: body.size, total: body.size }) };
  }
  const reader = (body instanceof Blob ? body.stream() : body).getReader();
  let loaded = 0;
  // What was last reported; 0 is never reported, as a multipart body is never empty (its framing).
  let reported = 0;
  let handedOver = 0;
  const report = (force: boolean) => {
    // At most one report per REPORT_STEP bytes (Node hands fetch 16 KiB chunks: 65,536 per GiB).
    if (loaded === reported || (!force && loaded - reported < REPORT_STEP)) return;
    reported = loaded;
    onProgress({ loaded, total: size });
  };
  const stream = new ReadableStream<Uint8Array>(
    {
      async pull(controller) {
        // With no queue, pull runs when fetch has taken the previous chunk: count it as sent now.
        loaded += handedOver;
        handedOver = 0;
        report(false);
        const { done, value } = await reader.read();
        if (done) {
          controller.close();
          report(true);
          return;
        }
        handedOver = value.byteLength;
        controller.enqueue(value);
      },
      cancel(reason) {
        return reader.cancel(reason);
      },
    },
    { highWaterMark: 0 },
  );
  const headers = { ...multipart.headers };
  if (size !== undefined) headers['content-length'] = String(size);
  return { body: stream, headers, size, release: multipart.release };
}

/**
 * A callback of the caller's, made harmless: whatever it throws (or the promise it returns rejects
 * with) never reaches the upload, whatever its size, and is reported once at `warn`, naming
 * `operation` and the option (`name`).
 */
export function guardCallback<T>(callback: (value: T) => void, warn: Write, operation: string, name: string): (value: T) => void {
  let reported = false;
  const report = (error: unknown) => {
    if (reported) return;
    reported = true;
    const reason = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
    warn?.(`[svc-sdk] ${operation}: ${name} threw (${reason.slice(0, 200)}); the upload goes on, and further errors of it are not reported`, {
      operation,
      error: reason.slice(0, 200),
    });
  };
  return (value) => {
    try {
      const result: unknown = callback(value);
      if (typeof (result as PromiseLike<unknown> | undefined)?.then === 'function') (result as PromiseLike<unknown>).then(undefined, report);
    } catch (error) {
      report(error);
    }
  };
}
