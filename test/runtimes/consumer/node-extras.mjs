// The Node-only part of the package, which the `node` export condition selects (Node, and Bun and
// Deno, which match `node` too): uploads from a file on disk (`fileFromPath`) and from a Node Readable.
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { Readable } from 'node:stream';

/** Runs the Node-only checks with the package as the entry loaded it; resolves with what it saw. */
export async function runNodeExtras({ sdk, baseUrl }) {
  if (typeof sdk.fileFromPath !== 'function') throw new Error('scenario check failed: the node build exports fileFromPath');
  const client = new sdk.Client({ apiKey: 'vdr_runtime_matrix_key', baseUrl, maxRetries: 0, timeout: 15_000 });
  const room = await client.rooms.create({ name: 'Node extras', room_type: 'company_investment' });
  const dir = await mkdtemp(path.join(tmpdir(), 'svc-sdk-extras-'));
  try {
    const file = path.join(dir, 'deck-notes.txt');
    await writeFile(file, 'Notes read from disk by fileFromPath.\n'.repeat(1024));
    const fromDisk = await client.documents.upload(room.id, await sdk.fileFromPath(file));
    if (fromDisk.original_filename !== 'deck-notes.txt') {
      throw new Error(`scenario check failed: fileFromPath kept the file's name (got ${fromDisk.original_filename})`);
    }
    const stream = Readable.from([Buffer.from('Notes from a Node Readable, '), Buffer.from('in two chunks.')]);
    const fromStream = await client.documents.upload(room.id, stream, { filename: 'stream-notes.txt' });
    if (!Number.isInteger(fromStream.id) || fromStream.id === fromDisk.id) {
      throw new Error(`scenario check failed: a Node Readable upload returned a new id (got ${fromStream.id})`);
    }
    return { fromDisk: fromDisk.id, fromStream: fromStream.id };
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
