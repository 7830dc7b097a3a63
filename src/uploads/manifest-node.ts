import { randomBytes } from 'node:crypto';
import { constants } from 'node:fs';
import { lstat, open, rename, unlink, type FileHandle } from 'node:fs/promises';
import { dirname } from 'node:path';
import { ValidationError } from '../core/errors.js';
import { MANIFEST_COMPANIONS, type Manifest, type ManifestRecord, type ManifestScope, type ManifestState } from './file-system.js';
import { lockManifest, type ManifestLock } from './manifest-lock-node.js';
import { MAX_MANIFEST_LINE_BYTES } from '../shared/limits.js';

const OPERATION = 'documents.uploadMany';

/** O_DSYNC where the platform has it (Linux, macOS, the BSDs); undefined on Windows. */
const DSYNC: number | undefined = (constants as { O_DSYNC?: number }).O_DSYNC;

/**
 * O_NOFOLLOW where the platform has it (0 on Windows, where making a link takes an administrator):
 * a link planted at the manifest's path, or at a temporary file's, is refused (ELOOP), never followed.
 */
const NOFOLLOW = constants.O_NOFOLLOW ?? 0;

const STATES: readonly ManifestState[] = ['sending', 'uploaded', 'failed', 'unknown'];

/** Bytes read at a time when the manifest is opened: lines are parsed as they come, never the whole file as one string. */
const READ_BYTES = 64 * 1024;


/** Records written at a time by a compaction. */
const WRITE_RECORDS = 256;

/** How every record line starts (JSON.stringify keeps the order of `toLine`'s fields). */
const RECORD_START = Buffer.from('{"path":');

const NEWLINE = 0x0a;

/**
 * Opens the JSON Lines manifest of `documents.uploadMany` (created when missing) for one room of one
 * service, locked for this process alone.
 *
 * Safe to point anywhere: anything but a regular file (a FIFO, a directory, a device, a symbolic
 * link: whoever can write its folder could point it at another file) is refused before it is opened
 * for writing, and opened with O_NOFOLLOW (a link swapped in since is refused too); a non-empty file whose first line is not a record is refused
 * with not a byte written; `<path>.lock` beside it refuses a second run (manifest-lock-node.ts).
 *
 * Read line by line (bounded memory however many lines), and compacted on open: when earlier runs
 * left lines a later line supersedes (the last record of each room, service and path counts), the
 * file is rewritten with the last records alone, through a synced temporary file renamed over it.
 * A process killed in the middle of a write leaves at most one line cut short, at the very end:
 * kept when it parses as a whole record (only its newline missing), dropped otherwise (the file
 * cut at the byte after the last newline).
 *
 * Durable line by line: `append` resolves only once its line is on disk, and a body is sent only
 * after its `sending` line has resolved. The file is opened with O_DSYNC, so a write is durable
 * when it returns: one trip to libuv's thread pool per commit instead of two (write, then
 * fdatasync). Lines waiting while a sync runs are written together by the next one (group commit),
 * and an outcome line waits one turn of the event loop for the next `sending` line, so a run of many
 * small files does not wait for one sync per line.
 */
export async function openManifest(path: string, scope: ManifestScope): Promise<Manifest> {
  await refuseIfNotRegular(path);
  const lock = await lockManifest(path);
  try {
    let handle = await openForAppend(path);
    try {
      const read = await readRecords(handle, path, scope);
      if (read.superseded > 0 || read.tornBytes > 0 || read.missingNewline) {
        await handle.close();
        await rewrite(path, read.all.values());
        handle = await openForAppend(path);
      }
      return new ManifestFile(handle, lock, scope, read.previous, read.ignored);
    } catch (error) {
      await handle.close().catch(() => undefined);
      throw error;
    }
  } catch (error) {
    await lock.release();
    throw error;
  }
}

function refusal(path: string, message: string): ValidationError {
  return new ValidationError(OPERATION, [{ path: ['manifest'], message: `manifest "${path}" ${message}` }]);
}

