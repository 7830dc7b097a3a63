import { describe, expect, it } from 'vitest';
import { buildMultipart } from '../../src/uploads/multipart.js';
import { createEmulator } from '../../src/testing/index.js';
import { findUploadPart } from '../../src/testing/upload-part.js';
import { call, KEY, ORIGIN, seed } from './support.js';

// The emulator finds the file part of the usual upload itself and leaves every other body to
// Response.formData(): on every body where it answers, it must answer exactly what formData() does.

const encoder = new TextEncoder();
const ascii = (text: string) => encoder.encode(text);
const join = (...parts: Uint8Array[]) => new Uint8Array(Buffer.concat(parts));

/** What formData() makes of the body: the file part named "file", or the reason it has none. */
async function viaFormData(contentType: string, body: Uint8Array) {
  try {
    const file = (await new Response(body as Uint8Array<ArrayBuffer>, { headers: { 'content-type': contentType } }).formData()).get('file');
    if (file === null || typeof file === 'string') return 'no file part';
    return { filename: file.name, type: file.type, bytes: new Uint8Array(await file.arrayBuffer()) };
  } catch {
    return 'unreadable';
  }
}

/** A body as undici's FormData serializes it (what `fetch(url, { body: formData })` sends). */
async function undiciBody(form: FormData) {
  const response = new Response(form);
  return { contentType: response.headers.get('content-type')!, body: new Uint8Array(await response.arrayBuffer()) };
}

/** A body as the SDK's encoder frames it (documents.upload on Node). */
async function sdkBody(bytes: Uint8Array, filename: string, contentType: string) {
  const built = buildMultipart({ bytes }, filename, contentType, 16 * 1024);
  return { contentType: built.headers['content-type']!, body: new Uint8Array(await new Response(built.body).arrayBuffer()) };
}

const BOUNDARY = '----svc-sdk-0123456789abcdef01234567';
const CONTENT_TYPE = `multipart/form-data; boundary=${BOUNDARY}`;
/** A hand-written body: the headers of the part, its bytes, and what follows them. */
const handWritten = (headers: string, data: string | Uint8Array, tail = `\r\n--${BOUNDARY}--\r\n`) =>
  join(ascii(`--${BOUNDARY}\r\n${headers}\r\n\r\n`), typeof data === 'string' ? ascii(data) : data, ascii(tail));
const DISPOSITION = 'Content-Disposition: form-data; name="file"; filename="a.bin"';

describe('findUploadPart: the file part without formData(), exactly as formData() finds it', () => {
  it('finds the part of the usual bodies (the SDK, undici) with formData()\'s name, type and bytes', async () => {
    const binary = new Uint8Array(70_000).map((_, index) => (index * 131) & 0xff);
    const bodies = [
      await sdkBody(binary, 'report.pdf', 'application/pdf'),
      await sdkBody(ascii(''), 'empty.txt', 'text/plain'),
      await sdkBody(ascii('x'), 'Ünïcødé 名前.txt', 'Text/Plain; Charset=UTF-8'),
      await sdkBody(ascii('\r\n--\r\n--'), '', 'application/octet-stream'),
      await undiciBody(formOf(new Blob([binary]), 'a.bin')),
      await undiciBody(formOf(new Blob(['hello'], { type: 'text/markdown' }), 'notes.md')),
    ];
    for (const { contentType, body } of bodies) {
      const found = findUploadPart(contentType, body);
      expect(found).toBeDefined();
      expect(found).toEqual(await viaFormData(contentType, body));
    }
    expect(findUploadPart(bodies[0]!.contentType, bodies[0]!.body)!.bytes).toEqual(binary);
    expect(findUploadPart(bodies[2]!.contentType, bodies[2]!.body)).toMatchObject({ filename: 'Ünïcødé 名前.txt', type: 'text/plain; charset=utf-8' });
    // Near misses of the boundary in the data (one character off, at its end or inside) are data.
    const nearMisses = `${BOUNDARY.slice(0, -1)}x\r\n--${BOUNDARY.slice(0, 10)}y${BOUNDARY.slice(11)}-${BOUNDARY.slice(0, -1)}`.repeat(40);
    const tricky = handWritten(DISPOSITION, nearMisses);
    expect(findUploadPart(CONTENT_TYPE, tricky)).toEqual(await viaFormData(CONTENT_TYPE, tricky));
    expect(new TextDecoder().decode(findUploadPart(CONTENT_TYPE, tricky)!.bytes)).toBe(nearMisses);
    // A part without a Content-Type is text/plain to formData(), and so to the fast path.
    expect(findUploadPart(CONTENT_TYPE, handWritten(DISPOSITION, 'x'))).toMatchObject({ type: 'text/plain' });
  });

  it('leaves every other shape to formData(), and never answers differently from it', async () => {
    const cases: Array<[string, Uint8Array]> = [
      [CONTENT_TYPE, handWritten(`${DISPOSITION}\r\nContent-Type: text/plain`, 'plain')],
      [CONTENT_TYPE, handWritten(`content-disposition: form-data; name="file"; filename="a.bin"`, 'lower-case header')],
      [CONTENT_TYPE, handWritten('Content-Disposition: form-data; name="file"; filename="a%22b%0Ac.txt"', 'escaped name')],
      [CONTENT_TYPE, handWritten('Content-Disposition: form-data; name="file"; filename*=utf-8\'\'%E2%82%AC.txt', 'extended name')],
      [CONTENT_TYPE, handWritten('Content-Disposition: form-data; name="document"; filename="a.bin"', 'wrong part')],
      [CONTENT_TYPE, handWritten('Content-Disposition: form-data; name="file"', 'a field, not a file')],
      [CONTENT_TYPE, handWritten(`${DISPOSITION}\r\nContent-Type:  text/plain  `, 'spaces around the type')],
      [CONTENT_TYPE, handWritten(`${DISPOSITION}\r\nContent-Type: text/plain\r\nContent-Transfer-Encoding: base64`, 'aGk=')],
      [CONTENT_TYPE, handWritten(`${DISPOSITION}\r\nX-Other: 1`, 'other header')],
      [CONTENT_TYPE, handWritten(DISPOSITION, `the boundary ${BOUNDARY} inside`)],
      [CONTENT_TYPE, handWritten(DISPOSITION, `a delimiter\r\n--${BOUNDARY}\r\n inside`)],
      [CONTENT_TYPE, handWritten(DISPOSITION, 'no closing delimiter', `\r\n--${BOUNDARY}\r\n`)],
      [CONTENT_TYPE, handWritten(DISPOSITION, 'cut short', '')],
      [CONTENT_TYPE, handWritten(DISPOSITION, 'an epilogue', `\r\n--${BOUNDARY}--epilogue`)],
      [CONTENT_TYPE, join(ascii('a preamble\r\n'), handWritten(DISPOSITION, 'after a preamble'))],
      [CONTENT_TYPE, handWritten(`${DISPOSITION}\r\nContent-Type: t\u00e9xt/plain`, 'latin-1 type')],
      [`multipart/form-data;boundary=${BOUNDARY}`, handWritten(DISPOSITION, 'no space before boundary')],
      [`multipart/form-data; boundary="${BOUNDARY}"`, handWritten(DISPOSITION, 'quoted boundary')],
      [`Multipart/Form-Data; boundary=${BOUNDARY}`, handWritten(DISPOSITION, 'upper-case type')],
      [`multipart/form-data; boundary=${BOUNDARY}; charset=utf-8`, handWritten(DISPOSITION, 'another parameter')],
      [CONTENT_TYPE, join(handWritten(DISPOSITION, 'first', `\r\n--${BOUNDARY}\r\n`), ascii(`${DISPOSITION}\r\n\r\nsecond\r\n--${BOUNDARY}--`))],
      [CONTENT_TYPE, handWritten(DISPOSITION, '')],
      [CONTENT_TYPE, ascii(`--${BOUNDARY}--\r\n`)],
    ];
    let found = 0;
    for (const [contentType, body] of cases) {
      const part = findUploadPart(contentType, body);
      if (part === undefined) continue;
      found += 1;
      expect({ body: new TextDecoder().decode(body), part }).toEqual({ body: new TextDecoder().decode(body), part: await viaFormData(contentType, body) });
    }
    // The plain ones were found (the comparison above ran), the odd ones were left to formData().
    expect(found).toBe(4);
  });
});

