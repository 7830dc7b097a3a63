// The files of an uploadMany run, as its workers take them: a directory's listing or the caller's iterable.
import type { ValidationError } from '../core/errors.js';
import { asBytes } from '../shared/bytes.js';
import type { ListedFile, UnlistableEntry } from './file-system.js';
import type { UploadManyInput } from './upload-many-types.js';

/** One file of a run, in input order. */
export interface Job {
  index: number;
  path: string;
  size: number | undefined;
  mtimeMs: number | undefined;
  listed?: ListedFile | undefined;
  input?: UploadManyInput | undefined;
  /** Why the listing could not make this entry a file to send (a name that is not UTF-8, an unreadable entry). */
  unlistable?: ValidationError | undefined;
}

/** Where a run's workers take their files from. */
export interface JobSource {
  /** Files in the run, when known before it starts. */
  total: { files: number; bytes: number | undefined } | undefined;
  /** The next file, or undefined at the end; safe to call from several workers at once. */
  next: () => Promise<Job | undefined>;
  /** Ends an iterable read only in part (a stopped run): its generator's `finally` runs. */
  close?: () => Promise<unknown>;
}

/** A directory's listing, in its order. */
export function listedJobs(entries: Array<ListedFile | UnlistableEntry>): JobSource {
  let index = 0;
  const bytes = entries.reduce((sum, entry) => sum + ('error' in entry ? 0 : entry.size), 0);
  return {
    total: { files: entries.length, bytes },
    next: async () => {
      const entry = entries[index];
      if (!entry) return undefined;
      if ('error' in entry) return { index: index++, path: entry.path, size: undefined, mtimeMs: undefined, unlistable: entry.error };
      return { index: index++, path: entry.path, size: entry.size, mtimeMs: entry.mtimeMs, listed: entry };
    },
  };
}

/** The caller's inputs: an array known whole, or an iterable read one item per worker's ask. */
export function inputJobs(inputs: Iterable<UploadManyInput> | AsyncIterable<UploadManyInput>): JobSource {
  const toJob = (input: UploadManyInput, index: number): Job => ({ index, path: input?.filename, size: sizeOf(input?.file), mtimeMs: undefined, input });
  if (Array.isArray(inputs)) {
    const listed = inputs.map(toJob);
    let index = 0;
    return { total: { files: listed.length, bytes: bytesOf(listed) }, next: async () => listed[index++] };
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

/** The bytes of the caller's inputs `jobs`, or undefined when the size of one is not known (a stream). */
export function bytesOf(jobs: readonly Job[]): number | undefined {
  return jobs.every((job) => job.size !== undefined) ? jobs.reduce((sum, job) => sum + job.size!, 0) : undefined;
}

/** The size of an input when it is known without reading it. */
export function sizeOf(file: unknown): number | undefined {
  if (file instanceof Blob) return file.size;
  return asBytes(file)?.byteLength;
}