const LINK_REFUSED = 'is a symbolic link: pass the path of the manifest file itself (a link is refused: whoever can write its folder could point it at another file)';

/** Refuses a path that exists and is not a regular file, before anything opens it (a FIFO would block an open). */
async function refuseIfNotRegular(path: string): Promise<void> {
  let kind: string;
  try {
    const stats = await lstat(path);
    if (stats.isFile()) return;
    if (stats.isSymbolicLink()) throw refusal(path, LINK_REFUSED);
    kind = stats.isDirectory() ? 'a directory' : stats.isFIFO() ? 'a FIFO (named pipe)' : stats.isSocket() ? 'a socket' : 'a device or other special file';
  } catch (error) {
    if (error instanceof ValidationError) throw error;
    if ((error as { code?: string }).code === 'ENOENT') return; // created by the open
    throw refusal(path, `cannot be read (${codeOf(error)}): pass the path of a regular file you can write`);
  }
  throw refusal(path, `is ${kind}, not a regular file: pass the path of a manifest file (created when missing)`);
}

async function openForAppend(path: string): Promise<FileHandle> {
  let handle: FileHandle;
  try {
    // O_NONBLOCK: a FIFO swapped in since the check opens at once rather than waiting for a writer; fstat then refuses it.
    const flags = constants.O_RDWR | constants.O_CREAT | constants.O_APPEND | NOFOLLOW | (constants.O_NONBLOCK ?? 0) | (DSYNC ?? 0);
    handle = await open(path, flags, 0o644);
  } catch (error) {
    // A link swapped in since the check (ELOOP: O_NOFOLLOW refused it).
    if ((error as { code?: string }).code === 'ELOOP') throw refusal(path, LINK_REFUSED);
    throw refusal(path, `cannot be opened (${codeOf(error)}): pass the path of a regular file you can write`);
  }
  if (!(await handle.stat()).isFile()) {
    await handle.close();
    throw refusal(path, 'is not a regular file: pass the path of a manifest file (created when missing)');
  }
  return handle;
}

interface ReadResult {
  /** This scope's last record per path. */
  previous: Map<string, ManifestRecord>;
  /** Every scope's last record per room, origin and path, in the order first seen (what a compaction writes). */
  all: Map<string, ManifestRecord>;
  ignored: { otherScope: number; unscoped: number };
  /** Lines a later line of the same key made useless. */
  superseded: number;
  /** Bytes of a last line cut short that does not parse (to drop). */
  tornBytes: number;
  /** The last line is a whole record without its newline (to keep). */
  missingNewline: boolean;
}

