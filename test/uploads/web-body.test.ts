import { describe, expect, it } from 'vitest';
import { Client } from '../../src/index.node.js';
import { API_KEY, BINARY, boundaryOf, expectedBody, useCaptureServer, useWebUploads } from './support.js';

// On the browsers' branch (every runtime but Node's fetch) bytes, Blobs and Files go as a Blob body:
// browsers send a Blob over HTTP/1.1 with its length, and never a stream. What fetch is handed, checked.

const capture = useCaptureServer();

/** A web-branch client whose fetch records the type of each body it is handed. */
function webClient(bodies: string[]) {
  useWebUploads();
  return new Client({
    apiKey: API_KEY,
    baseUrl: capture.url,
    maxRetries: 0,
    fetch: (input, init) => {
      const body = init?.body ?? (input instanceof Request ? input.body : undefined);
      bodies.push(body instanceof Blob ? 'Blob' : body instanceof ReadableStream ? 'ReadableStream' : typeof body);
      return fetch(input, init);
    },
  });
}

describe('documents.upload on the browsers\' branch', () => {
  it.each([
    ['bytes', () => BINARY],
    ['a Blob', () => new Blob([BINARY])],
    ['a File', () => new File([BINARY], 'data.bin')],
  ])('hands fetch %s as a Blob body, byte-exact', async (_kind, make) => {
    const bodies: string[] = [];
    await webClient(bodies).documents.upload(5, make(), { filename: 'data.bin' });
    const request = capture.only();
    expect(request.body.equals(expectedBody(boundaryOf(request), 'data.bin', 'application/octet-stream', BINARY))).toBe(true);
    expect(bodies).toEqual(['Blob']);
  });

  it('with a progress callback outside browsers (Bun, Deno), hands fetch a Blob as a counted stream that keeps its Content-Length', async () => {
    const bodies: string[] = [];
    const loaded: number[] = [];
    await webClient(bodies).documents.upload(5, new Blob([BINARY]), { filename: 'data.bin', onUploadProgress: (progress) => void loaded.push(progress.loaded) });
    const request = capture.only();
    expect(request.body.equals(expectedBody(boundaryOf(request), 'data.bin', 'application/octet-stream', BINARY))).toBe(true);
    expect(bodies).toEqual(['ReadableStream']);
    expect(request.headers['content-length']).toBe(String(request.body.length));
    expect(loaded.at(-1)).toBe(request.body.length);
  });

  it('hands fetch a stream input as a stream body', async () => {
    const bodies: string[] = [];
    await webClient(bodies).documents.upload(5, new Blob([BINARY]).stream(), { filename: 'data.bin' });
    expect(bodies).toEqual(['ReadableStream']);
  });
});
