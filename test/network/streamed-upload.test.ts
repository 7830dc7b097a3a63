import { spawn, type ChildProcess } from 'node:child_process';
import { createHash, randomBytes } from 'node:crypto';
import { join } from 'node:path';
import { Readable } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { Client } from '../../src/index.node.js';
import { reportMissing, scratch, selfSigned, startTinyproxy, tools, type RunningProxy } from './proxies.js';

// A streamed upload through tinyproxy (CONNECT) to a TLS receiver on loopback (upload-receiver.mjs,
// a process of its own): the upload is generated chunk by chunk as fetch asks for it (never held
// whole), the receiver hashes the file part as it arrives (never holds it either), and this, the
// client's process, stays within a bound of memory well under the upload's size.
// A minute's scale by default (128 MiB); the 1 GiB with NETWORK_PROOF=full.
const FULL = process.env.NETWORK_PROOF === 'full';
const SIZE = FULL ? 1024 ** 3 : 128 * 1024 ** 2;
const CHUNK = 64 * 1024;
/**
 * What the client process's RSS may grow by while the upload runs: half the default upload, so an
 * SDK that held the body (or a copy of it) fails, with room for V8's heap, undici's and TLS's buffers
 * and the garbage of chunks sent but not yet collected (about 30 MiB, the same at 128 MiB and 1 GiB).
 */
const MEMORY_BOUND = 64 * 1024 ** 2;

/** The upload's bytes, generated as they are read: chunk `i` is a random block stamped with `i`, so order and content both count in the digest. */
function generated(size: number): { stream: Readable; digest: () => string } {
  const block = randomBytes(CHUNK);
  const hash = createHash('sha256');
  async function* chunks() {
    for (let at = 0, index = 0; at < size; at += CHUNK, index++) {
      const chunk = Buffer.from(block.subarray(0, Math.min(CHUNK, size - at)));
      chunk.writeUInt32BE(index, 0);
      hash.update(chunk);
      yield chunk;
    }
  }
  return { stream: Readable.from(chunks(), { objectMode: false }), digest: () => hash.digest('hex') };
}

/** What the receiver saw of one upload: the request line, and the file part's length and digest. */
interface Received {
  request: string;
  bytes: number;
  digest: string;
}

/** Starts upload-receiver.mjs with the key and certificate files; resolves once it listens. */
function startReceiver(keyFile: string, certFile: string): Promise<{ url: string; next: () => Promise<Received>; stop: () => Promise<void> }> {
  const script = fileURLToPath(new URL('./upload-receiver.mjs', import.meta.url));
  const child: ChildProcess = spawn(process.execPath, [script, keyFile, certFile], { stdio: ['ignore', 'pipe', 'inherit'] });
  const lines: unknown[] = [];
  const waiting: ((line: unknown) => void)[] = [];
  let rest = '';
  child.stdout!.on('data', (chunk: Buffer) => {
    rest += chunk;
    for (let end = rest.indexOf('\n'); end >= 0; end = rest.indexOf('\n')) {
      const line = JSON.parse(rest.slice(0, end)) as unknown;
      rest = rest.slice(end + 1);
      const waiter = waiting.shift();
      if (waiter) waiter(line);
      else lines.push(line);
    }
  });
  const next = () => (lines.length ? Promise.resolve(lines.shift()) : new Promise<unknown>((resolve) => waiting.push(resolve)));
  return next().then((first) => ({
    url: `https://127.0.0.1:${(first as { port: number }).port}`,
    next: () => next() as Promise<Received>,
    stop: async () => {
      if (child.exitCode !== null) return;
      const exited = new Promise((resolve) => child.once('exit', resolve));
      child.kill('SIGTERM');
      await exited;
    },
  }));
}

reportMissing('openssl', 'tinyproxy');

describe.skipIf(!tools.openssl || !tools.tinyproxy)(`a ${FULL ? '1 GiB' : '128 MiB'} streamed upload through tinyproxy`, () => {
  const work = scratch('svc-streamed-upload-');
  let receiver: Awaited<ReturnType<typeof startReceiver>>;
  let proxy: RunningProxy;
  let cert: string;
  beforeAll(async () => {
    const made = selfSigned(work.dir);
    cert = made.cert;
    receiver = await startReceiver(join(work.dir, 'origin-key.pem'), made.certFile);
    proxy = await startTinyproxy(work.dir);
  });
  afterAll(async () => {
    await proxy?.stop();
    await receiver?.stop();
    work.remove();
  });

  it("arrives whole (bytes and digest at the receiver), tunnelled by the proxy, with the client process's memory bounded", async () => {
    const client = new Client({ apiKey: 'vdr_upload_test', baseUrl: receiver.url, proxy: proxy.url, ca: cert, maxRetries: 0 });
    // A first, small upload loads what any upload needs (undici, the TLS context, the tunnel): not counted.
    const small = generated(CHUNK);
    await client.documents.upload(3, small.stream, { filename: 'generated.bin' });
    expect(await receiver.next()).toEqual({ request: 'POST /api/v1/rooms/3/documents', bytes: CHUNK, digest: small.digest() });
    const upload = generated(SIZE);
    const before = process.memoryUsage().rss;
    let peak = before;
    const sampler = setInterval(() => (peak = Math.max(peak, process.memoryUsage().rss)), 20);
    try {
      expect(await client.documents.upload(3, upload.stream, { filename: 'generated.bin', timeout: 30 * 60_000 })).toMatchObject({ id: 7 });
    } finally {
      clearInterval(sampler);
    }
    peak = Math.max(peak, process.memoryUsage().rss);
    expect(await receiver.next()).toEqual({ request: 'POST /api/v1/rooms/3/documents', bytes: SIZE, digest: upload.digest() });
    expect(proxy.log()).toMatch(new RegExp(`CONNECT 127\\.0\\.0\\.1:${new URL(receiver.url).port}`));
    expect(peak - before, `the client process grew by ${Math.round((peak - before) / 1024 ** 2)} MiB`).toBeLessThan(MEMORY_BOUND);
  }, FULL ? 30 * 60_000 : 180_000);
});
