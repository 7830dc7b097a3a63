// documents.uploadMany: a pool of uploads over a directory or an iterable, each file settled in
// exactly one state, with a manifest (Node) that makes a rerun send only what is missing and never
// a document twice. The stages of one file:
//   judge (against the manifest's last line for its path) → `sending` line → upload → outcome line.
// A body is sent only after its `sending` line is on disk, so a run killed at any point leaves every
// file it might have stored recorded; a rerun treats such a file as `unknown` and does not resend it
// unless asked (retryUnknown). Uploads are never retried here: an upload is a create.
import { APIError, ResponseValidationError, SvcError, ValidationError, type Issue } from '../core/errors.js';
import type { UploadProgress } from '../core/http.js';
import type { Document } from '../schemas/documents.js';
import { asBytes } from '../shared/bytes.js';
import { fileSystem, type FileSystemSupport, type HashedSource, type Hasher, type ListedFile, type Manifest, type ManifestRecord } from './file-system.js';
import type { Uploadable, UploadOptions } from './types.js';
import type {
  UploadManyInput,
  UploadManyInputs,
  UploadManyOptions,
  UploadManyProgress,
  UploadManyResult,
} from './upload-many-types.js';

const OPERATION = 'documents.uploadMany';
const DEFAULT_CONCURRENCY = 4;
const MAX_CONCURRENCY = 64;

/** Sends one file: `documents.upload` bound to the room. */
export type UploadOne = (file: Uploadable, options: UploadOptions) => PromiseLike<Document>;

/** One file of a run, in input order. */
interface Job {
  index: number;
  path: string;
  size: number | undefined;
  mtimeMs: number | undefined;
  listed?: ListedFile | undefined;
  input?: UploadManyInput | undefined;
}

/** What happened to a file before it was sent: skipped, unknown from an earlier run, or to be sent. */
type Verdict = { skip: { documentId: number; sha256: string } } | { unknown: true } | { send: true };

/**
 * Uploads every file of `inputs` to a room, `concurrency` at a time. Resolves with each file in
 * exactly one list. Rejects when nothing could start (bad arguments, an unreadable directory or
 * manifest), or with the error of an iterable input that throws, once the files in flight settled.
 */
export async function uploadMany(
  upload: UploadOne,
  roomId: number,
  inputs: UploadManyInputs,
  options: UploadManyOptions = {},
): Promise<UploadManyResult> {
  const { concurrency = DEFAULT_CONCURRENCY, manifest: manifestPath, onProgress, stopOnError = false, retryUnknown = false, stopSignal, ...callOptions } = options;
  checkArguments(roomId, inputs, concurrency, manifestPath);
  const fs = fileSystem();
  if ((typeof inputs === 'string' || manifestPath !== undefined) && !fs) {
    throw new SvcError(
      `[svc-sdk] ${OPERATION}: ${typeof inputs === 'string' ? 'a directory path' : 'a manifest'} needs Node: this runtime loaded the web build of svc-sdk, which has no file system. ` +
        'Pass an iterable of { file, filename } and no manifest instead.',
    );
  }
  callOptions.signal?.throwIfAborted();
  const manifest = manifestPath === undefined ? undefined : await fs!.openManifest(manifestPath);
  try {
    const exclude = manifestPath === undefined ? undefined : fs!.resolve(manifestPath);
    const jobs = typeof inputs === 'string' ? listedJobs(await fs!.listFiles(inputs, exclude)) : inputJobs(inputs);
    const run = new Run(upload, { fs, manifest, onProgress, stopOnError, retryUnknown, stopSignal, callOptions }, jobs.total);
    try {
      await run.all(jobs.next, concurrency);
    } finally {
      await jobs.close?.();
    }
    return run.result();
  } finally {
    await manifest?.close();
  }
}

function checkArguments(roomId: number, inputs: UploadManyInputs, concurrency: number, manifest: string | undefined): void {
  const issues: Issue[] = [];
  if (!(Number.isSafeInteger(roomId) && roomId > 0)) issues.push({ path: ['roomId'], message: 'roomId must be a positive integer id, as the service returned it' });
  const isIterable = inputs !== null && typeof inputs === 'object' && (Symbol.iterator in inputs || Symbol.asyncIterator in inputs);
  if (!(typeof inputs === 'string' ? inputs !== '' : isIterable)) {
    issues.push({ path: ['inputs'], message: 'inputs must be a directory path, or an iterable or async iterable of { file, filename }' });
  }
  if (!(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= MAX_CONCURRENCY)) {
    issues.push({ path: ['concurrency'], message: `concurrency must be a whole number from 1 to ${MAX_CONCURRENCY}` });
  }
  if (manifest !== undefined && (typeof manifest !== 'string' || manifest === '')) {
    issues.push({ path: ['manifest'], message: 'manifest must be the path of a file (created when missing)' });
  }
  if (issues.length) throw new ValidationError(OPERATION, issues);
}

