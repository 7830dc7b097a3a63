import { createHash } from 'node:crypto';
import { close, constants, createReadStream, fstat, open, read, type Stats } from 'node:fs';
import { promisify } from 'node:util';
import { ValidationError } from '../core/errors.js';
import { withKnownSize } from './encode.js';
import type { HashedSource, Hasher, ListedFile } from './file-system.js';

/**
 * Files up to this size are read whole, in one read, and sent as bytes: two trips to libuv's thread
 * pool (open, read) where a stream takes five (open, stat for the Content-Length, read, the read
 * that finds the end, close), each a wait for the event loop that a file of a few KiB feels as much
 * as its upload. Memory stays bounded: concurrency (at most 64) × 1 MiB.
 */
// 1 MiB as a literal: a product would be computed once, at import, where mutation testing cannot vary it
// (the boundary itself is tested: upload-many-manifest.test.ts).
export const WHOLE_READ_BYTES = 1_048_576;

/**
 * How a listed file is opened: never through a link (O_NOFOLLOW: a file replaced by a symbolic link
 * since the listing fails with ELOOP instead of sending what the link points to), and without
 * waiting on a FIFO swapped in (O_NONBLOCK; the fstat check then refuses it).
 */
function safeOpenFlags(): number {
  // Read at each open, not at import: mutation testing then runs the FIFO and link tests against these very flags.
  return constants.O_RDONLY | (constants.O_NOFOLLOW ?? 0) | (constants.O_NONBLOCK ?? 0);
}

/**
 * Opens a listed file for upload, hashed in the same read that uploads it (no second pass over the
 * file): read whole when small, else streamed; always through the one descriptor checked against the
 * listing (openChecked).
 *
 * A file resized since the listing is refused (a ValidationError: nothing sent; the rerun lists it
 * anew). One that changes while it is being sent is sent as it is read, never more than its listed
 * size: the record then holds the size and SHA-256 of the bytes actually sent (HashedSource.size),
 * and a file that shrank mid-read ends its body short of its Content-Length, so the service never
 * gets the whole body (`failed`).
 */
export async function openHashed(file: ListedFile): Promise<HashedSource> {
  const fd = await openChecked(file);
  if (file.size <= WHOLE_READ_BYTES) {
    try {
      const bytes = await readWhole(fd, file);
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      // Bytes: their size gives a Content-Length, and progress tells when they are sent.
      // Its size is the listed one (readWhole refuses any other): the run records that.
      return { file: bytes, exhausted: false, sha256: () => sha256, size: () => undefined };
    } finally {
      // Not awaited: closing is not on the way to the network. A failure to close leaks nothing to report.
      closeQuietly(fd);
    }
  }
  return openStream(fd, file);
}

/*
 * A numeric descriptor and fs's callback functions, not a FileHandle: a stream over a FileHandle
 * reads through its promise API (a promise per 64 KiB read), which over 8 × 256 MiB cost uploadMany
 * 5.07 s of CPU and 157 MB peak RSS where this costs 4.66 s and 129 MB (one bench run, A/B), as
 * fs.createReadStream(path) did before the safe reading.
 */
const openFd = promisify(open);
const fstatFd = promisify(fstat);
const readFd = promisify(read);

function closeQuietly(fd: number): void {
  close(fd, () => undefined);
}

/** Opens a listed file by its path without following a link, and checks it is the very file listed; resolves its descriptor. */
async function openChecked(file: ListedFile): Promise<number> {
  let fd: number;
  try {
    fd = await openFd(file.absolutePath, safeOpenFlags());
  } catch (error) {
    const code = (error as { code?: string }).code ?? String(error);
    const why = code === 'ELOOP' ? 'was replaced by a symbolic link since it was listed (links are never followed)' : `cannot be opened (${code})`;
    throw refused(file, `${why}: nothing was sent`);
  }
  let stats: Stats;
  try {
    stats = await fstatFd(fd);
  } catch (error) {
    closeQuietly(fd);
    throw error;
  }
  const problem = !stats.isFile()
    ? 'is no longer a regular file'
    : stats.dev !== file.dev || stats.ino !== file.ino
      ? 'was replaced by another file since it was listed'
      : stats.size !== file.size
        ? `changed size since it was listed (${file.size} → ${stats.size} bytes)`
        : undefined;
  if (problem) {
    closeQuietly(fd);
    throw refused(file, `${problem}: nothing was sent; run again to send it as it is then`);
  }
  return fd;
}

function refused(file: ListedFile, message: string): ValidationError {
  return new ValidationError('documents.uploadMany', [{ path: ['inputs', file.path], message: `"${file.path}" ${message}` }]);
}

/** The file's listed bytes, read through the checked descriptor; a file that changed size meanwhile is refused. */
async function readWhole(fd: number, file: ListedFile): Promise<Uint8Array> {
  // One byte more than listed: a file that grew is noticed rather than cut short.
  const buffer = Buffer.allocUnsafe(file.size + 1);
  let filled = 0;
  // Until the end of the file; a full buffer (the file grew) asks for 0 bytes next, and gets 0.
  for (;;) {
    const { bytesRead } = await readFd(fd, buffer, filled, buffer.length - filled, filled);
    if (bytesRead === 0) break;
    filled += bytesRead;
  }
  if (filled !== file.size) throw refused(file, `changed size while it was read (${file.size} → ${filled} bytes or more): nothing was sent; run again to send it as it is then`);
  return buffer.subarray(0, filled);
}

/**
 * A stream of the checked descriptor's first `size` bytes, with its `push` tapped so the hash costs no
 * second read, and its size declared to the encoder (a Content-Length, a progress total). fs's
 * 64 KiB reads: 256 and 512 KiB saved no measurable CPU over 8 × 256 MiB (4.8-5.6 s either way,
 * load 14-16) and raised peak RSS from 123-129 MB to 143-231 MB (fetch holds views of each read).
 */
function openStream(fd: number, file: ListedFile): HashedSource {
  // The path is not used with `fd` (fs never reopens it); it only names the stream.
  const stream = createReadStream(file.absolutePath, { fd, start: 0, end: file.size - 1, autoClose: true });
  const hash = createHash('sha256');
  let digest: string | undefined;
  let bytes = 0;
  let ended = false;
  const push = stream.push.bind(stream);
  stream.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk === null) digest ??= hash.digest('hex');
    else {
      hash.update(chunk as Uint8Array);
      bytes += (chunk as Uint8Array).byteLength;
    }
    return push(chunk, encoding);
  };
  // 'end': the consumer (the upload) has taken every byte, not merely the file read to its end.
  stream.once('end', () => {
    ended = true;
  });
  return {
    file: withKnownSize(stream, file.size),
    // Whole: every listed byte was taken. A file that shrank mid-read ends short of its Content-Length,
    // so fetch never completes the body and the service cannot have stored it (`failed`, as README says).
    get exhausted() {
      return ended && bytes === file.size;
    },
    sha256: () => (ended ? digest : undefined),
    size: () => (ended ? bytes : undefined),
  };
}

/** SHA-256 of a whole listed file (a rerun checking the files it may skip), opened and checked as for upload. */
export async function hashFile(file: ListedFile): Promise<string> {
  const fd = await openChecked(file);
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(file.absolutePath, { fd, start: 0, autoClose: true })) hash.update(chunk as Buffer);
  return hash.digest('hex');
}

/** An incremental SHA-256 over node:crypto. */
export function createHasher(): Hasher {
  const hash = createHash('sha256');
  return {
    update: (bytes) => void hash.update(bytes),
    digest: () => hash.digest('hex'),
  };
}
