import { createHash } from 'node:crypto';
import { createReadStream } from 'node:fs';
import type { HashedSource, Hasher, ListedFile } from './file-system.js';

/**
 * Opens a listed file for upload, hashed while it streams. It stays a plain fs.ReadStream of the whole
 * file (its `push` is tapped), so the upload encoder gets its size from `stat` (a Content-Length, a
 * progress total) and streams it in small chunks: the hash costs no second read of the file.
 */
export function openHashed(file: ListedFile): HashedSource {
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

/** SHA-256 of a whole file, streamed. */
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
