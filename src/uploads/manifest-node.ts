import { constants } from 'node:fs';
import { open, type FileHandle } from 'node:fs/promises';
import { SvcError } from '../core/errors.js';
import type { Manifest, ManifestRecord, ManifestState } from './file-system.js';

/** O_DSYNC where the platform has it (Linux, macOS, the BSDs); undefined on Windows. */
const DSYNC: number | undefined = (constants as { O_DSYNC?: number }).O_DSYNC;

const STATES: readonly ManifestState[] = ['sending', 'uploaded', 'failed', 'unknown'];

/**
 * Opens the JSON Lines manifest of `documents.uploadMany` (created when missing) for appending.
 *
 * Durable line by line: `append` resolves only once its line is on disk, and a body is sent only
 * after its `sending` line has resolved. The file is opened with O_DSYNC, so a write is durable
 * when it returns: one trip to libuv's thread pool per commit instead of two (write, then
 * fdatasync), and a `sending` line is on every file's way to the network. A process killed in the
 * middle of a write leaves at most one line cut short, at the very end, with no newline: it is dropped (the
 * file truncated after the last whole line) before anything else is appended. Lines waiting while a
 * sync runs are written together by the next one (group commit), and an outcome line waits one turn
 * of the event loop for the next `sending` line, so a run of many small files does not wait for one
 * sync per line.
 */
export async function openManifest(path: string): Promise<Manifest> {
  let handle: FileHandle;
  try {
    // 'a+' (append, create, read) plus O_DSYNC; Windows has no O_DSYNC and gets 'a+' with a sync per commit.
    handle = await open(path, DSYNC === undefined ? 'a+' : constants.O_RDWR | constants.O_CREAT | constants.O_APPEND | DSYNC);
  } catch (error) {
    throw new SvcError(`[svc-sdk] documents.uploadMany: cannot open the manifest "${path}" (${(error as { code?: string }).code ?? String(error)}): pass a writable file path`);
  }
  try {
    const previous = await readRecords(handle, path);
    return new ManifestFile(handle, previous);
  } catch (error) {
    await handle.close();
    throw error;
  }
}

/** The last record of each path, after dropping a trailing line cut short. */
async function readRecords(handle: FileHandle, path: string): Promise<Map<string, ManifestRecord>> {
  const text = (await handle.readFile()).toString('utf8');
  const whole = text.lastIndexOf('\n') + 1;
  if (whole < text.length) {
    // Bytes, not characters: a cut may fall inside a multi-byte character.
    await handle.truncate(Buffer.byteLength(text.slice(0, whole)));
    await handle.datasync();
  }
  const records = new Map<string, ManifestRecord>();
  const lines = text.slice(0, whole).split('\n');
  lines.pop();
  lines.forEach((line, index) => {
    const record = parseRecord(line);
    if (!record) {
      throw new SvcError(
        `[svc-sdk] documents.uploadMany: line ${index + 1} of the manifest "${path}" is not a record of svc-sdk: ` +
          'restore the file or pass another manifest (a line cut short by a crash is dropped without this error)',
      );
    }
    records.set(record.path, record);
  });
  return records;
}

function parseRecord(line: string): ManifestRecord | undefined {
  let value: unknown;
  try {
    value = JSON.parse(line);
  } catch {
    return undefined;
  }
  if (value === null || typeof value !== 'object') return undefined;
  const record = value as Record<string, unknown>;
  const optionalNumber = (field: unknown) => field === undefined || typeof field === 'number';
  const optionalString = (field: unknown) => field === undefined || typeof field === 'string';
  if (typeof record['path'] !== 'string' || !STATES.includes(record['state'] as ManifestState)) return undefined;
  if (!optionalNumber(record['size']) || !optionalNumber(record['mtimeMs']) || !optionalNumber(record['documentId'])) return undefined;
  if (!optionalString(record['sha256']) || !optionalString(record['error'])) return undefined;
  return record as unknown as ManifestRecord;
}

interface Waiting {
  line: string;
  /** A `sending` line: its body waits for it. */
  urgent: boolean;
  resolve: () => void;
  reject: (error: unknown) => void;
}

class ManifestFile implements Manifest {
  readonly previous: ReadonlyMap<string, ManifestRecord>;
  readonly #handle: FileHandle;
  #waiting: Waiting[] = [];
  #flushing: Promise<void> | undefined;
  /** An outcome line's flush, due at the next turn of the event loop. */
  #soon: NodeJS.Immediate | undefined;

  constructor(handle: FileHandle, previous: ReadonlyMap<string, ManifestRecord>) {
    this.#handle = handle;
    this.previous = previous;
  }

  append(record: ManifestRecord): Promise<void> {
    const { path, state, size, mtimeMs, sha256, documentId, error } = record;
    const line = `${JSON.stringify({ path, state, size, mtimeMs, sha256, documentId, error })}\n`;
    return new Promise((resolve, reject) => {
      this.#waiting.push({ line, urgent: state === 'sending', resolve, reject });
      if (this.#flushing) return; // the running flush takes it, or leaves it for the next turn (#flush)
      // A `sending` line holds its body back: written at once. An outcome line holds nothing back:
      // it waits one turn of the event loop, in which the worker that settled the file usually
      // appends its next file's `sending` line, so both go in one synced write (a synced write
      // costs 130-150 µs of CPU and about 1 ms here: one per file instead of two).
      if (state === 'sending') this.#flushNow();
      else this.#soon ??= setImmediate(() => this.#flushNow());
    });
  }

  #flushNow(): void {
    if (this.#soon) clearImmediate(this.#soon);
    this.#soon = undefined;
    this.#flushing ??= this.#flush();
  }

  async #flush(): Promise<void> {
    while (this.#waiting.length > 0) {
      const batch = this.#waiting;
      this.#waiting = [];
      try {
        const bytes = Buffer.from(batch.map((waiting) => waiting.line).join(''));
        // The file is opened for appending: every write lands at its end.
        for (let offset = 0; offset < bytes.length; ) offset += (await this.#handle.write(bytes, offset)).bytesWritten;
        if (DSYNC === undefined) await this.#handle.datasync();
        for (const waiting of batch) waiting.resolve();
      } catch (error) {
        for (const waiting of batch) waiting.reject(error);
      }
      // Outcome lines alone wait for the next turn, as in append.
      if (!this.#waiting.some((waiting) => waiting.urgent)) break;
    }
    this.#flushing = undefined;
    if (this.#waiting.length > 0) this.#soon ??= setImmediate(() => this.#flushNow());
  }

  async close(): Promise<void> {
    // Every line on disk first, the outcome lines that wait for a turn included.
    while (this.#flushing || this.#soon) {
      if (this.#soon) this.#flushNow();
      await this.#flushing;
    }
    await this.#handle.close();
  }
}
