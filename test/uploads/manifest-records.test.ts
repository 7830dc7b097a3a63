import { readFileSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { ValidationError } from '../../src/index.node.js';
import { openManifest } from '../../src/uploads/manifest-node.js';
import { makeTree } from './upload-many-support.js';

// What openManifest takes for a record, and whose records it uses: every field's type checked, and
// records kept apart by room and by service origin.

const SCOPE = { room: 1, origin: 'http://127.0.0.1:1' };
const OTHER_ORIGIN = 'http://127.0.0.1:2';
const line = (fields: Record<string, unknown>) => `${JSON.stringify(fields)}\n`;
const good = line({ path: 'a.txt', state: 'uploaded', size: 1, ...SCOPE });

describe('openManifest: what a record is', () => {
  it.each([
    ['null', 'null\n'],
    ['a number', '5\n'],
    ['a string', '"text"\n'],
    ['an array', '[]\n'],
    ['a path that is not a string', line({ path: 5, state: 'sending', ...SCOPE })],
    ['an unknown state', line({ path: 'b.txt', state: 'stored', ...SCOPE })],
    ['a size that is not a number', line({ path: 'b.txt', state: 'sending', size: '1', ...SCOPE })],
    ['an mtime that is not a number', line({ path: 'b.txt', state: 'sending', mtimeMs: '1', ...SCOPE })],
    ['a document id that is not a number', line({ path: 'b.txt', state: 'uploaded', documentId: '1', ...SCOPE })],
    ['a room that is not a number', line({ path: 'b.txt', state: 'sending', room: '1', origin: SCOPE.origin })],
    ['a hash that is not a string', line({ path: 'b.txt', state: 'uploaded', sha256: 1, ...SCOPE })],
    ['an error that is not a string', line({ path: 'b.txt', state: 'failed', error: 1, ...SCOPE })],
    ['an origin that is not a string', line({ path: 'b.txt', state: 'sending', room: 1, origin: 1 })],
  ])('refuses a line that is %s, naming the line, with not a byte written', async (_kind, bad) => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    writeFileSync(manifest, good + bad + good);
    const call = openManifest(manifest, SCOPE);
    await expect(call).rejects.toBeInstanceOf(ValidationError);
    await expect(call).rejects.toThrow(`manifest "${manifest}" has a line 2 that is not a record of svc-sdk`);
    expect(readFileSync(manifest, 'utf8')).toBe(good + bad + good);
  });

  it('drops a last line cut short even when it does not start as a record does, keeping the records before it', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    writeFileSync(manifest, `${good}xyz`);
    const opened = await openManifest(manifest, SCOPE);
    expect([...opened.previous.keys()]).toEqual(['a.txt']);
    await opened.close();
    expect(readFileSync(manifest, 'utf8')).toBe(good);
  });
});

describe('openManifest: whose records', () => {
  it("uses neither another origin's records for the same room nor another room's, counts them once, and keeps them through a compaction", async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    const otherOrigin = line({ path: 'a.txt', state: 'uploaded', size: 1, room: 1, origin: OTHER_ORIGIN });
    const otherRoom = line({ path: 'b.txt', state: 'uploaded', size: 1, room: 2, origin: SCOPE.origin });
    const theirs = line({ path: 'c.txt', state: 'uploaded', size: 1, room: 1, origin: OTHER_ORIGIN });
    const mine = line({ path: 'c.txt', state: 'failed', size: 1, ...SCOPE });
    // c.txt twice for this scope: its first record is superseded, so opening compacts the file.
    writeFileSync(manifest, otherOrigin + otherRoom + theirs + mine + mine);
    const opened = await openManifest(manifest, SCOPE);
    expect([[...opened.previous.keys()], opened.ignored]).toEqual([['c.txt'], { otherScope: 2, unscoped: 0 }]);
    await opened.close();
    expect(readFileSync(manifest, 'utf8')).toBe(otherOrigin + otherRoom + theirs + mine);
  });

  it('counts a record that names its room but no origin, or its origin but no room, as naming no scope', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    writeFileSync(manifest, line({ path: 'x.txt', state: 'sending', room: 1 }) + line({ path: 'y.txt', state: 'sending', origin: SCOPE.origin }) + good);
    const opened = await openManifest(manifest, SCOPE);
    expect([[...opened.previous.keys()], opened.ignored]).toEqual([['a.txt'], { otherScope: 0, unscoped: 2 }]);
    await opened.close();
  });

  it('does not count a path that has a record of this scope too', async () => {
    const root = makeTree({});
    const manifest = join(root, 'm.jsonl');
    writeFileSync(manifest, line({ path: 'a.txt', state: 'sending', room: 2, origin: SCOPE.origin }) + line({ path: 'a.txt', state: 'sending' }) + good);
    const opened = await openManifest(manifest, SCOPE);
    expect(opened.ignored).toEqual({ otherScope: 0, unscoped: 0 });
    await opened.close();
  });
});
