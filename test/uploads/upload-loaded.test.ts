import { beforeEach, describe, expect, it, onTestFinished, vi } from 'vitest';
import type { UploadProgress } from '../../src/index.node.js';
import type { Runtime } from '../../src/shared/runtime.js';
import { API_KEY, boundaryOf, expectedBody, useCaptureServer } from './support.js';

// documents.upload's encoder (mime.ts, progress.ts, multipart.ts) is loaded on a client's first
// upload: each test here loads the SDK afresh, so the encoder's module-level tables and constants
// (the MIME map, the progress step) run, and are checked, in the test that uses them.

const capture = useCaptureServer();

beforeEach(() => {
  vi.resetModules();
});

/** A client of a freshly loaded SDK, with `runtime` (as src/shared/runtime.ts found it) changed for this test. */
async function freshClient(options: { runtime?: Partial<Runtime>; logLevel?: 'error' } = {}) {
  const [{ Client }, { runtime }] = await Promise.all([import('../../src/index.node.js'), import('../../src/shared/runtime.js')]);
  if (options.runtime) {
    const saved = { ...runtime };
    Object.assign(runtime, options.runtime);
    onTestFinished(() => {
      Object.assign(runtime, saved);
    });
  }
  return new Client({ apiKey: API_KEY, baseUrl: capture.url, maxRetries: 0, ...(options.logLevel ? { logLevel: options.logLevel } : {}) });
}

/** The Content-Type of the one part of each captured request. */
const partTypes = () => capture.requests.map((request) => /\r\nContent-Type: ([^\r]*)\r\n\r\n/.exec(request.body.toString('latin1'))?.[1]);

describe('documents.upload, with the encoder loaded by the test', () => {
  it('names the type of every extension of its map (any case), and application/octet-stream for others', async () => {
    const client = await freshClient();
    const known: Array<[string, string]> = [
      ['pdf', 'application/pdf'],
      ['txt', 'text/plain'],
      ['md', 'text/markdown'],
      ['csv', 'text/csv'],
      ['json', 'application/json'],
      ['doc', 'application/msword'],
      ['docx', 'application/vnd.openxmlformats-officedocument.wordprocessingml.document'],
      ['xls', 'application/vnd.ms-excel'],
      ['xlsx', 'application/vnd.openxmlformats-officedocument.spreadsheetml.sheet'],
      ['pptx', 'application/vnd.openxmlformats-officedocument.presentationml.presentation'],
      ['png', 'image/png'],
      ['jpg', 'image/jpeg'],
      ['jpeg', 'image/jpeg'],
      ['zip', 'application/zip'],
    ];
    const names = [...known.map(([extension]) => `file.${extension}`), 'SCAN.PDF', 'archive.tar.gz', 'README'];
    for (const filename of names) await client.documents.upload(5, new Uint8Array([1]), { filename });
    expect(partTypes()).toEqual([...known.map(([, type]) => type), 'application/pdf', 'application/octet-stream', 'application/octet-stream']);
  });

  it('reports progress at every 64 KiB exactly, once each, and the end once', async () => {
    const client = await freshClient();
    // Node's fetch takes the preamble, then 8 KiB chunks. A preamble of 8 KiB (a long filename)
    // puts the counts on multiples of 8 KiB: the reports fall on 64 KiB exactly, and the body ends
    // on one (the closing boundary completes the last 8 KiB), reported once.
    const boundaryLength = '----svc-sdk-'.length + 28;
    const framing = (name: string) => `--${'-'.repeat(boundaryLength)}\r\nContent-Disposition: form-data; name="file"; filename="${name}"\r\nContent-Type: application/pdf\r\n\r\n`.length;
    const filename = `${'n'.repeat(8192 - framing('.pdf'))}.pdf`;
    const closing = `\r\n--${'-'.repeat(boundaryLength)}--\r\n`.length;
    const content = new Uint8Array(15 * 8192 - closing).fill(7);
    const events: UploadProgress[] = [];
    await client.documents.upload(5, content, { filename, onUploadProgress: (event) => events.push(event) });
    const request = capture.only();
    expect(request.body.equals(expectedBody(boundaryOf(request), filename, 'application/pdf', content))).toBe(true);
    expect(request.body.length).toBe(16 * 8192);
    expect(events).toEqual([
      { loaded: 8 * 8192, total: 16 * 8192 },
      { loaded: 16 * 8192, total: 16 * 8192 },
    ]);
  });

  it('a stream body in a browser is counted as it is taken, not as a Blob would be: it ends at the body size', async () => {
    const client = await freshClient({ runtime: { nodeFetch: false, browser: true } });
    const content = new Uint8Array(200 * 1024).fill(9);
    const events: UploadProgress[] = [];
    await client.documents.upload(5, new Blob([content]).stream(), { filename: 'a.pdf', onUploadProgress: (event) => events.push(event) });
    const request = capture.only();
    expect(request.body.equals(expectedBody(boundaryOf(request), 'a.pdf', 'application/pdf', content))).toBe(true);
    expect(events.at(-1)).toEqual({ loaded: request.body.length, total: undefined });
  });

  it('an onUploadProgress that throws, with warnings off (no warn to report at): the upload goes on', async () => {
    const client = await freshClient({ logLevel: 'error' });
    const document = await client.documents.upload(5, new Uint8Array(200 * 1024), {
      filename: 'a.txt',
      onUploadProgress: () => {
        throw new Error('bar broke');
      },
    });
    expect(document.id).toBe(1);
    expect(capture.requests).toHaveLength(1);
  });
});
