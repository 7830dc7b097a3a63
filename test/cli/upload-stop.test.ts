// `svc-sdk upload` run in process, stopped by signals emitted on this process (no real signal is sent:
// the listeners are what one reaches): the first stops new files, the second aborts the one being
// sent; each says so on stderr, and the run exits as a shell reports the first signal. The bin in a
// terminal, on a real Ctrl+C: upload-pty.test.ts.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { upload } from '../../packages/cli/src/commands/upload.js';
import { makeTree, memoryIO } from '../uploads/upload-many-support.js';
import { refusingService } from './upload-support.js';

const FILES = { 'a.txt': 'alpha', 'b.txt': 'bravo', 'c.txt': 'charlie' };

async function until(check: () => boolean): Promise<void> {
  for (let waited = 0; !check(); waited += 10) {
    if (waited > 10_000) throw new Error('timed out');
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

describe('svc-sdk upload stopped by signals', () => {
  it.each([
    ['SIGINT', 130, 'Ctrl+C'],
    ['SIGTERM', 143, 'SIGTERM'],
  ] as const)('a first %s lets the file being sent finish, starts no other, and exits %i', async (signal, code, again) => {
    const root = makeTree(FILES);
    const service = await refusingService(() => ({ status: 500, error: 'down' }), 300);
    const memory = memoryIO({ SVC_API_KEY: 'vdr_x', SVC_BASE_URL: service.url });
    const args = [join(root, 'tree'), '--room', '7', '--manifest', join(root, 'm.jsonl'), '--concurrency', '1'];
    const running = upload.run(args, memory.io);
    await until(() => service.seen.length === 1);
    process.emit(signal, signal);
    expect(await running).toBe(code);
    expect(service.seen).toHaveLength(1);
    expect(memory.err()).toContain(`\n[svc-sdk] ${signal}: no new file starts; the files being sent finish (${again} again aborts them)\n`);
    expect(memory.err()).not.toContain('aborting');
    // A 500 after the whole body: it may be stored.
    expect(memory.out()).toMatch(/^unknown +1 /m);
    expect(memory.out()).toContain(`\nstopped: ${signal} received, no file started after it; the files being sent finished\n`);
    expect(memory.out()).toMatch(/^not started +2 /m);
  });

  it('a second signal aborts the file being sent, and the first signal still sets the exit code', async () => {
    const root = makeTree(FILES);
    const service = await refusingService(() => ({ status: 500, error: 'down' }), 5_000);
    const memory = memoryIO({ SVC_API_KEY: 'vdr_x', SVC_BASE_URL: service.url });
    const args = [join(root, 'tree'), '--room', '7', '--manifest', join(root, 'm.jsonl'), '--concurrency', '1'];
    const began = Date.now();
    const running = upload.run(args, memory.io);
    await until(() => service.seen.length === 1);
    process.emit('SIGINT', 'SIGINT');
    process.emit('SIGTERM', 'SIGTERM');
    expect(await running).toBe(130);
    // Aborted, not answered: well before the service's 5 s.
    expect(Date.now() - began).toBeLessThan(4_000);
    expect(memory.err()).toContain('\n[svc-sdk] SIGTERM again: aborting the files being sent (their outcome goes to the manifest)\n');
    expect(memory.out()).toMatch(/^not started +2 /m);
  });

  it('--manifest "" is refused: it must be a file path', async () => {
    const memory = memoryIO({});
    await expect(upload.run(['dir', '--room', '7', '--manifest', ''], memory.io)).rejects.toThrow('--manifest must be a file path');
  });
});
