import { createServer } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, InternalServerError, type UploadManyProgress, type UploadProgress } from '../../src/index.node.js';
import { useRuntime } from '../support/runtime.js';
import { API_KEY, boundaryOf, expectedBody, useCaptureServer, useWebUploads } from './support.js';

// Upload progress in a browser page: browsers do not stream a request body over HTTP/1.1, so the
// Blob goes as it is, and progress is 0 at the start and the total once the service has answered;
// never the total when the upload failed. The Chromium row of the runtime matrix runs this for
// real; here the SDK's runtime record stands in for the browser.

const capture = useCaptureServer();
const CONTENT = Uint8Array.from({ length: 200_000 }, (_, index) => (index * 7) % 256);

/** Makes the current test look like a browser page to the SDK (what the matrix's Chromium row is). */
function inBrowserPage(): void {
  useWebUploads();
  useRuntime({ browser: true, browserPage: true });
}

afterEach(() => {
  vi.unstubAllGlobals();
});

describe('onUploadProgress in a browser page', () => {
  it('reports 0 of the total at the start and the total once the upload succeeded; the body is unchanged', async () => {
    inBrowserPage();
    const events: UploadProgress[] = [];
    const client = new Client({ apiKey: API_KEY, baseUrl: capture.url, maxRetries: 0, dangerouslyAllowBrowser: true });
    await client.documents.upload(5, new Blob([CONTENT], { type: 'application/pdf' }), {
      filename: 'memo.pdf',
      onUploadProgress: (event) => events.push(event),
    });
    const request = capture.only();
    expect(request.body.equals(expectedBody(boundaryOf(request), 'memo.pdf', 'application/pdf', CONTENT))).toBe(true);
    expect(events).toEqual([
      { loaded: 0, total: request.body.length },
      { loaded: request.body.length, total: request.body.length },
    ]);
  });

  it('a failed upload never reports the total', async () => {
    inBrowserPage();
    const server = createServer((request, response) => {
      request.resume();
      request.on('end', () => {
        response.writeHead(500, { 'content-type': 'application/json' });
        response.end(JSON.stringify({ success: false, error: 'storage unavailable' }));
      });
    });
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    const events: UploadProgress[] = [];
    try {
      const baseUrl = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
      const client = new Client({ apiKey: API_KEY, baseUrl, maxRetries: 0, dangerouslyAllowBrowser: true });
      const error = await client.documents
        .upload(5, new Blob([CONTENT]), { filename: 'memo.pdf', onUploadProgress: (event) => events.push(event) })
        .catch((caught: unknown) => caught);
      expect(error).toBeInstanceOf(InternalServerError);
    } finally {
      server.closeAllConnections();
      await new Promise((resolve) => server.close(resolve));
    }
    expect(events).toHaveLength(1);
    expect(events[0]!.loaded).toBe(0);
  });

  it('documents.uploadMany sends a Blob input as the Blob it is (no stream, which a page cannot send): its bytes count once it is sent', async () => {
    inBrowserPage();
    const seen: UploadManyProgress[] = [];
    const client = new Client({ apiKey: API_KEY, baseUrl: capture.url, maxRetries: 0, dangerouslyAllowBrowser: true });
    const result = await client.documents.uploadMany(5, [{ file: new Blob([CONTENT], { type: 'application/pdf' }), filename: 'memo.pdf' }], {
      onProgress: (progress) => seen.push({ ...progress }),
    });
    expect(result.uploaded).toHaveLength(1);
    const request = capture.only();
    expect(request.body.equals(expectedBody(boundaryOf(request), 'memo.pdf', 'application/pdf', CONTENT))).toBe(true);
    // A Blob body reports 0, then the whole: no count of its bytes in between, as a stream body would give.
    expect(seen.map(({ filesDone, bytesDone }) => [filesDone, bytesDone])).toEqual([
      [0, CONTENT.byteLength],
      [1, CONTENT.byteLength],
    ]);
  });
});