/** Reads the manifest line by line, in bytes: a cut may fall inside a multi-byte character, and no string grows past a line. */
async function readRecords(handle: FileHandle, path: string, scope: ManifestScope): Promise<ReadResult> {
  const result: Omit<ReadResult, 'ignored'> = { previous: new Map(), all: new Map(), superseded: 0, tornBytes: 0, missingNewline: false };
  const otherPaths = new Set<string>();
  const unscopedPaths = new Set<string>();
  const buffer = Buffer.allocUnsafe(READ_BYTES);
  let pieces: Buffer[] = [];
  let pending = 0;
  let lineNumber = 0;
  let position = 0;
  const notRecord = (number: number) =>
    refusal(
      path,
      number === 1
        ? 'is not a manifest of svc-sdk (its first line is not a record): nothing was written to it; pass another path, or a new file'
        : `has a line ${number} that is not a record of svc-sdk: restore the file or pass another manifest (a line cut short by a crash, at the very end, is dropped without this error)`,
    );
  const take = (line: Buffer) => {
    lineNumber += 1;
    const record = line.length <= MAX_MANIFEST_LINE_BYTES ? parseRecord(line) : undefined;
    if (!record) throw notRecord(lineNumber);
    // Room, origin and path, any of them missing (a record of svc-sdk 0.3 names no room nor origin).
    const key = JSON.stringify([record.room, record.origin, record.path]);
    if (result.all.delete(key)) result.superseded += 1;
    result.all.set(key, record);
    if (record.room === scope.room && record.origin === scope.origin) result.previous.set(record.path, record);
    else if (record.room === undefined || record.origin === undefined) unscopedPaths.add(record.path);
    else otherPaths.add(record.path);
  };
  for (;;) {
    const { bytesRead } = await handle.read(buffer, 0, READ_BYTES, position);
    if (bytesRead === 0) break;
    position += bytesRead;
    let start = 0;
    // `end < bytesRead`: the buffer past this read still holds an earlier read's bytes, newlines included.
    for (let end = buffer.indexOf(NEWLINE, 0); end !== -1 && end < bytesRead; end = buffer.indexOf(NEWLINE, start)) {
      take(Buffer.concat([...pieces, buffer.subarray(start, end)]));
      pieces = [];
      pending = 0;
      start = end + 1;
    }
    // The rest of the read begins the next line (an empty rest, when the read ends with a newline, adds nothing).
    pending += bytesRead - start;
    // A line longer than any record: refused as it is, not held whole.
    if (pending > MAX_MANIFEST_LINE_BYTES) throw notRecord(lineNumber + 1);
    pieces.push(Buffer.from(buffer.subarray(start, bytesRead)));
  }
  // The bytes after the last newline. None (an empty file, or one that ends with a newline) is no
  // record and starts as every record does (nothing to compare): 0 torn bytes, nothing changes.
  const last = Buffer.concat(pieces);
  if (parseRecord(last)) {
    take(last);
    result.missingNewline = true;
  } else if (lineNumber === 0 && !startsLikeRecord(last)) {
    // Not a first line cut short by a crash (those start as every record does): someone's file.
    take(last);
  } else {
    result.tornBytes = pending;
  }
  for (const known of result.previous.keys()) {
    otherPaths.delete(known);
    unscopedPaths.delete(known);
  }
  return { ...result, ignored: { otherScope: otherPaths.size, unscoped: unscopedPaths.size } };
}

function startsLikeRecord(bytes: Buffer): boolean {
  const length = Math.min(bytes.length, RECORD_START.length);
  return bytes.subarray(0, length).equals(RECORD_START.subarray(0, length));
}

function parseRecord(line: Buffer): ManifestRecord | undefined {
  let record: Record<string, unknown> | null | undefined;
  try {
    record = JSON.parse(line.toString('utf8')) as Record<string, unknown> | null;
  } catch {
    // Not JSON: `record` stays undefined, which the path check below refuses.
  }
  // null, a number, a string or an array has no string `path`: refused with the rest.
  const optionalNumber = (field: unknown) => field === undefined || typeof field === 'number';
  const optionalString = (field: unknown) => field === undefined || typeof field === 'string';
  if (typeof record?.['path'] !== 'string' || !STATES.includes(record['state'] as ManifestState)) return undefined;
  if (!optionalNumber(record['size']) || !optionalNumber(record['mtimeMs']) || !optionalNumber(record['documentId']) || !optionalNumber(record['room'])) return undefined;
  if (!optionalString(record['sha256']) || !optionalString(record['error']) || !optionalString(record['origin'])) return undefined;
  return record as unknown as ManifestRecord;
}

/** One record as its line: the fields in one order, `path` first (startsLikeRecord relies on it). */
function toLine(record: ManifestRecord): string {
  const { path, state, size, mtimeMs, sha256, documentId, error, room, origin } = record;
  return `${JSON.stringify({ path, state, size, mtimeMs, sha256, documentId, error, room, origin })}\n`;
}

/**
 * Replaces the manifest with `records`, crash-safe: a temporary file beside it, written and synced,
 * renamed over it, the directory synced. A kill at any point leaves the old file or the new one whole.
 */
