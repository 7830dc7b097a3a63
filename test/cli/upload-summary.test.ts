import { PassThrough } from 'node:stream';
import { beforeAll, describe, expect, it } from 'vitest';
import type { CliIO } from '../../packages/cli/src/command.js';
import { progressDisplay, summary } from '../../packages/cli/src/upload-display.js';
import { APIConnectionError, APIError } from '../../src/core/errors.js';
import { loadFailureText } from '../../src/core/failure-text-loader.js';
import type { UploadManyFile, UploadManyResult } from '../../src/uploads/upload-many-types.js';

// The summary and the last bar of `svc-sdk upload`, from a result as uploadMany returns it.

const URL_ = 'http://127.0.0.1:4010/api/v1/rooms/9/documents';
const CONTEXT = { roomId: 9, origin: 'http://127.0.0.1:4010', signal: undefined };

// The errors are made by hand here: with the words of a failure loaded, as a call has them (a call waits for them).
beforeAll(() => loadFailureText());

function refusal(status: number, message: string): APIError {
  return APIError.generate({ status, body: { success: false, error: message }, headers: new Headers(), method: 'POST', url: URL_ });
}

function empty(): UploadManyResult {
  return { uploaded: [], skipped: [], failed: [], unknown: [], notStarted: [], stopped: undefined, notes: [] };
}

const files = (count: number, prefix = 'f'): UploadManyFile[] => Array.from({ length: count }, (_, index) => ({ path: `${prefix}${index}.pdf`, size: 1024 }));

