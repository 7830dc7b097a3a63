// The live progress of `svc-sdk upload` (packages/cli/src/upload-display.ts): on a terminal, a bar
// redrawn at most every 100 ms yet never left behind, held still after a first Ctrl+C; off one, a
// line per settled file. Its timer is vitest's fake clock.
import { PassThrough } from 'node:stream';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import type { CliIO } from '../../packages/cli/src/command.js';
import { formatBytes, progressDisplay } from '../../packages/cli/src/upload-display.js';
import type { UploadManyProgress, UploadManyResult } from '../../src/uploads/upload-many-types.js';

function screen(tty: boolean) {
  const stdout = Object.assign(new PassThrough(), { isTTY: tty, columns: 90 });
  let out = '';
  stdout.on('data', (chunk: Buffer) => (out += chunk));
  const io: CliIO = { stdout, stderr: new PassThrough(), env: {} };
  return { io, out: () => out, bars: () => out.split('\r').slice(1) };
}

/** The bar of a 90-column terminal (30 wide) with `filled` of it filled. */
const bar = (filled: number) => `[${'#'.repeat(filled)}${'-'.repeat(30 - filled)}]`;

const progress = (filesDone: number, elapsedMs: number, extra: Partial<UploadManyProgress> = {}): UploadManyProgress => ({
  filesDone,
  filesTotal: 4,
  bytesDone: filesDone * 1024,
  bytesSkipped: 0,
  bytesTotal: 4096,
  bytesPerSecond: 0,
  elapsedMs,
  ...extra,
});

const result = (stored: number, failed: number, size: number | undefined): UploadManyResult => ({
  uploaded: Array.from({ length: stored }, (_, index) => ({ path: `u${index}`, size, document: {} as never, sha256: undefined })),
  skipped: [],
  failed: Array.from({ length: failed }, (_, index) => ({ path: `f${index}`, size, error: new Error('x') })),
  unknown: [],
  notStarted: [],
  stopped: undefined,
  notes: [],
});

beforeEach(() => vi.useFakeTimers());
afterEach(() => vi.useRealTimers());

describe('progressDisplay(io) on a terminal', () => {
  it('draws at once after 100 ms, holds a report that comes sooner, and draws the latest one when the 100 ms are up', async () => {
    const { io, bars } = screen(true);
    const display = progressDisplay(io);
    display.update(progress(1, 150));
    expect(bars()).toEqual([`${bar(7)} 1/4 files  1.0 KiB/4.0 KiB  0 B/s\u001b[K`]);
    display.update(progress(2, 200));
    display.update(progress(3, 230));
    expect(bars()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(49);
    expect(bars()).toHaveLength(1);
    await vi.advanceTimersByTimeAsync(1);
    expect(bars()).toHaveLength(2);
    expect(bars()[1]).toBe(`${bar(22)} 3/4 files  3.0 KiB/4.0 KiB  0 B/s\u001b[K`);
    // The held report counted as a draw at its time: the next one within 100 ms of it is held again.
    display.update(progress(3, 300));
    expect(bars()).toHaveLength(2);
  });

  it('draws the last file at once, whatever the limit', () => {
    const { io, bars } = screen(true);
    const display = progressDisplay(io);
    display.update(progress(4, 10));
    expect(bars()).toEqual([`${bar(30)} 4/4 files  4.0 KiB/4.0 KiB  0 B/s\u001b[K`]);
  });

  it('a held report is not drawn once frozen (Ctrl+C) or ended', async () => {
    for (const stop of ['freeze', 'end'] as const) {
      const { io, out } = screen(true);
      const display = progressDisplay(io);
      display.update(progress(1, 10));
      if (stop === 'freeze') display.freeze();
      else display.end(result(0, 0, 1));
      const before = out();
      await vi.advanceTimersByTimeAsync(500);
      expect(out()).toBe(before);
      expect(out()).not.toContain('1/4 files  ');
    }
  });

  it('end() without a result draws the latest report once more and ends the line', () => {
    const { io, out } = screen(true);
    const display = progressDisplay(io);
    display.update(progress(1, 150));
    display.end();
    expect(out()).toBe(`\r${bar(7)} 1/4 files  1.0 KiB/4.0 KiB  0 B/s\u001b[K\r${bar(7)} 1/4 files  1.0 KiB/4.0 KiB  0 B/s\u001b[K\n`);
  });

  it('end() with nothing drawn writes nothing', () => {
    const { io, out } = screen(true);
    progressDisplay(io).end();
    expect(out()).toBe('');
  });

  it('fills by files when sizes are unknown, and shows what is unknown as ?', () => {
    const { io, bars } = screen(true);
    const display = progressDisplay(io);
    display.update(progress(1, 150, { bytesTotal: undefined, bytesDone: 0 }));
    display.update(progress(2, 300, { bytesTotal: 0, bytesDone: 0, filesTotal: undefined }));
    display.end(result(1, 3, undefined));
    expect(bars()).toEqual([
      `${bar(7)} 1/4 files  0 B/?  0 B/s\u001b[K`,
      `${bar(0)} 2/? files  0 B/0 B  0 B/s\u001b[K`,
      `${bar(7)} 1/4 files stored  0 B/0 B\u001b[K\n`,
    ]);
  });

  it('shows the time left in seconds, minutes or hours', () => {
    const { io, bars } = screen(true);
    const display = progressDisplay(io);
    // 1 KiB/s, with `seconds` KiB left.
    const at = (elapsedMs: number, seconds: number) => progress(1, elapsedMs, { bytesTotal: 1024 * seconds, bytesDone: 0, bytesPerSecond: 1024 });
    for (const [index, seconds] of [59, 60, 61, 3599, 3600, 2 * 3600 + 5 * 60 + 59].entries()) display.update(at(200 * (index + 1), seconds));
    expect(bars().map((line) => /ETA (\w+)/.exec(line)?.[1])).toEqual(['59s', '1m00s', '1m01s', '59m59s', '1h00m', '2h05m']);
    // Nothing left, or no speed yet: no ETA.
    display.update(progress(4, 2000, { bytesPerSecond: 1024 }));
    display.update(progress(3, 2200, { bytesPerSecond: 0 }));
    expect(bars().slice(-2).some((line) => line.includes('ETA'))).toBe(false);
  });
});

describe('progressDisplay(io) off a terminal', () => {
  it('prints a line each time the count of settled files moves, no bar, and nothing at the end', () => {
    const { io, out } = screen(false);
    const display = progressDisplay(io);
    display.update(progress(0, 0));
    display.update(progress(1, 5));
    display.update(progress(1, 6));
    display.update(progress(2, 7));
    display.end(result(2, 0, 1024));
    expect(out()).toBe('1/4 files  1.0 KiB/4.0 KiB  0 B/s\n2/4 files  2.0 KiB/4.0 KiB  0 B/s\n');
  });
});

describe('formatBytes(bytes)', () => {
  it.each([
    [0, '0 B'],
    [1023, '1023 B'],
    [1024, '1.0 KiB'],
    [1536, '1.5 KiB'],
    [1024 ** 2, '1.0 MiB'],
    [1024 ** 3 * 2.25, '2.3 GiB'],
    [1024 ** 4, '1.0 TiB'],
    [1024 ** 5, '1024.0 TiB'],
  ])('%d is %s', (bytes, text) => {
    expect(formatBytes(bytes)).toBe(text);
  });
});
