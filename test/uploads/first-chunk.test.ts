// The wait for a stream's first chunk (bounded by the call's timeout and signal) ends with it: a
// call that got its first chunk leaves no listener on the caller's signal, which may outlive many
// uploads (one signal for a whole uploadMany), and no timer armed.
import { getEventListeners } from 'node:events';
import { describe, expect, it, onTestFinished, vi } from 'vitest';
import { Client } from '../../src/index.node.js';
import { API_KEY, boundaryOf, expectedBody, useCaptureServer } from './support.js';

const capture = useCaptureServer();
const client = () => new Client({ apiKey: API_KEY, baseUrl: capture.url, maxRetries: 0 });
const CONTENT = new TextEncoder().encode('first chunk, then the rest');

describe('a stream upload once its first chunk came', () => {
  it("leaves no 'abort' listener on the caller's signal", async () => {
    const controller = new AbortController();
    await client().documents.upload(5, new Blob([CONTENT]).stream(), { filename: 'a.txt', signal: controller.signal });
    const request = capture.only();
    expect(request.body.equals(expectedBody(boundaryOf(request), 'a.txt', 'text/plain', CONTENT))).toBe(true);
    expect(getEventListeners(controller.signal, 'abort')).toEqual([]);
  });

  it("disarms every timer it armed for the call's timeout (the first chunk's wait is over, its timeout with it)", async () => {
    const TIMEOUT = 61_234;
    const armed = new Set<unknown>();
    const setTimer = vi.spyOn(globalThis, 'setTimeout');
    const clearTimer = vi.spyOn(globalThis, 'clearTimeout');
    onTestFinished(() => {
      setTimer.mockRestore();
      clearTimer.mockRestore();
    });
    await client().documents.upload(5, new Blob([CONTENT]).stream(), { filename: 'a.txt', timeout: TIMEOUT });
    setTimer.mock.calls.forEach(([, delay], index) => void (delay === TIMEOUT && armed.add(setTimer.mock.results[index]!.value)));
    // The wait for the first chunk, and the request's own (ky's per-attempt timeout).
    expect(armed.size).toBe(2);
    const cleared = new Set<unknown>(clearTimer.mock.calls.map(([timer]) => timer));
    expect([...armed].filter((timer) => !cleared.has(timer))).toEqual([]);
  });
});