function formOf(blob: Blob, filename: string): FormData {
  const form = new FormData();
  form.append('file', blob, filename);
  return form;
}

describe('an upload stored by the emulator', () => {
  it('keeps bytes of its own: a sender reusing its buffer after the answer changes no stored document', async () => {
    const emulator = createEmulator();
    const { roomId } = await seed(emulator);
    const memo = 'Acme grew revenue threefold in 2025.';
    // The whole body in one chunk of the caller's memory, which the caller overwrites once answered.
    const body = handWritten('Content-Disposition: form-data; name="file"; filename="memo.txt"\r\nContent-Type: text/plain', memo);
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        controller.enqueue(body);
        controller.close();
      },
    });
    const answer = await emulator.fetch(`${ORIGIN}/api/v1/rooms/${roomId}/documents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${KEY}`, 'content-type': CONTENT_TYPE },
      body: stream,
      duplex: 'half',
    } as RequestInit);
    expect((await answer.json()).data).toMatchObject({ original_filename: 'memo.txt', size: memo.length, content_type: 'text/plain' });
    body.fill(0x78); // 'x'
    const search = await call(emulator, 'POST', `/rooms/${roomId}/search`, { json: { query: 'revenue' } });
    expect(search.body.data.citations[0]).toMatchObject({ filename: 'memo.txt', passage: memo });
  });

  it('over HTTP, reads the body once and answers 413 to one streamed past maxUploadBytes, then goes on serving', async () => {
    const emulator = createEmulator({ maxUploadBytes: 100_000 });
    const server = await emulator.listen();
    try {
      const { roomId } = await seed(emulator);
      const upload = (size: number) => {
        const body = handWritten(DISPOSITION, new Uint8Array(size).fill(0x61));
        // Streamed in 16 KiB chunks with no Content-Length: the limit is found while reading.
        let at = 0;
        const stream = new ReadableStream<Uint8Array>({
          pull(controller) {
            if (at >= body.length) return controller.close();
            controller.enqueue(body.subarray(at, (at += 16_384)));
          },
        });
        return fetch(`${server.url}/api/v1/rooms/${roomId}/documents`, {
          method: 'POST',
          headers: { authorization: `Bearer ${KEY}`, 'content-type': CONTENT_TYPE },
          body: stream,
          duplex: 'half',
        } as RequestInit);
      };
      const tooLarge = await upload(300_000);
      expect(tooLarge.status).toBe(413);
      expect((await tooLarge.json()).error).toMatch(/^body too large: the emulator takes at most 100000 bytes here/);
      const stored = await upload(90_000);
      expect(stored.status).toBe(201);
      expect((await stored.json()).data).toMatchObject({ original_filename: 'a.bin', size: 90_000, content_type: 'text/plain' });
    } finally {
      await emulator.close();
    }
  });
});
