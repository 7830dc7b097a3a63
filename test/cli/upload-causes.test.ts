// The summary of `svc-sdk upload` after a fatal stop (packages/cli/src/upload-display.ts): the failed
// files refused for the cause that stopped the run are one count on its heels; those that failed for
// another cause keep a line of their own. What counts as the same cause: the same error, an answer of
// the same status, a connection failure when the stop was one, or the same words.
import { describe, expect, it } from 'vitest';
import { summary } from '../../packages/cli/src/upload-display.js';
import { APIConnectionError, APIError } from '../../src/core/errors.js';
import type { UploadManyResult } from '../../src/uploads/upload-many-types.js';

const URL_ = 'http://127.0.0.1:4010/api/v1/rooms/9/documents';
const CONTEXT = { roomId: 9, origin: 'http://127.0.0.1:4010', signal: undefined };


const refusal = (status: number, message: string) =>
  APIError.generate({ status, body: { success: false, error: message }, headers: new Headers(), method: 'POST', url: URL_ });
const down = () => new APIConnectionError('POST', URL_, { cause: Object.assign(new Error('connect'), { code: 'ECONNREFUSED' }) });

function stoppedBy(error: Error, failed: Array<[string, unknown]>, message = `stopped: ${error.message}`): string[] {
  const result: UploadManyResult = {
    uploaded: [],
    skipped: [],
    failed: failed.map(([path, cause]) => ({ path, size: 1, error: cause as Error })),
    unknown: [],
    notStarted: [],
    stopped: { reason: 'fatal', message, error },
    notes: [],
  };
  return summary(result, CONTEXT).split('\n').filter((line) => /^failed {3}\S/.test(line));
}

describe('summary(result) after a fatal stop', () => {
  it('counts the file whose error stopped the run, and another answer of the same status, as refused for that reason', () => {
    const fatal = refusal(401, 'bad key');
    expect(stoppedBy(fatal, [['a', fatal], ['b', refusal(401, 'other words')]])).toEqual(['failed   2 files refused for that reason: a, b']);
  });

  it('keeps a line of its own for an answer of another status, and says "file" for one', () => {
    const fatal = refusal(401, 'bad key');
    const other = refusal(413, 'too large');
    expect(stoppedBy(fatal, [['a', fatal], ['b', other]])).toEqual(['failed   1 file refused for that reason: a', `failed   b: ${other.message}`]);
  });

  it('a connection failure and another are the same cause; an answer is not', () => {
    const fatal = down();
    const answered = refusal(503, 'busy');
    const lines = stoppedBy(fatal, [['a', down()], ['b', answered]]);
    expect(lines[0]).toBe('failed   1 file refused for that reason: a');
    expect(lines.slice(1)).toEqual([`failed   b: ${answered.message}`]);
  });

  it('another kind of error is the same cause only when its words are those of the stop (without the prefix)', () => {
    const fatal = new Error('[svc-sdk] the manifest cannot be written');
    const same = new Error('[svc-sdk] the manifest cannot be written');
    const other = new Error('[svc-sdk] something else');
    expect(stoppedBy(fatal, [['a', same], ['b', other], ['c', refusal(500, 'x')]], fatal.message)).toEqual([
      'failed   1 file refused for that reason: a',
      'failed   b: something else',
      `failed   c: ${refusal(500, 'x').message}`,
    ]);
  });

  it('an answer is not the same cause as a connection failure, nor the other way round', () => {
    const fatal = refusal(401, 'bad key');
    const lines = stoppedBy(fatal, [['a', down()]]);
    expect(lines).toHaveLength(1);
    expect(lines[0]).toMatch(/^failed {3}a: /);
  });
});