interface JobSource {
  /** Files in the run, when known before it starts. */
  total: { files: number; bytes: number | undefined } | undefined;
  /** The next file, or undefined at the end; safe to call from several workers at once. */
  next: () => Promise<Job | undefined>;
  /** Ends an iterable read only in part (a stopped run): its generator's `finally` runs. */
  close?: () => Promise<unknown>;
}

function listedJobs(files: ListedFile[]): JobSource {
  let index = 0;
  const bytes = files.reduce((sum, file) => sum + file.size, 0);
  return {
    total: { files: files.length, bytes },
    next: async () => {
      const listed = files[index];
      if (!listed) return undefined;
      return { index: index++, path: listed.path, size: listed.size, mtimeMs: listed.mtimeMs, listed };
    },
  };
}

function inputJobs(inputs: Iterable<UploadManyInput> | AsyncIterable<UploadManyInput>): JobSource {
  const toJob = (input: UploadManyInput, index: number): Job => ({ index, path: input?.filename, size: sizeOf(input?.file), mtimeMs: undefined, input });
  if (Array.isArray(inputs)) {
    const sizes = inputs.map((input: UploadManyInput) => sizeOf(input?.file));
    const listed = inputs.map(toJob);
    const bytes = sizes.every((size) => size !== undefined) ? sizes.reduce((sum: number, size) => sum + size!, 0) : undefined;
    let index = 0;
    return { total: { files: listed.length, bytes }, next: async () => listed[index++] };
  }
  const iterator = Symbol.asyncIterator in inputs ? inputs[Symbol.asyncIterator]() : inputs[Symbol.iterator]();
  let index = 0;
  let done = false;
  // Workers ask at once; an async iterator's next() calls are chained so each gets its own item.
  let chain: Promise<unknown> = Promise.resolve();
  return {
    total: undefined,
    close: async () => {
      if (!done) await iterator.return?.();
    },
    next: () => {
      const step = chain.then(async (): Promise<Job | undefined> => {
        if (done) return undefined;
        const item = await iterator.next();
        if (item.done) {
          done = true;
          return undefined;
        }
        return toJob(item.value, index++);
      });
      chain = step.catch(() => undefined);
      return step;
    },
  };
}

/** The size of an input when it is known without reading it. */
function sizeOf(file: unknown): number | undefined {
  if (file instanceof Blob) return file.size;
  return asBytes(file)?.byteLength;
}

interface RunSettings {
  fs: FileSystemSupport | undefined;
  manifest: Manifest | undefined;
  onProgress: ((progress: UploadManyProgress) => void) | undefined;
  stopOnError: boolean;
  retryUnknown: boolean;
  stopSignal: AbortSignal | undefined;
  callOptions: Omit<UploadManyOptions, 'concurrency' | 'manifest' | 'onProgress' | 'stopOnError' | 'retryUnknown' | 'stopSignal'>;
}

type Settled =
  | { state: 'uploaded'; document: Document; sha256: string | undefined }
  | { state: 'skipped'; documentId: number; sha256: string }
  | { state: 'failed'; error: unknown }
  | { state: 'unknown'; error: unknown };

/** One run: the pool, the files' outcomes and the progress counters. */
class Run {
  readonly #upload: UploadOne;
  readonly #settings: RunSettings;
  readonly #outcomes: Array<{ job: Job; settled: Settled }> = [];
  readonly #started = performance.now();
  readonly #credited = new Map<number, number>();
  #filesTotal: number | undefined;
  #bytesTotal: number | undefined;
  #filesDone = 0;
  #bytesDone = 0;
  #bytesSent = 0;
  /** Why no more files are started: the signal's reason, the first error (stopOnError), a manifest that cannot be written. */
  #stopped: { reason: unknown } | undefined;
  #seen = new Set<string>();

  constructor(upload: UploadOne, settings: RunSettings, total: JobSource['total']) {
    this.#upload = upload;
    this.#settings = settings;
    this.#filesTotal = total?.files;
    this.#bytesTotal = total?.bytes;
  }

