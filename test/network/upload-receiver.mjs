// The receiving server of test/network/streamed-upload.test.ts, in a process of its own so the client
// process's memory is the client's alone: a TLS server (the key and certificate files in argv) that
// hashes the file part of each multipart upload as it streams in and prints what it saw, one JSON line
// per upload, after a first line with its port. The part's headers end at the first blank line, and
// its content ends before the closing `\r\n--boundary--\r\n`, whose length the boundary tells: only
// that many bytes are held back at any time, so nothing is held whole here either.
import { createHash } from 'node:crypto';
import { readFileSync } from 'node:fs';
import { createServer } from 'node:https';

const [keyFile, certFile] = process.argv.slice(2);
const server = createServer({ key: readFileSync(keyFile), cert: readFileSync(certFile) }, (request, response) => {
  const boundary = /boundary=(\S+)/.exec(request.headers['content-type'] ?? '')?.[1] ?? '';
  const trailer = Buffer.byteLength(`\r\n--${boundary}--\r\n`);
  const hash = createHash('sha256');
  let head = Buffer.alloc(0);
  let inHead = true;
  let held = Buffer.alloc(0);
  let bytes = 0;
  const take = (part) => {
    hash.update(part);
    bytes += part.length;
  };
  request.on('data', (chunk) => {
    if (inHead) {
      head = Buffer.concat([head, chunk]);
      const end = head.indexOf('\r\n\r\n');
      if (end < 0) return;
      chunk = head.subarray(end + 4);
      inHead = false;
    }
    // Whatever lies more than `trailer` bytes before the end so far is content: hashed now.
    if (chunk.length >= trailer) {
      take(held);
      take(chunk.subarray(0, chunk.length - trailer));
      held = Buffer.from(chunk.subarray(chunk.length - trailer));
    } else {
      held = Buffer.concat([held, chunk]);
      const ready = Math.max(0, held.length - trailer);
      take(held.subarray(0, ready));
      held = Buffer.from(held.subarray(ready));
    }
  });
  request.on('end', () => {
    process.stdout.write(`${JSON.stringify({ request: `${request.method} ${request.url}`, bytes, digest: hash.digest('hex') })}\n`);
    const text = JSON.stringify({ success: true, data: { id: 7, original_filename: 'generated.bin' } });
    response.writeHead(201, { 'content-type': 'application/json', 'content-length': Buffer.byteLength(text) });
    response.end(text);
  });
});
server.listen(0, '127.0.0.1', () => process.stdout.write(`${JSON.stringify({ port: server.address().port })}\n`));
process.on('SIGTERM', () => process.exit(0));
