// Uploads a generated ~50 MB file from disk with a text progress bar.
//
//   npm run build && node examples/upload-progress.mjs    against the local emulator (or a plain local server)
//   SVC_BASE_URL=… SVC_API_KEY=vdr_… SVC_ROOM_ID=42 node examples/upload-progress.mjs    against a deployment
import { createServer } from 'node:http';
import { closeSync, openSync, rmSync, writeSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client, fileFromPath } from 'svc-sdk';

const SIZE = 50 * 1024 * 1024;

// 1. A file on disk, written in 1 MiB chunks (never whole in memory).
const path = join(tmpdir(), `svc-sdk-example-${process.pid}.pdf`);
const chunk = Buffer.alloc(1024 * 1024, 'svc-sdk upload example\n');
const fd = openSync(path, 'w');
for (let written = 0; written < SIZE; written += chunk.length) writeSync(fd, chunk);
closeSync(fd);

// 2. The service: a deployment, the emulator from `svc-sdk/testing`, or a plain local server.
let baseUrl = process.env.SVC_BASE_URL;
let apiKey = process.env.SVC_API_KEY;
let roomId = Number(process.env.SVC_ROOM_ID);
let stop = async () => {};
if (!baseUrl || !apiKey) {
  apiKey = 'vdr_example_key';
  try {
    const { createEmulator } = await import('svc-sdk/testing');
    const server = await createEmulator().listen(0);
    baseUrl = server.url;
    stop = server.close;
    console.log(`emulator listening on ${baseUrl}`);
  } catch {
    // The emulator's optional peers (msw, @hono/node-server) are not installed: a server that only takes uploads.
    const server = createServer((request, response) => {
      let size = 0;
      request.on('data', (data) => (size += data.length));
      request.on('end', () => {
        response.writeHead(201, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ success: true, data: { id: 1, original_filename: 'report.pdf', size } }));
      });
    });
    await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
    baseUrl = `http://127.0.0.1:${server.address().port}`;
    stop = () => new Promise((resolve) => server.close(resolve));
    console.log(`local upload server on ${baseUrl}`);
  }
}
const client = new Client({ apiKey, baseUrl });
if (!Number.isInteger(roomId) || roomId <= 0) {
  roomId = (await client.rooms.create({ name: 'Upload example', room_type: 'company_investment' }).catch(() => ({ id: 1 }))).id;
}

// 3. The upload, streamed from disk, with a progress bar redrawn in place.
function draw({ loaded, total }) {
  const width = 30;
  const mb = (bytes) => (bytes / 1e6).toFixed(1);
  if (total === undefined) return process.stdout.write(`\r${mb(loaded)} MB sent`);
  const filled = Math.round((loaded / total) * width);
  process.stdout.write(`\r[${'#'.repeat(filled)}${'.'.repeat(width - filled)}] ${Math.floor((loaded / total) * 100)}% ${mb(loaded)}/${mb(total)} MB`);
}

try {
  const started = performance.now();
  const document = await client.documents.upload(roomId, await fileFromPath(path, { filename: 'report.pdf' }), {
    onUploadProgress: draw,
    timeout: 10 * 60_000, // the timeout covers sending the body: give a large file time
  });
  process.stdout.write('\n');
  console.log(`uploaded document ${document.id} (${document.original_filename}) in ${((performance.now() - started) / 1000).toFixed(1)} s`);
} finally {
  rmSync(path, { force: true });
  await stop();
}
