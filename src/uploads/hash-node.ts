import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import { open } from 'node:fs/promises';
import type { HashedSource, Hasher, ListedFile } from './file-system.js';

/**
 * Files up to this size are read whole, in one read, and sent as bytes: two trips to libuv's thread
 * pool (open, read) where a stream takes five (open, stat for the Content-Length, read, the read
 * that finds the end, close), each a wait for the event loop that a file of a few KiB feels as much
 * as its upload. Memory stays bounded: concurrency (at most 64) × 1 MiB.
 */
export const WHOLE_READ_BYTES = 1024 * 1024;

/**
 * Opens a listed file for upload, hashed in the same read that uploads it (no second pass over the
 * file): read whole when small, else streamed.
 */
export async function openHashed(file: ListedFile): Promise<HashedSource> {
  if (file.size <= WHOLE_READ_BYTES) {
    const bytes = await readWhole(file);
    if (bytes) {
      const sha256 = createHash('sha256').update(bytes).digest('hex');
      // Bytes: their size gives a Content-Length, and progress tells when they are sent.
      return { file: bytes, exhausted: false, sha256: () => sha256 };
    }
  }
  return openStream(file);
}

/**
 * The file's bytes, or undefined when it no longer has its listed size (it changed since the
 * listing): it is then streamed as it is now, as any larger file.
 */
async function readWhole(file: ListedFile): Promise<Uint8Array | undefined> {
  const handle = await open(file.absolutePath, 'r');
  try {
    // One byte more than listed: a file that grew is noticed rather than cut short.
    const buffer = Buffer.allocUnsafe(file.size + 1);
    const { bytesRead } = await handle.read(buffer, 0, buffer.length, 0);
    return bytesRead === file.size ? buffer.subarray(0, bytesRead) : undefined;
  } finally {
    // Not awaited: closing is not on the way to the network. A failure to close leaks nothing to report.
    handle.close().catch(() => undefined);
  }
}

/**
 * A plain fs.ReadStream of the whole file with its `push` tapped, so the upload encoder gets its
 * size from `stat` (a Content-Length, a progress total) and the hash costs no second read. fs's
 * 64 KiB reads: 256 and 512 KiB saved no measurable CPU over 8 × 256 MiB (4.8-5.6 s either way,
 * load 14-16) and raised peak RSS from 123-129 MB to 143-231 MB (fetch holds views of each read).
 */
function openStream(file: ListedFile): HashedSource {
  const stream = createReadStream(file.absolutePath);
  const hash = createHash('sha256');
  let digest: string | undefined;
  let ended = false;
  const push = stream.push.bind(stream);
  stream.push = (chunk: unknown, encoding?: BufferEncoding) => {
    if (chunk === null) digest ??= hash.digest('hex');
    else hash.update(chunk as Uint8Array);
    return push(chunk, encoding);
  };
  // 'end': the consumer (the upload) has taken every byte, not merely the file read to its end.
  stream.once('end', () => {
    ended = true;
  });
  return {
    file: stream,
    get exhausted() {
      return ended;
    },
    sha256: () => (ended ? digest : undefined),
  };
}

/** SHA-256 of a whole file, streamed (a rerun checking the files it may skip). */
export async function hashFile(path: string): Promise<string> {
  const hash = createHash('sha256');
  for await (const chunk of createReadStream(path)) hash.update(chunk as Buffer);
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
