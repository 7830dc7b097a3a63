// documents.uploadMany: a pool of uploads over a directory or an iterable, each file settled in
// exactly one state, with a manifest (Node) that makes a rerun send only what is missing and never
// a document twice. Loaded on first use (documents.ts imports it dynamically). The stages of one file:
//   judge (against the manifest's last line for its path) → `sending` line → upload → outcome line.
// A body is sent only after its `sending` line is on disk, so a run killed at any point leaves every
// file it might have stored recorded; a rerun treats such a file as `unknown` and does not resend it
// unless asked (retryUnknown). Uploads are never retried here: an upload is a create. What a failed
// upload means (failed or unknown) is outcome.ts's one rule.
import { SvcError, ValidationError, type Issue } from '../core/errors.js';
import type { Write } from '../core/logger.js';
import { loadFileSystem } from './file-system.js';
import { inputJobs, listedJobs } from './upload-many-jobs.js';
import { Run, type UploadOne } from './upload-many-run.js';
import type { UploadManyInputs, UploadManyOptions, UploadManyResult } from './upload-many-types.js';
import { DEFAULT_UPLOAD_CONCURRENCY, MAX_UPLOAD_CONCURRENCY } from '../shared/limits.js';

export type { UploadOne } from './upload-many-run.js';

const OPERATION = 'documents.uploadMany';

/** The client a run belongs to: the service's origin (named in manifest records) and its log's `warn`. */
export interface UploadManyService {
  origin: string;
  warn: Write;
}

/**
 * Uploads every file of `inputs` to a room, `concurrency` at a time. Resolves with each file in
 * exactly one list, once every file started has its outcome recorded in the manifest. Rejects when
 * nothing could start (bad arguments, an unreadable directory, a manifest refused or in use), or
 * with the error of an iterable input that throws, once the files in flight settled and were recorded.
 */
export async function uploadMany(
  upload: UploadOne,
  roomId: number,
  inputs: UploadManyInputs,
  options: UploadManyOptions,
  service: UploadManyService,
): Promise<UploadManyResult> {
  const { concurrency = DEFAULT_UPLOAD_CONCURRENCY, manifest: manifestPath, onProgress, stopOnError = false, retryUnknown = false, stopSignal, ...callOptions } = options;
  checkArguments(roomId, inputs, { concurrency, manifestPath, retryUnknown, stopSignal });
  const fs = await loadFileSystem();
  if ((typeof inputs === 'string' || manifestPath !== undefined) && !fs) {
    throw new SvcError(
      `[svc-sdk] ${OPERATION}: ${typeof inputs === 'string' ? 'a directory path' : 'a manifest'} needs Node: this runtime loaded the web build of svc-sdk, which has no file system. ` +
        'Pass an iterable of { file, filename } and no manifest instead.',
    );
  }
  callOptions.signal?.throwIfAborted();
  const manifest = manifestPath === undefined ? undefined : await fs!.openManifest(manifestPath, { room: roomId, origin: service.origin });
  try {
    // The manifest and the files beside it (its lock, a compaction's copy) are never a folder's files.
    const exclude = manifestPath === undefined ? undefined : [fs!.resolve(manifestPath)];
    const jobs = typeof inputs === 'string' ? listedJobs(await fs!.listFiles(inputs, exclude)) : inputJobs(inputs);
    const run = new Run(upload, { fs, manifest, onProgress, stopOnError, retryUnknown, stopSignal, callOptions, warn: service.warn }, jobs.total);
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

interface Settings {
  concurrency: number;
  manifestPath: string | undefined;
  retryUnknown: boolean;
  stopSignal: AbortSignal | undefined;
}

function checkArguments(roomId: number, inputs: UploadManyInputs, { concurrency, manifestPath, retryUnknown, stopSignal }: Settings): void {
  const issues: Issue[] = [];
  if (!(Number.isSafeInteger(roomId) && roomId > 0)) issues.push({ path: ['roomId'], message: 'roomId must be a positive integer id, as the service returned it' });
  const isIterable = inputs !== null && typeof inputs === 'object' && (Symbol.iterator in inputs || Symbol.asyncIterator in inputs);
  if (!(typeof inputs === 'string' ? inputs !== '' : isIterable)) {
    issues.push({ path: ['inputs'], message: 'inputs must be a directory path, or an iterable or async iterable of { file, filename }' });
  }
  if (!(Number.isInteger(concurrency) && concurrency >= 1 && concurrency <= MAX_UPLOAD_CONCURRENCY)) {
    issues.push({ path: ['concurrency'], message: `concurrency must be a whole number from 1 to ${MAX_UPLOAD_CONCURRENCY}` });
  }
  if (manifestPath !== undefined && (typeof manifestPath !== 'string' || manifestPath === '')) {
    issues.push({ path: ['manifest'], message: 'manifest must be the path of a file (created when missing)' });
  }
  if (retryUnknown && manifestPath === undefined) {
    issues.push({ path: ['retryUnknown'], message: 'retryUnknown needs a manifest: without one no earlier outcome is known to act on; pass the manifest of the earlier run' });
  }
  if (stopSignal !== undefined && !(stopSignal instanceof AbortSignal)) {
    issues.push({ path: ['stopSignal'], message: 'stopSignal must be an AbortSignal (AbortController.signal)' });
  }
  if (issues.length) throw new ValidationError(OPERATION, issues);
}
