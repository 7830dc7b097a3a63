// One run of documents.uploadMany: the pool, the files' outcomes, the stop, and the progress counters.
import { ValidationError } from '../core/errors.js';
import type { UploadProgress } from '../core/http.js';
import type { Write } from '../core/logger.js';
import type { Document } from '../schemas/documents.js';
import { withKnownSize } from './encode.js';
import type { FileSystemSupport, HashedSource, Manifest, ManifestRecord } from './file-system.js';
import { isFatal, outcomeOfFailure } from './outcome.js';
import { guardCallback } from './progress.js';
import { tap } from './stream-tap.js';
import type { Uploadable, UploadOptions } from './types.js';
import { bytesOf, type Job, type JobSource } from './upload-many-jobs.js';
import type { UploadManyFile, UploadManyOptions, UploadManyProgress, UploadManyResult, UploadManyStop } from './upload-many-types.js';

const OPERATION = 'documents.uploadMany';

/** Sends one file: `documents.upload` bound to the room. */
export type UploadOne = (file: Uploadable, options: UploadOptions) => PromiseLike<Document>;

/** What the manifest says of a file before it is sent: skip it, leave it unknown (as an earlier run left it), or (undefined) send it. */
type Verdict = { skip: { documentId: number; sha256: string } } | 'unknown' | undefined;

/** What a run needs besides its files. */
export interface RunSettings {
  fs: FileSystemSupport | undefined;
  manifest: Manifest | undefined;
  onProgress: ((progress: UploadManyProgress) => void) | undefined;
  stopOnError: boolean;
  retryUnknown: boolean;
  stopSignal: AbortSignal | undefined;
  callOptions: Omit<UploadManyOptions, 'concurrency' | 'manifest' | 'onProgress' | 'stopOnError' | 'retryUnknown' | 'stopSignal'>;
  /** Where a callback of the caller's that throws is reported (the client's log). */
  warn: Write;
}

/** The result's lists, by the state a file settles in. */
type ResultLists = Omit<UploadManyResult, 'stopped' | 'notes'>;

/** How a file settled: the list it goes to, and its entry there less its path and size. */
type Settled = { [S in keyof ResultLists]: { state: S } & Omit<ResultLists[S][number], keyof UploadManyFile> }[keyof ResultLists];

/** One run: the pool, the files' outcomes and the progress counters. */
export class Run {
  readonly #upload: UploadOne;
  readonly #settings: RunSettings;
  readonly #onProgress: ((progress: UploadManyProgress) => void) | undefined;
  readonly #outcomes: Array<{ job: Job; settled: Settled }> = [];
  readonly #started = performance.now();
  #filesTotal: number | undefined;
  #bytesTotal: number | undefined;
  #filesDone = 0;
  /** Bytes of file content handed to fetch: the only bytes progress calls done. */
  #bytesSent = 0;
  #bytesSkipped = 0;
  /** Why no more files are started; the first reason wins. */
  #stopped: UploadManyStop | undefined;
  #seen = new Set<string>();

  constructor(upload: UploadOne, settings: RunSettings, total: JobSource['total']) {
    this.#upload = upload;
    this.#settings = settings;
    this.#onProgress = settings.onProgress && guardCallback(settings.onProgress, settings.warn, OPERATION, 'onProgress');
    this.#filesTotal = total?.files;
    this.#bytesTotal = total?.bytes;
  }