describe('summary(result)', () => {
  it('tables the five states, with never-started files a count, not a line each', () => {
    const result = { ...empty(), uploaded: files(14).map((file) => ({ ...file, document: {} as never, sha256: undefined })), notStarted: files(36, 'n') };
    result.stopped = { reason: 'stopSignal', message: 'stopped by SIGINT' };
    const text = summary(result, { ...CONTEXT, signal: 'SIGINT' });
    expect(text).toBe(
      [
        'state        files  bytes',
        'uploaded        14  14.0 KiB',
        'skipped          0  0 B',
        'failed           0  0 B',
        'unknown          0  0 B',
        'not started     36  36.0 KiB',
        'stopped: SIGINT received, no file started after it; the files being sent finished',
        'Not started files were not stored: run the same command again to send them (files already stored are skipped).',
        '',
      ].join('\n'),
    );
  });

  it.each([
    [refusal(404, 'room 9 not found'), 'check --room 9: the service has no such room for this key'],
    [refusal(401, 'invalid API key'), 'check SVC_API_KEY: the service refused this key'],
    [refusal(403, 'not a member of this room'), 'check SVC_API_KEY: the service refused this key'],
    [new APIConnectionError('POST', URL_, { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) }), 'check SVC_BASE_URL: is the service at http://127.0.0.1:4010 running?'],
  ])('a fatal stop (%s) is one line saying why and what to check; the files refused for it are one count', (error, fix) => {
    const message = `[svc-sdk] documents.uploadMany: stopped: ${(error as Error).message}`;
    const result = { ...empty(), failed: files(4).map((file) => ({ ...file, error })), notStarted: files(46, 'n'), stopped: { reason: 'fatal' as const, message, error } };
    const lines = summary(result, CONTEXT).split('\n');
    // The service's answer and the fix, not the library's sentence around them.
    expect(lines.filter((line) => line.startsWith('stopped: '))).toEqual([`stopped: ${(error as Error).message} (${fix})`]);
    expect(lines.filter((line) => /^failed {3}\S/.test(line))).toEqual(['failed   4 files refused for that reason: f0.pdf, f1.pdf, f2.pdf and 1 more']);
    expect(lines).toContain('not started     46  46.0 KiB');
    expect(lines).toContain('No file started after it. Fix the cause, then run the same command again: files already stored are skipped.');
    expect(lines.some((line) => line.startsWith('Failed files'))).toBe(false);
    expect(lines.filter((line) => line.includes('n1.pdf'))).toEqual([]);
  });

  it('a fatal stop of another kind (a 500) names no fix it cannot know', () => {
    const error = refusal(500, 'boom');
    const result = { ...empty(), failed: files(1).map((file) => ({ ...file, error })), stopped: { reason: 'fatal' as const, message: `stopped: ${error.message}`, error } };
    expect(summary(result, CONTEXT).split('\n').filter((line) => line.startsWith('stopped: '))).toEqual([`stopped: stopped: ${error.message}`]);
  });

  it('files that share a reason are one line; distinct reasons one line each', () => {
    const busy = refusal(503, 'service unavailable');
    const tooBig = refusal(413, 'body too large');
    const result = {
      ...empty(),
      failed: [...files(5).map((file) => ({ ...file, error: busy })), { path: 'huge.iso', size: 9, error: tooBig }],
      unknown: [{ path: 'u.pdf', size: 1, error: undefined }],
    };
    const lines = summary(result, CONTEXT).split('\n');
    expect(lines.filter((line) => /^(failed |unknown) {2}\S/.test(line))).toEqual([
      `failed   f0.pdf, f1.pdf, f2.pdf and 2 more: ${busy.message}`,
      `failed   huge.iso: ${tooBig.message}`,
      'unknown  u.pdf: left unknown by an earlier run',
    ]);
    expect(lines).toContain('Failed files were not stored: run the same command again to send them (files already stored are skipped).');
    expect(lines).toContain('Unknown files were sent but no answer came: they may be stored. Check the room, then add --retry-unknown to send them again.');
  });

  it("prints the run's notes (records of another room not used), escaped, one line each", () => {
    const result = { ...empty(), notes: ['[svc-sdk] documents.uploadMany: 3 manifest records name room 8, not room 9: not used, those files are sent', 'odd \u001b[2J note'] };
    const lines = summary(result, CONTEXT).split('\n');
    expect(lines.filter((line) => line.startsWith('note: '))).toEqual([
      'note: documents.uploadMany: 3 manifest records name room 8, not room 9: not used, those files are sent',
      'note: odd \\x1b[2J note',
    ]);
  });

  it('a service that cannot be reached, the run not stopped: its files are one line, with the address to check', () => {
    const error = new APIConnectionError('POST', URL_, { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) });
    const result = { ...empty(), failed: files(50).map((file) => ({ ...file, error })) };
    const lines = summary(result, CONTEXT).split('\n');
    expect(lines.filter((line) => /^failed {3}\S/.test(line))).toEqual([
      `failed   f0.pdf, f1.pdf, f2.pdf and 47 more: ${error.message} (check SVC_BASE_URL: is the service at http://127.0.0.1:4010 running?)`,
    ]);
  });

  it('a first signal then a second: the files being sent were aborted, whichever stop the library reports', () => {
    const result = { ...empty(), unknown: files(2).map((file) => ({ ...file, error: new Error('aborted') })), stopped: { reason: 'stopSignal' as const, message: 'stopped' } };
    expect(summary(result, { ...CONTEXT, signal: 'SIGINT', aborted: true })).toContain('stopped: SIGINT received twice, the files being sent were aborted\n');
    expect(summary(result, { ...CONTEXT, signal: 'SIGINT', aborted: false })).toContain('stopped: SIGINT received, no file started after it; the files being sent finished\n');
  });

  it('a second signal says the files being sent were aborted', () => {
    const result = { ...empty(), unknown: files(2).map((file) => ({ ...file, error: new Error('aborted') })), stopped: { reason: 'aborted' as const, message: 'aborted' } };
    expect(summary(result, { ...CONTEXT, signal: 'SIGTERM' })).toContain('stopped: SIGTERM received twice, the files being sent were aborted\n');
  });

  it('escapes the control characters of file names and service messages (no title change, no cleared screen, no forged line)', () => {
    const name = 'report\u001b]0;pwned\u0007\u001b[2J\nuploaded       99  1 GiB.pdf';
    const error = refusal(422, 'bad file \u001b[31mRED\u001b[0m\r\u009b2J');
    const result = { ...empty(), failed: [{ path: name, size: 1, error }], stopped: { reason: 'stopOnError' as const, message: '[svc-sdk] first \u001b[2J error' } };
    const text = summary(result, CONTEXT);
    // eslint-disable-next-line no-control-regex -- looking for control characters is the point
    expect(text.replace(/\n/g, '')).not.toMatch(/[\u0000-\u001f\u007f-\u009f]/);
    expect(text).toContain('failed   report\\x1b]0;pwned\\x07\\x1b[2J\\nuploaded       99  1 GiB.pdf: ');
    expect(text).toContain('bad file \\x1b[31mRED\\x1b[0m\\r\\x9b2J');
    expect(text).toContain('stopped: first \\x1b[2J error\n');
    expect(text.split('\n').filter((line) => line.startsWith('uploaded'))).toHaveLength(1);
  });
});

