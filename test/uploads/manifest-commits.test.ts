import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import type { ManifestRecord, ManifestState } from '../../src/uploads/file-system.js';
import { openManifest } from '../../src/uploads/manifest-node.js';
import { makeTree } from './upload-many-support.js';

// How the manifest's lines reach the disk (group commit): a `sending` line is written at once, an
// outcome line waits one turn of the event loop for a `sending` line to share its write, and every
// append resolves once its line is written, close or no close. Orders are read from the promises:
// a promise settled in the same write as another is already settled when that one's turn comes.

const SCOPE = { room: 1, origin: 'http://127.0.0.1:1' };
const PENDING = Symbol('pending');

const record = (path: string, state: ManifestState): ManifestRecord => ({ path, state, size: 1, mtimeMs: 1 });

/** Whether `promise` has settled already (its settlement, not a later one, decides the race). */
async function settled(promise: Promise<void>): Promise<boolean> {
  return (await Promise.race([promise, Promise.resolve(PENDING)])) !== PENDING;
}

async function openEmpty() {
  const path = join(makeTree({}), 'm.jsonl');
  const manifest = await openManifest(path, SCOPE);
  const lines = () =>
    readFileSync(path, 'utf8')
      .split('\n')
      .filter((line) => line !== '')
      .map((line) => {
        const { path: file, state } = JSON.parse(line) as ManifestRecord;
        return `${file} ${state}`;
      });
  return { manifest, lines };
}

describe('manifest lines on disk (group commit)', () => {
  it('writes a sending line at once, in a write of its own: it does not wait for a line appended after it', async () => {
    const { manifest, lines } = await openEmpty();
    const first = manifest.append(record('a.txt', 'sending'));
    const second = manifest.append(record('b.txt', 'sending'));
    await first;
    expect(await settled(second)).toBe(false);
    await second;
    expect(lines()).toEqual(['a.txt sending', 'b.txt sending']);
    await manifest.close();
  });

  it('writes a sending line that comes during a write next, before the outcome lines that come after it', async () => {
    const { manifest, lines } = await openEmpty();
    const first = manifest.append(record('a.txt', 'sending'));
    const second = manifest.append(record('b.txt', 'sending'));
    let outcome: Promise<void> | undefined;
    void first.then(() => {
      outcome = manifest.append(record('a.txt', 'uploaded'));
    });
    await second;
    expect(lines()).toEqual(['a.txt sending', 'b.txt sending']);
    // Resolves by itself (no close): written a turn later.
    await outcome;
    expect(lines()).toEqual(['a.txt sending', 'b.txt sending', 'a.txt uploaded']);
    await manifest.close();
  });

  it('holds an outcome line that comes during a write for a turn, so the next sending line shares its write', async () => {
    const { manifest, lines } = await openEmpty();
    const sending = manifest.append(record('a.txt', 'sending'));
    const outcome = manifest.append(record('a.txt', 'uploaded'));
    let next: Promise<void> | undefined;
    void sending.then(() => {
      next = manifest.append(record('b.txt', 'sending'));
    });
    await outcome;
    expect(await settled(next!)).toBe(true);
    expect(lines()).toEqual(['a.txt sending', 'a.txt uploaded', 'b.txt sending']);
    await manifest.close();
  });

  it('resolves an outcome line appended alone once it is written, without a close', async () => {
    const { manifest, lines } = await openEmpty();
    await manifest.append(record('a.txt', 'failed'));
    expect(lines()).toEqual(['a.txt failed']);
    await manifest.close();
  });
});