  async all(next: () => Promise<Job | undefined>, concurrency: number): Promise<void> {
    const { signal } = this.#settings.callOptions;
    const onAbort = () => this.#stop(signal!.reason);
    signal?.addEventListener('abort', onAbort, { once: true });
    // A stand-in until uploadMany's own stopSignal (issue 30, branch i30a) is merged: no new file starts.
    const { stopSignal } = this.#settings;
    const onStop = () => this.#stop(stopSignal!.reason);
    if (stopSignal?.aborted) onStop();
    stopSignal?.addEventListener('abort', onStop, { once: true });
    let files = 0;
    let bytes: number | undefined = 0;
    let inputError: { error: unknown } | undefined;
    const worker = async () => {
      for (;;) {
        // An iterable input is not read on after a stop: it may be endless.
        if (this.#stopped && this.#filesTotal === undefined) return;
        let job: Job | undefined;
        try {
          job = await next();
        } catch (error) {
          // The iterable threw: start nothing more, let the files in flight settle, then reject with it.
          inputError ??= { error };
          this.#stop(error);
          return;
        }
        if (!job) return;
        files += 1;
        bytes = bytes === undefined || job.size === undefined ? undefined : bytes + job.size;
        await this.#settle(job);
      }
    };
    try {
      await Promise.all(Array.from({ length: concurrency }, worker));
    } finally {
      signal?.removeEventListener('abort', onAbort);
      stopSignal?.removeEventListener('abort', onStop);
    }
    if (inputError) throw inputError.error;
    if (this.#filesTotal === undefined) {
      this.#filesTotal = files;
      this.#bytesTotal = bytes;
      this.#report();
    }
  }

  result(): UploadManyResult {
    const result: UploadManyResult = { uploaded: [], skipped: [], failed: [], unknown: [], notStarted: [], stopped: undefined, notes: [] };
    this.#outcomes.sort((a, b) => a.job.index - b.job.index);
    for (const { job, settled } of this.#outcomes) {
      const file = { path: job.path, size: job.size };
      if (settled.state === 'uploaded') result.uploaded.push({ ...file, document: settled.document, sha256: settled.sha256 });
      else if (settled.state === 'skipped') result.skipped.push({ ...file, documentId: settled.documentId, sha256: settled.sha256 });
      else if (settled.state === 'failed') result.failed.push({ ...file, error: settled.error });
      else result.unknown.push({ ...file, error: settled.error });
    }
    return result;
  }

  async #settle(job: Job): Promise<void> {
    const { manifest } = this.#settings;
    const invalid = this.#checkInput(job);
    if (invalid) return this.#finish(job, { state: 'failed', error: invalid });
    const previous = manifest?.previous.get(job.path);
    if (this.#stopped) {
      // Not checked further (a prompt stop does not hash files): what an earlier run may have stored stays unknown.
      const maybeStored = previous && (previous.state === 'sending' || previous.state === 'unknown');
      return this.#finish(job, maybeStored ? { state: 'unknown', error: undefined } : { state: 'failed', error: notSent(this.#stopped.reason) });
    }
    let verdict: Verdict = { send: true };
    if (previous) {
      try {
        verdict = await this.#judge(previous, job);
      } catch (error) {
        // The file could not be read to compare it: nothing was sent.
        return this.#finish(job, { state: 'failed', error });
      }
    }
    if ('skip' in verdict) return this.#finish(job, { state: 'skipped', ...verdict.skip });
    if ('unknown' in verdict) return this.#finish(job, { state: 'unknown', error: undefined });
    await this.#send(job);
  }