describe('progressDisplay(io).end(result) on a terminal', () => {
  function terminal() {
    const stdout = Object.assign(new PassThrough(), { isTTY: true, columns: 90 });
    let out = '';
    stdout.on('data', (chunk: Buffer) => (out += chunk));
    const io: CliIO = { stdout, stderr: new PassThrough(), env: {} };
    return { io, out: () => out };
  }

  it('draws the last bar from the stored files, not the attempted ones: a stop at 14 of 50 shows 14 of 50', () => {
    const { io, out } = terminal();
    const display = progressDisplay(io);
    // What an uploadMany counting settled files whole might report at the end.
    display.update({ filesDone: 50, filesTotal: 50, bytesDone: 50 * 1024, bytesSkipped: 0, bytesTotal: 50 * 1024, bytesPerSecond: 1, elapsedMs: 1000 });
    const result = { ...empty(), uploaded: files(14).map((file) => ({ ...file, document: {} as never, sha256: undefined })), failed: files(2, 'x').map((file) => ({ ...file, error: new Error('x') })), notStarted: files(34, 'n') };
    display.end(result);
    const last = out().split('\r').at(-1)!;
    expect(last).toBe(`[########----------------------] 14/50 files stored  14.0 KiB/50.0 KiB\u001b[K\n`);
  });

  it('fills the live bar with bytes sent and bytes skipped (stored by an earlier run), nothing else', () => {
    const { io, out } = terminal();
    progressDisplay(io).update({ filesDone: 6, filesTotal: 10, bytesDone: 3000, bytesSkipped: 3000, bytesTotal: 10_000, bytesPerSecond: 1000, elapsedMs: 500 });
    expect(out()).toBe(`\r[##################------------] 6/10 files  5.9 KiB/9.8 KiB  1000 B/s  ETA 4s\u001b[K`);
  });

  it('after freeze() (the first Ctrl+C) progress no longer moves the bar; end(result) draws the outcome', () => {
    const { io, out } = terminal();
    const display = progressDisplay(io);
    display.update({ filesDone: 1, filesTotal: 4, bytesDone: 1024, bytesSkipped: 0, bytesTotal: 4096, bytesPerSecond: 1, elapsedMs: 500 });
    display.freeze();
    display.update({ filesDone: 4, filesTotal: 4, bytesDone: 4096, bytesSkipped: 0, bytesTotal: 4096, bytesPerSecond: 1, elapsedMs: 900 });
    expect(out()).not.toContain('4/4');
    display.end({ ...empty(), uploaded: files(2).map((file) => ({ ...file, document: {} as never, sha256: undefined })), notStarted: files(2, 'n') });
    expect(out().split('\r').at(-1)).toBe(`[###############---------------] 2/4 files stored  2.0 KiB/4.0 KiB\u001b[K\n`);
  });

  it('an empty folder ends with a full bar of 0 files', () => {
    const { io, out } = terminal();
    progressDisplay(io).end(empty());
    expect(out()).toBe(`\r[##############################] 0/0 files stored  0 B/0 B\u001b[K\n`);
  });
});
