// What the CLI prints of an HTTP answer (packages/cli/src/http.ts): at most a few KiB of its body, read
// no further than that, a character cut at the limit not shown as a replacement mark, and its status line.
import { describe, expect, it } from 'vitest';
import { MAX_PRINTED_BYTES, readPreview, statusLine, unreachable } from '../../packages/cli/src/http.js';

/** A body of `chunks`, recording whether it was cancelled and how many chunks were pulled. */
function body(chunks: Uint8Array[]) {
  const seen = { cancelled: false, pulled: 0 };
  let index = 0;
  const stream = new ReadableStream<Uint8Array>(
    {
      pull(controller) {
        seen.pulled += 1;
        if (index < chunks.length) controller.enqueue(chunks[index++]!);
        else controller.close();
      },
      cancel() {
        seen.cancelled = true;
      },
    },
    { highWaterMark: 0 },
  );
  return { stream, seen };
}

const bytes = (text: string) => new TextEncoder().encode(text);

describe('readPreview(body, maxBytes)', () => {
  it('reads a body up to the limit whole, not truncated, and does not cancel it', async () => {
    const { stream, seen } = body([bytes('ab'), bytes('cd')]);
    expect(await readPreview(stream, 4)).toEqual({ text: 'abcd', truncated: false });
    expect(seen.cancelled).toBe(false);
  });

  it('stops at the first chunk past the limit, cancels the rest, and shows the first maxBytes', async () => {
    const { stream, seen } = body([bytes('ab'), bytes('cde'), bytes('never read')]);
    expect(await readPreview(stream, 4)).toEqual({ text: 'abcd', truncated: true });
    expect(seen.cancelled).toBe(true);
    expect(seen.pulled).toBe(2);
  });

  it('leaves out a character cut at the limit rather than printing a replacement mark', async () => {
    const { stream } = body([bytes('aé')]); // 'é' is 2 bytes: the limit of 2 cuts it
    expect(await readPreview(stream, 2)).toEqual({ text: 'a', truncated: true });
    const whole = body([bytes('aé')]);
    expect(await readPreview(whole.stream, 3)).toEqual({ text: 'aé', truncated: false });
  });

  it('no body is no text; the default limit is 4 KiB', async () => {
    expect(await readPreview(null)).toEqual({ text: '', truncated: false });
    expect(MAX_PRINTED_BYTES).toBe(4096);
    const { stream } = body([bytes('x'.repeat(4096)), bytes('y')]);
    expect(await readPreview(stream)).toEqual({ text: 'x'.repeat(4096), truncated: true });
  });
});

describe('statusLine(response), unreachable(url, error)', () => {
  it('is the status and its text, or the status alone when the answer had no text', () => {
    expect(statusLine(new Response(null, { status: 503, statusText: 'Service Unavailable' }))).toBe('503 Service Unavailable');
    expect(statusLine(new Response(null, { status: 299 }))).toBe('299');
  });

  it('names the URL and why', () => {
    expect(unreachable(new URL('http://127.0.0.1:9/x'), new DOMException('timed out', 'TimeoutError'), 300)).toBe('could not reach http://127.0.0.1:9/x: timed out: no answer within 300 ms');
  });
});