  /** Runs `concurrency` workers over `next` until every file settled; rejects only with an iterable input's error. */
  async all(next: () => Promise<Job | undefined>, concurrency: number): Promise<void> {
    const { callOptions: { signal }, stopSignal } = this.#settings;
    const onAbort = () => this.#stop('aborted', `[svc-sdk] ${OPERATION}: aborted by its signal (${messageOf(signal!.reason)}); the files being sent were cut off`, signal!.reason);
    const onStop = () =>
      this.#stop('stopSignal', `[svc-sdk] ${OPERATION}: stopped by its stopSignal; the files being sent finished and no other was started`, stopSignal!.reason);
    // Aborted or stopped already (while the manifest was opened, the folder listed): no file starts.
    if (signal?.aborted) onAbort();
    if (stopSignal?.aborted) onStop();
    // Removed in `finally`; a signal aborts once, so no `once` is needed.
    signal?.addEventListener('abort', onAbort);
    stopSignal?.addEventListener('abort', onStop);
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
          this.#stop('aborted', `[svc-sdk] ${OPERATION}: the inputs iterable threw (${messageOf(error)}); no file was started after it`, error);
          return;
        }
        if (!job) return;
        await this.#settle(job);
      }
    };
    let failure: { error: unknown } | undefined;
    try {
      // allSettled: a worker that fails (a bug) must not settle the run while the others still send.
      for (const outcome of await Promise.allSettled(Array.from({ length: concurrency }, worker))) {
        if (outcome.status === 'rejected') failure ??= { error: outcome.reason };
      }
    } finally {
      signal?.removeEventListener('abort', onAbort);
      stopSignal?.removeEventListener('abort', onStop);
    }
    if (inputError) throw inputError.error;
    if (failure) throw failure.error;
    if (this.#filesTotal === undefined) {
      // An iterable read to its end (or to a stop): every file it gave has settled, once.
      this.#filesTotal = this.#filesDone;
      this.#bytesTotal = bytesOf(this.#outcomes.map(({ job }) => job));
      this.#report();
    }
  }

  result(): UploadManyResult {
    const result: UploadManyResult = { uploaded: [], skipped: [], failed: [], unknown: [], notStarted: [], stopped: this.#stopped, notes: this.#notes() };
    this.#outcomes.sort((a, b) => a.job.index - b.job.index);
    for (const { job, settled: { state, ...entry } } of this.#outcomes) {
      // Settled is typed from these lists: a file lands in the list of its own state, with that list's fields.
      (result[state] as UploadManyFile[]).push({ path: job.path, size: job.size, ...entry });
    }
    return result;
  }

  #notes(): string[] {
    const { manifest } = this.#settings;
    const notes: string[] = [];
    if (manifest?.ignored.otherScope) {
      notes.push(`[svc-sdk] ${OPERATION}: the manifest has records of ${manifest.ignored.otherScope} file(s) for another room or service only; they were not used (those files were judged as never sent to this room)`);
    }
    if (manifest?.ignored.unscoped) {
      notes.push(`[svc-sdk] ${OPERATION}: the manifest has records of ${manifest.ignored.unscoped} file(s) that name no room or service (svc-sdk 0.3); they were not used (those files were judged as never sent to this room)`);
    }
    return notes;
  }

  async #settle(job: Job): Promise<void> {
    const { manifest } = this.#settings;
    if (job.unlistable) return this.#finish(job, { state: 'failed', error: job.unlistable });
    const invalid = this.#checkInput(job);
    if (invalid) return this.#finish(job, { state: 'failed', error: invalid });
    const previous = manifest?.previous.get(job.path);
    if (this.#stopped) return this.#notStarted(job, previous);
    let verdict: Verdict;
    try {
      verdict = previous && (await this.#judge(previous, job));
    } catch (error) {
      // The file could not be read to compare it: nothing was sent.
      return this.#finish(job, { state: 'failed', error });
    }
    if (verdict === 'unknown') return this.#finish(job, { state: 'unknown', error: undefined });
    if (verdict) {
      this.#bytesSkipped += job.size ?? 0;
      return this.#finish(job, { state: 'skipped', ...verdict.skip });
    }
    await this.#send(job);
  }

  /** A file the run stopped before: not started, unless an earlier run may have stored it (then unknown, as it was). */
  #notStarted(job: Job, previous: ManifestRecord | undefined): void {
    // Not checked further (a prompt stop does not hash files).
    const maybeStored = previous && (previous.state === 'sending' || previous.state === 'unknown');
    this.#finish(job, maybeStored ? { state: 'unknown', error: undefined } : { state: 'notStarted' });
  }

  /** A problem with one input that stops it before anything is read: a missing name, a duplicate, a stream with a manifest. */
  #checkInput(job: Job): ValidationError | undefined {
    // A directory's file; any other job is one of the caller's inputs, null and undefined included.
    if (job.listed) return undefined;
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
      return undefined; // changed since: a new version
    }
    if (previous.state === 'sending' || previous.state === 'unknown') {
      const same =
        sameSize &&
        (previous.sha256 !== undefined
          ? (await this.#hash(job)) === previous.sha256
          : previous.mtimeMs === undefined || job.mtimeMs === undefined || previous.mtimeMs === job.mtimeMs);
      return same && !this.#settings.retryUnknown ? 'unknown' : undefined;
    }
    return undefined; // failed: provably not stored
  }

  async #hash(job: Job): Promise<string> {
    const fs = this.#settings.fs!;
    if (job.listed) return fs.hashFile(job.listed);
    // A Blob or bytes (a manifest takes nothing else), read through the tap that hashes an upload.
    const source = tap(job.input!.file, fs.createHasher());
    for await (const _chunk of source.file) this.#settings.callOptions.signal?.throwIfAborted();
    return source.sha256()!;
  }

  async #send(job: Job): Promise<void> {
    const { manifest, callOptions } = this.#settings;
    const line = { path: job.path, size: job.size, mtimeMs: job.mtimeMs };
    try {
      await manifest?.append({ ...line, state: 'sending' });
    } catch (error) {
      this.#stop('fatal', `[svc-sdk] ${OPERATION}: the manifest cannot be written (${messageOf(error)}); no file was started after it`, error);
      return this.#finish(job, { state: 'failed', error });
    }
    if (this.#stopped) {
      // Stopped while the line was written (a fatal answer, a stop signal): this body is not sent.
      void this.#record({ ...line, state: 'failed', error: 'not sent: the run stopped first' });
      return this.#finish(job, { state: 'notStarted' });
    }
    let source: HashedSource;
    try {
      source = await this.#open(job);
    } catch (error) {
      // Unreadable, a link swapped in, resized since the listing: nothing was sent.
      void this.#record({ ...line, state: 'failed', error: messageOf(error) });
      this.#afterFailure(error);
      return this.#finish(job, { state: 'failed', error });
    }
    let bodySent = false;
    // Bytes of this file counted in bytesDone so far.
    let credited = 0;
    const onUploadProgress = ({ loaded, total }: UploadProgress) => {
      // `loaded` ends equal to `total` when the total is known (and never equals an unknown one).
      if (loaded === total) bodySent = true;
      // File bytes only: the multipart framing (total - size) is not the user's content. A file of
      // known size always has a body of known length (#open), so `total` is there whenever `job.size` is.
      const bytes = loaded - (job.size === undefined ? 0 : total! - job.size);
      // Only what is new: nothing while the framing goes ahead of the file's bytes, nor twice.
      if (bytes <= credited) return;
      this.#bytesSent += bytes - credited;
      credited = bytes;
      this.#report();
    };
    let settled: Settled;
    try {
      const document = await this.#upload(source.file, {
        ...callOptions,
        filename: job.input?.filename ?? basename(job.path),
        // A Blob tapped for its hash (with a manifest) reaches the encoder as a stream: its own type is given here.
        contentType: job.input?.contentType || (job.input?.file instanceof Blob ? job.input.file.type : undefined),
        onUploadProgress,
      });
      settled = { state: 'uploaded', document, sha256: source.sha256() };
    } catch (error) {
      settled = { state: outcomeOfFailure(error, bodySent || source.exhausted), error };
      this.#afterFailure(error);
    }
    // What was actually read and sent, not what the listing said (HashedSource.size).
    const sent = { ...line, size: source.size() ?? job.size };
    // Not awaited: the worker moves on to its next file while the line syncs (group commit takes it
    // with the next sending line). A kill before the sync leaves the file `sending`, which a rerun
    // reads as unknown: safe. The run resolves only once every line is synced (the manifest's close).
    void this.#record(
      settled.state === 'uploaded'
        ? { ...sent, state: 'uploaded', sha256: settled.sha256, documentId: settled.document.id }
        : { ...sent, state: settled.state as 'failed' | 'unknown', sha256: source.sha256(), error: messageOf((settled as { error: unknown }).error) },
    );
    this.#finish(job, settled);
  }

  /** A 401, 403 or 404 stops the run whatever stopOnError says; any other failure stops it with stopOnError. */
  #afterFailure(error: unknown): void {
    if (isFatal(error)) {
      this.#stop('fatal', `[svc-sdk] ${OPERATION}: stopped at the first refusal that every file would get (${messageOf(error)}): check the room id and the API key`, error);
    } else if (this.#settings.stopOnError) {
      this.#stop('stopOnError', `[svc-sdk] ${OPERATION}: stopped after the first file that failed (stopOnError): ${messageOf(error)}`, error);
    }
  }

  /**
   * Appends an outcome line. One that cannot be written leaves the file's `sending` line last, which
   * a rerun reads as unknown (safe); it stops the run, as no further body could be recorded.
   */
  async #record(record: ManifestRecord): Promise<void> {
    try {
      await this.#settings.manifest?.append(record);
    } catch (error) {
      this.#stop('fatal', `[svc-sdk] ${OPERATION}: the manifest cannot be written (${messageOf(error)}); no file was started after it`, error);
    }
  }

  async #open(job: Job): Promise<HashedSource> {
    const { fs, manifest } = this.#settings;
    if (job.listed) return fs!.openHashed(job.listed);
    const file = job.input!.file;
    // A Node Readable (an fs.ReadStream among them) goes as it is, so that documents.upload refuses
    // one read already (a tap would send the rest of it) and sizes an fs stream from stat; its own
    // `readableEnded` tells when it has been read to its end, known size or not. (With a manifest it
    // never comes here: its size is not known, and #checkInput refused it.)
    const readable = file as { readableEnded?: unknown } | null | undefined;
    if (typeof readable?.readableEnded === 'boolean') {
      return { file, get exhausted() { return readable.readableEnded === true; }, sha256: () => undefined, size: () => undefined };
    }
    // Blobs and bytes go as they are (their size gives a Content-Length, and progress a total that
    // tells when the body is sent) unless a manifest needs their hash; another stream is tapped to
    // know when it has been read to the end. Anything that is neither (null, a number, a plain
    // object) goes as it is too: documents.upload refuses it by name, where a tap would fail
    // reading it with a TypeError. job.size is the input's sizeOf (upload-many-jobs.ts): known for a Blob or bytes alone.
    const known = job.size !== undefined;
    if ((known && !manifest) || !(known || isStream(file))) return { file, exhausted: false, sha256: () => undefined, size: () => undefined };
    // A stream, tapped to know when it has been read to its end (with a manifest, every input's size is known).
    if (!manifest) return tap(file, undefined);
    // A Blob or bytes tapped for their hash keep their size: the upload carries a Content-Length and
    // progress a total, which tells the multipart framing apart from the file's bytes (without it,
    // bytesDone counted the framing while the file was sent, and the body went chunked).
    const source = tap(file, fs!.createHasher());
    withKnownSize(source.file, job.size!);
    return source;
  }

  #finish(job: Job, settled: Settled): void {
    this.#outcomes.push({ job, settled });
    this.#filesDone += 1;
    this.#report();
  }

  #stop(reason: UploadManyStop['reason'], message: string, error: unknown): void {
    this.#stopped ??= { reason, message, error };
  }

  #report(): void {
    if (!this.#onProgress) return;
    const elapsedMs = performance.now() - this.#started;
    this.#onProgress({
      filesDone: this.#filesDone,
      filesTotal: this.#filesTotal,
      bytesDone: this.#bytesSent,
      bytesSkipped: this.#bytesSkipped,
      bytesTotal: this.#bytesTotal,
      bytesPerSecond: elapsedMs > 0 ? (this.#bytesSent * 1000) / elapsedMs : 0,
      elapsedMs,
    });
  }
}

function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}

function basename(path: string): string {
  return path.slice(path.lastIndexOf('/') + 1);
}

/** A web stream, or an async iterable such as a Node Readable. */
function isStream(file: unknown): boolean {
  return file instanceof ReadableStream || (file !== null && typeof file === 'object' && Symbol.asyncIterator in file);
}
