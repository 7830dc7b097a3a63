import { createHash } from 'node:crypto';
import { mkdirSync, mkdtempSync, readdirSync, readFileSync, readlinkSync, rmSync, writeFileSync } from 'node:fs';
import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { tmpdir } from 'node:os';
import { basename, dirname, join } from 'node:path';
import { PassThrough } from 'node:stream';
import { fileURLToPath } from 'node:url';
import { build } from 'esbuild';
import { onTestFinished } from 'vitest';
import { sendJson, type useLoopbackServer } from '../support/loopback.js';
import type { CliIO } from '../../packages/cli/src/command.js';
import { Client, type ClientOptions } from '../../src/index.node.js';
import { createEmulator, type EmulatorFaults } from '../../src/testing/index.js';
import { SOURCE_ALIASES } from '../support/source-aliases.js';

export const API_KEY = 'vdr_upload_many_test';

/** A directory of files (relative path → content), removed after the test. */
export function makeTree(files: Record<string, string | Uint8Array>): string {
  const root = mkdtempSync(join(tmpdir(), 'svc-upload-many-'));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  for (const [path, content] of Object.entries(files)) {
    mkdirSync(dirname(join(root, 'tree', path)), { recursive: true });
    writeFileSync(join(root, 'tree', path), content);
  }
  mkdirSync(join(root, 'tree'), { recursive: true });
  return root;
}

export const sha256 = (content: string | Uint8Array) => createHash('sha256').update(content).digest('hex');

/**
 * The emulator over real sockets, a room, and a webhook receiver that sees every stored document
 * (`document.uploaded`): `stored()` is the emulator's own record of what it keeps, by filename.
 * `faults` apply from the first request after the setup (the 3rd the emulator answers).
 */
export async function emulatorWithRoom(faults: EmulatorFaults = {}, clientOptions: Partial<ClientOptions> = {}) {
  const events: Array<{ document_id: number; filename: string }> = [];
  const receiver = createServer((request, response) => {
    let body = '';
    request.on('data', (chunk: Buffer) => (body += chunk));
    request.on('end', () => {
      events.push((JSON.parse(body) as { data: { document_id: number; filename: string } }).data);
      response.writeHead(200, { 'content-type': 'application/json' }).end('{}');
    });
  });
  await new Promise<void>((resolve) => receiver.listen(0, '127.0.0.1', resolve));
  const emulator = createEmulator({ deliveryDelayMs: 0 });
  const server = await emulator.listen();
  onTestFinished(async () => {
    await emulator.close();
    receiver.closeAllConnections();
    await new Promise((resolve) => receiver.close(resolve));
  });
  const client = new Client({ apiKey: API_KEY, baseUrl: server.url, ...clientOptions });
  const room = await client.rooms.create({ name: 'Upload many', room_type: 'company_investment' });
  await client.webhooks.create({ url: `http://127.0.0.1:${(receiver.address() as AddressInfo).port}/hook`, name: 'watch', event_types: ['document.uploaded'] });
  // The faults start now: the room and the webhook above were created without them.
  Object.assign(emulator.faults, faults);
  /** How many documents the emulator stored under each filename, once every event is delivered. */
  const stored = async (): Promise<Record<string, number>> => {
    await emulator.settled();
    const counts: Record<string, number> = {};
    for (const { filename } of events) counts[filename] = (counts[filename] ?? 0) + 1;
    return counts;
  };
  return { emulator, server, client, roomId: room.id, stored, events };
}

/**
 * Bundles a script of the sources (src/ as it is now, not dist/) into one .mjs under
 * node_modules/.cache, for a child process run with the node running the tests (node 24 under npx).
 * The emulator's optional peers stay imports.
 */
export async function bundleForChild(entry: URL): Promise<string> {
  const name = basename(fileURLToPath(entry)).replace(/\.ts$/, '');
  const outdir = fileURLToPath(new URL(`../../node_modules/.cache/upload-many/${name}`, import.meta.url));
  await build({
    entryPoints: [fileURLToPath(entry)],
    bundle: true,
    platform: 'node',
    format: 'esm',
    target: 'node22',
    outdir,
    outExtension: { '.js': '.mjs' },
    external: ['msw', 'msw/*', '@hono/node-server', 'minisearch'],
    // The tool packages import the library by name: bundled from its sources as they are now.
    alias: { ...SOURCE_ALIASES },
    logLevel: 'error',
  });
  return join(outdir, `${name}.mjs`);
}

/** A CLI's io in memory (what `svc-sdk upload` writes, read back as text), for the commands run in process. */
export function memoryIO(env: Record<string, string | undefined>, tty = false) {
  const stdout = Object.assign(new PassThrough(), { isTTY: tty, columns: 100 });
  const stderr = new PassThrough();
  let out = '';
  let err = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk));
  stderr.on('data', (chunk: Buffer) => (err += chunk));
  const value: CliIO = { stdout, stderr, env };
  return { io: value, out: () => out, err: () => err };
}

/** Answers every upload the loopback `service` receives as stored (201), with ids 1, 2, 3… in order of arrival. */
export function storeEveryUpload(service: ReturnType<typeof useLoopbackServer>): void {
  let id = 0;
  service.handle((request, response) => {
    id += 1;
    sendJson(response, 201, { success: true, data: { id, room_id: 1, original_filename: /filename="([^"]*)"/.exec(request.body)?.[1], size: 1, status: 'stored' } });
  });
}

/** The open flags (octal in /proc/self/fdinfo) of this process's descriptor of `path` (Linux only). */
export function openFlags(path: string): number | undefined {
  if (process.platform !== 'linux') return undefined;
  for (const fd of readdirSync('/proc/self/fd')) {
    let target: string;
    try {
      target = readlinkSync(`/proc/self/fd/${fd}`);
    } catch {
      continue; // closed since the listing
    }
    if (target !== path) continue;
    const flags = /flags:\s*([0-7]+)/.exec(readFileSync(`/proc/self/fdinfo/${fd}`, 'utf8'));
    if (flags) return Number.parseInt(flags[1]!, 8);
  }
  return undefined;
}