  /** A problem with one input that stops it before anything is read: a missing name, a duplicate, a stream with a manifest. */
  #checkInput(job: Job): ValidationError | undefined {
    if (!job.input) return undefined;
    const { input } = job;
    const at = ['inputs', job.index];
    if (input === null || typeof input !== 'object' || typeof input.filename !== 'string' || input.filename === '') {
      return new ValidationError(OPERATION, [{ path: [...at, 'filename'], message: 'each input must be { file, filename } with a non-empty filename' }]);
    }
    if (this.#settings.manifest) {
      if (this.#seen.has(input.filename)) {
        return new ValidationError(OPERATION, [{ path: [...at, 'filename'], message: `filename "${input.filename}" came twice: with a manifest each file needs its own name` }]);
      }
      this.#seen.add(input.filename);
      if (job.size === undefined) {
        return new ValidationError(OPERATION, [
          { path: [...at, 'file'], message: 'with a manifest each file must be a Blob, File (fileFromPath) or bytes, so a rerun can compare it; pass a directory path for files on disk' },
        ]);
      }
    }
    return undefined;
  }

  /** What the manifest's last line for this path says of the file as it is now. */
  async #judge(previous: ManifestRecord, job: Job): Promise<Verdict> {
    const sameSize = previous.size === job.size;
    if (previous.state === 'uploaded') {
      if (sameSize && previous.sha256 !== undefined && previous.documentId !== undefined && (await this.#hash(job)) === previous.sha256) {
        return { skip: { documentId: previous.documentId, sha256: previous.sha256 } };
      }
      return { send: true }; // changed since: a new version
    }
    if (previous.state === 'sending' || previous.state === 'unknown') {
      const same =
        sameSize &&
        (previous.sha256 !== undefined
          ? (await this.#hash(job)) === previous.sha256
          : previous.mtimeMs === undefined || job.mtimeMs === undefined || previous.mtimeMs === job.mtimeMs);
      return same && !this.#settings.retryUnknown ? { unknown: true } : { send: true };
    }
    return { send: true }; // failed: provably not stored
  }

  async #hash(job: Job): Promise<string> {
    const fs = this.#settings.fs!;
    if (job.listed) return fs.hashFile(job.listed.absolutePath);
    const hasher = fs.createHasher();
    const file = job.input!.file;
    const bytes = asBytes(file);
    if (bytes) hasher.update(bytes);
    else await pump((file as Blob).stream(), hasher, this.#settings.callOptions.signal);
    return hasher.digest();
  }

  async #send(job: Job): Promise<void> {
    const { manifest, callOptions } = this.#settings;
    const line = { path: job.path, size: job.size, mtimeMs: job.mtimeMs };
    try {
      await manifest?.append({ ...line, state: 'sending' });
    } catch (error) {
      this.#stop(error);
      return this.#finish(job, { state: 'failed', error });
    }
    let source: HashedSource;
    try {
      source = await this.#open(job);
    } catch (error) {
      // Unreadable (gone, no permission): nothing was sent.
      void this.#record({ ...line, state: 'failed', error: messageOf(error) });
      if (this.#settings.stopOnError) this.#stop(error);
      return this.#finish(job, { state: 'failed', error });
    }
    let bodySent = false;
    const onUploadProgress = ({ loaded, total }: UploadProgress) => {
      if (total !== undefined && loaded >= total) bodySent = true;
      // File bytes only: the multipart framing (total - size) is not the user's content.
      const framing = total !== undefined && job.size !== undefined ? total - job.size : 0;
      this.#credit(job, Math.max(0, loaded - framing), true);
    };
    let settled: Settled;
    try {
      const document = await this.#upload(source.file, {
        ...callOptions,
        filename: job.input?.filename ?? basename(job.path),
        contentType: job.input?.contentType,
        onUploadProgress,
      });
      settled = { state: 'uploaded', document, sha256: source.sha256() };
    } catch (error) {
      settled = isOutcomeUnknown(error, bodySent || source.exhausted) ? { state: 'unknown', error } : { state: 'failed', error };
      if (this.#settings.stopOnError) this.#stop(error);
    }
    // Not awaited: the worker moves on to its next file while the line syncs (group commit takes it
    // with the next sending line). A kill before the sync leaves the file `sending`, which a rerun
    // reads as unknown: safe. The run resolves only once every line is synced (the manifest's close).
    void this.#record(
      settled.state === 'uploaded'
        ? { ...line, state: 'uploaded', sha256: settled.sha256, documentId: settled.document.id }
        : { ...line, state: settled.state as 'failed' | 'unknown', sha256: source.sha256(), error: messageOf((settled as { error: unknown }).error) },
    );
    this.#finish(job, settled);
  }

  /**
   * Appends an outcome line. One that cannot be written leaves the file's `sending` line last, which
   * a rerun reads as unknown (safe); it stops the run, as no further body could be recorded.
   */
  async #record(record: ManifestRecord): Promise<void> {
    try {
      await this.#settings.manifest?.append(record);
    } catch (error) {
      this.#stop(error);
    }
  }

  async #open(job: Job): Promise<HashedSource> {
    const { fs, manifest } = this.#settings;
    if (job.listed) return fs!.openHashed(job.listed);
    const file = job.input!.file;
    // Blobs and bytes go as they are (their size gives a Content-Length, and progress a total that
    // tells when the body is sent) unless a manifest needs their hash; a stream is tapped to know
    // when it has been read to the end. An fs.ReadStream keeps its own size (from stat) untapped.
    const known = sizeOf(file) !== undefined;
    if ((known && !manifest) || isFsReadStream(file)) return { file, exhausted: false, sha256: () => undefined };
    return tap(file, manifest ? fs!.createHasher() : undefined);
  }

  #credit(job: Job, bytes: number, sent: boolean): void {
    const before = this.#credited.get(job.index) ?? 0;
    const capped = job.size === undefined ? bytes : Math.min(bytes, job.size);
    if (capped <= before) return;
    this.#credited.set(job.index, capped);
    this.#bytesDone += capped - before;
    if (sent) this.#bytesSent += capped - before;
    this.#report();
  }

  #finish(job: Job, settled: Settled): void {
    this.#outcomes.push({ job, settled });
    this.#filesDone += 1;
    // A settled file counts whole (skipped, failed and unknown ones too), so the bar ends at the total.
    const credited = this.#credited.get(job.index) ?? 0;
    if (job.size !== undefined && job.size > credited) this.#bytesDone += job.size - credited;
    this.#credited.delete(job.index);
    this.#report();
  }

  #stop(reason: unknown): void {
    this.#stopped ??= { reason };
  }

  #report(): void {
    const { onProgress } = this.#settings;
    if (!onProgress) return;
    const elapsedMs = performance.now() - this.#started;
    onProgress({
      filesDone: this.#filesDone,
      filesTotal: this.#filesTotal,
      bytesDone: this.#bytesDone,
      bytesSkipped: 0,
      bytesTotal: this.#bytesTotal,
      bytesPerSecond: elapsedMs > 0 ? (this.#bytesSent * 1000) / elapsedMs : 0,
      elapsedMs,
    });
  }
}