async function rewrite(path: string, records: Iterable<ManifestRecord>): Promise<void> {
  // A new file of a name nobody can guess, created exclusively and never through a link (O_EXCL |
  // O_NOFOLLOW): a name known in advance lets whoever can write the folder plant a link there, which
  // the write would follow and the rename move over the manifest. A copy left by a kill keeps its
  // own name (uploadMany leaves every `<manifest>.compact…` out of a folder's files).
  const temporary = `${path}${MANIFEST_COMPANIONS.compaction}.${randomBytes(6).toString('hex')}`;
  const handle = await open(temporary, constants.O_WRONLY | constants.O_CREAT | constants.O_EXCL | NOFOLLOW, 0o644);
  try {
    try {
      // Written in batches of records (tens of KiB; at most 16 MiB, a line being at most 64 KiB), never
      // the whole file as one string.
      const list = [...records];
      for (let start = 0; start < list.length; start += WRITE_RECORDS) {
        await handle.write(list.slice(start, start + WRITE_RECORDS).map(toLine).join(''));
      }
      await handle.datasync();
    } finally {
      await handle.close();
    }
    await rename(temporary, path);
  } catch (error) {
    // A disk full, a rename refused: the manifest stays as it was, and its copy goes.
    await unlink(temporary).catch(() => undefined);
    throw error;
  }
  await syncDirectory(dirname(path));
}

async function syncDirectory(directory: string): Promise<void> {
  try {
    const handle = await open(directory); // read-only, the default
    try {
      await handle.sync();
    } finally {
      await handle.close();
    }
  } catch {
    // Windows cannot open a directory: the rename is as durable as that platform makes it.
  }
}

function codeOf(error: unknown): string {
  return (error as { code?: string }).code ?? String(error);
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
  readonly ignored: { readonly otherScope: number; readonly unscoped: number };
  readonly #handle: FileHandle;
  readonly #lock: ManifestLock;
  readonly #scope: ManifestScope;
  #waiting: Waiting[] = [];
  #flushing: Promise<void> | undefined;
  /** An outcome line's flush, due at the next turn of the event loop. */
  #soon: NodeJS.Immediate | undefined;

  constructor(handle: FileHandle, lock: ManifestLock, scope: ManifestScope, previous: ReadonlyMap<string, ManifestRecord>, ignored: Manifest['ignored']) {
    this.#handle = handle;
    this.#lock = lock;
    this.#scope = scope;
    this.previous = previous;
    this.ignored = ignored;
  }

  append(record: ManifestRecord): Promise<void> {
    const line = toLine({ ...record, room: this.#scope.room, origin: this.#scope.origin });
    return new Promise((resolve, reject) => {
      this.#waiting.push({ line, urgent: record.state === 'sending', resolve, reject });
      // A `sending` line holds its body back: written at once. An outcome line holds nothing back:
      // it waits one turn of the event loop, in which the worker that settled the file usually
      // appends its next file's `sending` line, so both go in one synced write (a synced write
      // costs 130-150 µs of CPU and about 1 ms here: one per file instead of two). During a flush,
      // #flushNow leaves the running one be: it goes on with a waiting `sending` line, and leaves
      // outcome lines alone for the next turn (#flush).
      if (record.state === 'sending') this.#flushNow();
      else this.#soon ??= setImmediate(() => this.#flushNow());
    });
  }

  #flushNow(): void {
    clearImmediate(this.#soon); // none pending (undefined): nothing to clear
    this.#soon = undefined;
    this.#flushing ??= this.#flush();
  }

  /** Started by #flushNow only, with a line waiting (append pushes first; #soon is set only while one waits). */
  async #flush(): Promise<void> {
    do {
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
    } while (this.#waiting.some((waiting) => waiting.urgent));
    this.#flushing = undefined;
    if (this.#waiting.length > 0) this.#soon ??= setImmediate(() => this.#flushNow());
  }

  async close(): Promise<void> {
    try {
      // Every line on disk first, the outcome lines that wait for a turn included.
      while (this.#flushing || this.#soon) {
        this.#flushNow(); // starts the waiting outcome lines' flush, or leaves the running one be
        await this.#flushing;
      }
      await this.#handle.close();
    } finally {
      await this.#lock.release();
    }
  }
}
