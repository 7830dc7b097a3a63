// Reading requests as strictly as the service: content types, size limits, ids in paths. Every
// problem is a JSON error answer (an HttpProblem thrown here, answered by the route wrapper).

import { readAtMost } from '../shared/read-at-most.js';
import { findUploadPart, type UploadPart } from './upload-part.js';

/** A 4xx/5xx answer thrown from inside a route. */
export class HttpProblem extends Error {
  constructor(
    readonly status: number,
    message: string,
    readonly field?: string,
  ) {
    super(message);
  }
}

/** The service's success envelope. */
export const ok = (data: unknown, status = 200): Response => Response.json({ success: true, data }, { status });

/** A JSON error answer `{ error, field? }`. */
export const fail = (status: number, error: string, field?: string): Response =>
  Response.json(field === undefined ? { error } : { error, field }, { status });

/** The largest bodies the emulator reads, in bytes. */
export interface BodyLimits {
  /** JSON bodies. */
  json: number;
  /** Multipart uploads. */
  upload: number;
}

// Requests routed with their body set aside (see `withBodyAside`): the body each one stands for.
const setAside = new WeakMap<Request, ReadableStream<Uint8Array> | null>();

/**
 * The request as the routes see it: without its body, which the routes read through `bodyOf`.
 * msw clones every request it routes (a tee of the body, kept for its logging, which the emulator
 * never reads): with no body there is nothing to tee, and the upload streams through once. For
 * requests served over HTTP (emulator.ts says why not in process).
 */
export function withBodyAside(request: Request): Request {
  if (request.body === null) return request;
  const routed = new Request(request.url, { method: request.method, headers: request.headers, signal: request.signal });
  setAside.set(routed, request.body);
  return routed;
}

/** The body of a request, set aside or not. */
function bodyOf(request: Request): ReadableStream<Uint8Array> | null {
  return setAside.has(request) ? setAside.get(request)! : request.body;
}

/**
 * The body's bytes, or a 413 as soon as it is known to pass `limit` (from Content-Length, or while
 * reading). `own`: bytes no one else holds (a single chunk may be a view into a larger buffer, or
 * a caller's), for bytes kept after the request.
 */
async function readBytes(request: Request, limit: number, option: string, own: boolean): Promise<Uint8Array> {
  const tooLarge = () =>
    new HttpProblem(413, `body too large: the emulator takes at most ${limit} bytes here (createEmulator({ ${option} }) raises it)`);
  const declared = request.headers.get('content-length');
  if (declared !== null && /^\d+$/.test(declared) && Number(declared) > limit) {
    discard(bodyOf(request));
    throw tooLarge();
  }
  const bytes = await readAtMost(bodyOf(request), limit, { own });
  if (!bytes) throw tooLarge();
  return bytes;
}

/**
 * Stops reading a body the emulator will not use. Not awaited: msw hands each handler a clone (a
 * tee), whose cancel settles only once every branch is cancelled.
 */
function discard(body: { cancel(): Promise<void> } | null): void {
  body?.cancel().catch(() => undefined);
}

/** `application/json` or any `+json` type, with or without parameters. */
function isJsonType(contentType: string): boolean {
  const type = contentType.split(';')[0]!.trim().toLowerCase();
  return type === 'application/json' || /^application\/[\w.+-]+\+json$/.test(type);
}

/** True for a request that carries no body at all. */
function hasNoBody(request: Request): boolean {
  return bodyOf(request) === null || request.headers.get('content-length') === '0';
}

/** The JSON object of the body: 415 without a JSON content type, 413 above the limit, 422 when not an object. */
export async function readJson(request: Request, limits: BodyLimits): Promise<Record<string, unknown>> {
  const contentType = request.headers.get('content-type');
  if (contentType === null && hasNoBody(request)) {
    throw new HttpProblem(422, 'body is required: send a JSON object with Content-Type: application/json', 'body');
  }
  if (contentType === null || !isJsonType(contentType)) {
    throw new HttpProblem(
      415,
      `unsupported Content-Type ${contentType === null ? '(none)' : `"${contentType}"`}: send the body as JSON with Content-Type: application/json`,
    );
  }
  const bytes = await readBytes(request, limits.json, 'maxJsonBytes', false);
  let body: unknown;
  try {
    body = JSON.parse(new TextDecoder().decode(bytes));
  } catch {
    throw new HttpProblem(422, 'body is required: send a JSON object with Content-Type: application/json', 'body');
  }
  if (typeof body !== 'object' || body === null || Array.isArray(body)) {
    throw new HttpProblem(422, 'body must be a JSON object', 'body');
  }
  return body as Record<string, unknown>;
}

const FILE_REQUIRED = 'file is required: send multipart/form-data with one file part named "file"';

/**
 * The part named "file" of an upload: 415 without a multipart content type, 413 above the limit,
 * 422 when unreadable or without such a part. Its bytes are the body's own (one copy of the document).
 */
export async function readUpload(request: Request, limits: BodyLimits): Promise<UploadPart> {
  const contentType = request.headers.get('content-type');
  if (contentType === null || !/^multipart\/form-data\s*;/i.test(contentType)) {
    discard(bodyOf(request));
    if (contentType === null && hasNoBody(request)) throw new HttpProblem(422, FILE_REQUIRED, 'file');
    throw new HttpProblem(
      415,
      `unsupported Content-Type ${contentType === null ? '(none)' : `"${contentType}"`}: ${FILE_REQUIRED}`,
    );
  }
  const bytes = await readBytes(request, limits.upload, 'maxUploadBytes', true);
  const part = findUploadPart(contentType, bytes);
  if (part) return part;
  let file: FormDataEntryValue | null;
  try {
    file = (await new Response(bytes as Uint8Array<ArrayBuffer>, { headers: { 'content-type': contentType } }).formData()).get('file');
  } catch {
    throw new HttpProblem(422, FILE_REQUIRED, 'file');
  }
  if (file === null || typeof file === 'string') throw new HttpProblem(422, FILE_REQUIRED, 'file');
  return { filename: file.name, type: file.type, bytes: new Uint8Array(await file.arrayBuffer()) };
}

/** The numeric id of a path segment: only digits name a record, anything else is a 404 like any unknown id. */
export function pathId(raw: string | readonly string[] | undefined, what: string): number {
  if (typeof raw !== 'string' || !/^[0-9]+$/.test(raw)) {
    throw new HttpProblem(404, `${what} ${JSON.stringify(raw ?? '')} not found: ids are whole numbers, such as 42`);
  }
  return Number(raw);
}