/**
 * Whether a failed upload may have stored the document. The service answered (APIError, any
 * status): it did not. Refused before sending (ValidationError): it did not. A 2xx whose body was
 * unreadable (ResponseValidationError): it did. Anything else (a timeout, a reset, an abort) is
 * unknown once the whole body was handed to fetch; before that, the service never got the closing
 * boundary of the multipart body, so it cannot have stored a document.
 */
export function isOutcomeUnknown(error: unknown, bodySent: boolean): boolean {
  if (error instanceof APIError || error instanceof ValidationError) return false;
  if (error instanceof ResponseValidationError) return true;
  return bodySent;
}

function notSent(reason: unknown): SvcError {
  return new SvcError(`[svc-sdk] ${OPERATION}: not sent, the run stopped before this file (${messageOf(reason)}); a rerun sends it`, { cause: reason });
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

function isFsReadStream(file: unknown): boolean {
  const stream = file as { path?: unknown; bytesRead?: unknown };
  return stream !== null && typeof stream === 'object' && stream.path !== undefined && typeof stream.bytesRead === 'number';
}

/**
 * The input as an async iterable of bytes that feeds `hasher` and notes when it has been read to the
 * end. Read on demand: the upload's own backpressure paces the file.
 */
function tap(file: Uploadable, hasher: Hasher | undefined): HashedSource {
  let exhausted = false;
  let digest: string | undefined;
  const encoder = new TextEncoder();
  async function* chunks(): AsyncGenerator<Uint8Array> {
    const bytes = asBytes(file);
    const source: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array> = bytes
      ? [bytes]
      : file instanceof Blob
        ? iterateStream(file.stream())
        : file instanceof ReadableStream
          ? iterateStream(file)
          : (file as AsyncIterable<Uint8Array | string>);
    for await (const chunk of source) {
      const part = typeof chunk === 'string' ? encoder.encode(chunk) : (asBytes(chunk) ?? chunk);
      hasher?.update(part);
      yield part;
    }
    exhausted = true;
    digest = hasher?.digest();
  }
  return {
    file: chunks(),
    get exhausted() {
      return exhausted;
    },
    sha256: () => digest,
  };
}

/** A web stream as an async iterable, by its reader (Safari's streams are not async iterable). */
async function* iterateStream(stream: ReadableStream<Uint8Array>): AsyncGenerator<Uint8Array> {
  const reader = stream.getReader();
  try {
    for (;;) {
      const { done, value } = await reader.read();
      if (done) return;
      yield value;
    }
  } finally {
    reader.releaseLock();
  }
}

async function pump(stream: ReadableStream<Uint8Array>, hasher: Hasher, signal: AbortSignal | undefined): Promise<void> {
  for await (const chunk of iterateStream(stream)) {
    signal?.throwIfAborted();
    hasher.update(chunk);
  }
}
