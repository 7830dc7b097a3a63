import type { RequestOptions } from '../core/http.js';
import type { Document } from '../schemas/documents.js';
import type { FileMetadata, Uploadable } from './types.js';

/** One file of `documents.uploadMany` when the inputs are not a directory: the file and its name. */
export interface UploadManyInput extends FileMetadata {
  /** Any input `documents.upload` takes. */
  file: Uploadable;
  /** The document's name; also the file's key in the manifest, so it must be unique within a run. */
  filename: string;
}

/** What `documents.uploadMany` uploads: a directory path (Node), or an iterable / async iterable of files. */
export type UploadManyInputs = string | Iterable<UploadManyInput> | AsyncIterable<UploadManyInput>;

/** Where a run of `documents.uploadMany` stands; every count only grows. */
export interface UploadManyProgress {
  /** Files settled (uploaded, skipped, failed, unknown or not started). */
  filesDone: number;
  /** Files in the run; `undefined` while an iterable input is still being read. */
  filesTotal: number | undefined;
  /**
   * Bytes of file content sent in this run: never a byte that was not sent (a stopped, aborted,
   * skipped or failed file counts only what of it was handed to fetch). Ends at `bytesTotal` when
   * every file was sent whole; add `bytesSkipped` for a bar that shows the files already stored.
   */
  bytesDone: number;
  /** Bytes of the files skipped because an earlier run stored them (per the manifest): done, but not sent. */
  bytesSkipped: number;
  /** Bytes of all files; `undefined` while unknown (a stream input, an iterable still being read). */
  bytesTotal: number | undefined;
  /** Bytes of file content actually sent in this run, per second since it started. */
  bytesPerSecond: number;
  /** Milliseconds since the run started. */
  elapsedMs: number;
}

/** Options of `documents.uploadMany`; the per-call options (`timeout`, `headers`, ...) apply to each file's upload. */
export interface UploadManyOptions extends RequestOptions {
  /** Files sent at once. Default 4. */
  concurrency?: number | undefined;
  /**
   * Path of the JSON Lines manifest that makes a run resumable (Node only): created when missing,
   * appended to, read by the next run. Files it records as uploaded with the same size and SHA-256
   * are skipped; files it records as being sent, with no outcome, are `unknown`.
   */
  manifest?: string | undefined;
  /**
   * Called whenever a file progresses or settles.
   *
   * @param progress The files and bytes done so far, and their totals when known.
   */
  onProgress?: ((progress: UploadManyProgress) => void) | undefined;
  /**
   * Stop starting files after the first `failed` or `unknown` one: files already being sent finish;
   * files never started are listed in `notStarted` (for a directory or an array; an iterable is not
   * read further). Default false: one file's failure never stops the others. A 401, 403 or 404 stops
   * the run whatever this says (`stopped.reason === 'fatal'`): every other file would get the same answer.
   */
  stopOnError?: boolean | undefined;
  /**
   * Send again the files whose earlier upload has an unknown outcome (and might be stored already).
   * Default false. Needs `manifest` (a ValidationError without one: there is no earlier outcome to act on).
   */
  retryUnknown?: boolean | undefined;
  /**
   * A gentle stop (a first Ctrl+C): when it aborts, no new file starts, the files in flight finish
   * and their outcomes are recorded, then the run resolves with `stopped.reason === 'stopSignal'`.
   * `signal`, by contrast, aborts the files in flight too (they become `failed` or `unknown` by the
   * outcome rules) and resolves with `stopped.reason === 'aborted'`.
   */
  stopSignal?: AbortSignal | undefined;
}

/** A file of the run: its path relative to the directory (with `/`), or the input's filename. */
export interface UploadManyFile {
  path: string;
  /** Its size in bytes, when known. */
  size: number | undefined;
}

/** A file stored by this run. */
export interface UploadedFile extends UploadManyFile {
  document: Document;
  /** SHA-256 of the content sent, in hex (directory inputs, or with a manifest). */
  sha256: string | undefined;
}

/** A file an earlier run stored, by the manifest: the same size and SHA-256. Not sent again. */
export interface SkippedFile extends UploadManyFile {
  documentId: number;
  sha256: string;
}

/**
 * A file that provably was not stored: refused before its body was sent (unreadable, a bad name, a
 * connection refused), answered before its body ended, or answered 4xx. A rerun sends it.
 */
export interface FailedFile extends UploadManyFile {
  error: unknown;
}

/**
 * A file whose body was sent but whose outcome is unknown (a 5xx, a timeout, a reset, a kill, an
 * abort after the body): it may be stored. Never sent again unless `retryUnknown` is set.
 */
export interface UnknownFile extends UploadManyFile {
  /** What happened in this run; `undefined` when an earlier run left it unknown (then it was not sent again). */
  error: unknown;
}

/** Why a run started no more files; said once for the whole run. */
export interface UploadManyStop {
  /**
   * `fatal`: a 401, 403 or 404 (a wrong key, or a room that is not there for this key), or a manifest
   * that cannot be written (no further body could be recorded); `stopOnError`: the first failed or
   * unknown file; `stopSignal`: `stopSignal` aborted; `aborted`: `signal` aborted (or an iterable input
   * threw, and then the run rejects with its error once the files in flight are recorded).
   */
  reason: 'fatal' | 'stopOnError' | 'stopSignal' | 'aborted';
  /** One line that says why, for a person (starts with `[svc-sdk]`). */
  message: string;
  /** The error (or the signal's reason) that stopped the run. */
  error?: unknown;
}

/** The outcome of `documents.uploadMany`, each file in exactly one list, in the order the inputs came. */
export interface UploadManyResult {
  uploaded: UploadedFile[];
  skipped: SkippedFile[];
  failed: FailedFile[];
  unknown: UnknownFile[];
  /**
   * Files never sent because the run stopped first (see `stopped`): nothing of them reached the
   * service, and a rerun sends them. A file an earlier run left unknown stays in `unknown` instead.
   */
  notStarted: UploadManyFile[];
  /** Why the run stopped starting files, or `undefined` when every file was started. */
  stopped: UploadManyStop | undefined;
  /**
   * What the run chose to ignore and why, one sentence each: manifest records of another room or
   * service (or from svc-sdk 0.3, which named neither), which are not used, so those files are sent.
   */
  notes: string[];
}
