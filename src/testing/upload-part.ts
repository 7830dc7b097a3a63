// The file part of an upload, found without Response.formData() for the shape every client sends:
// formData() copies the body into a Response, then into a File, then out again (four copies of
// the document, each an ArrayBuffer the GC must trace), where this finds the part in place. Any
// other shape (more parts, other headers, escapes in the name, a transfer encoding) returns
// undefined and is parsed by formData(), so what the emulator accepts and answers stays undici's.

/** The file part of an upload: its name, its type as a File would report it, and its bytes. */
export interface UploadPart {
  filename: string;
  type: string;
  /** A view into the body the caller owns. */
  bytes: Uint8Array;
}

// The boundary as browsers, undici and the SDK write it, in the Content-Type formData() would parse.
const BOUNDARY = /^multipart\/form-data; ?boundary=([0-9A-Za-z_-]{1,70})$/;
const DISPOSITION = 'Content-Disposition: form-data; name="file"; filename="';
// A Content-Type line: printable ASCII (undici keeps such a value, then Blob lowercases it).
const TYPE_LINE = /^Content-Type: ([\x21-\x7e][\x20-\x7e]*[\x21-\x7e]|[\x21-\x7e])\r\n/;
const decoder = new TextDecoder();

/**
 * The part named "file" of a one-part multipart body of the usual shape, as `formData()` would give
 * it (`File#name`, `File#type`, the bytes), or undefined when the body is of any other shape.
 */
export function findUploadPart(contentType: string, body: Uint8Array): UploadPart | undefined {
  const boundary = BOUNDARY.exec(contentType)?.[1];
  if (boundary === undefined) return undefined;
  const opening = `--${boundary}\r\n${DISPOSITION}`;
  if (!hasAscii(body, 0, opening)) return undefined;
  // The name ends at the first quote; %-escapes, CR and LF are undici's to decode.
  const nameEnd = body.indexOf(0x22, opening.length);
  if (nameEnd === -1) return undefined;
  const rawName = body.subarray(opening.length, nameEnd);
  if (rawName.includes(0x25) || rawName.includes(0x0d) || rawName.includes(0x0a)) return undefined;
  let at = nameEnd + 1;
  if (!hasAscii(body, at, '\r\n')) return undefined;
  at += 2;
  // formData() gives a file part without a Content-Type the type text/plain.
  let type = 'text/plain';
  const typeLine = TYPE_LINE.exec(latin1(body.subarray(at, at + 200)));
  if (typeLine) {
    type = typeLine[1]!.toLowerCase();
    at += typeLine[0].length;
  }
  if (!hasAscii(body, at, '\r\n')) return undefined;
  const start = at + 2;
  // undici ends the part at the first occurrence of the bare boundary after its start, then
  // expects CR LF -- before it and -- after it (the closing delimiter); anything else, formData().
  const end = indexOfAscii(body, boundary, start);
  if (end - 4 < start || !hasAscii(body, end - 4, '\r\n--') || !hasAscii(body, end + boundary.length, '--')) return undefined;
  return { filename: decoder.decode(rawName), type, bytes: body.subarray(start, end - 4) };
}

/** Whether `bytes` holds the ASCII `text` at `at`. */
function hasAscii(bytes: Uint8Array, at: number, text: string): boolean {
  if (at < 0 || at + text.length > bytes.length) return false;
  for (let index = 0; index < text.length; index++) if (bytes[at + index] !== text.charCodeAt(index)) return false;
  return true;
}

/**
 * The first index of the ASCII `text` in `bytes` from `from`, or -1 (Horspool: most bytes of a
 * document are skipped, not compared, whatever they are).
 */
function indexOfAscii(bytes: Uint8Array, text: string, from: number): number {
  const last = text.length - 1;
  const shift = new Uint8Array(256).fill(text.length);
  for (let index = 0; index < last; index++) shift[text.charCodeAt(index)] = last - index;
  for (let at = from; at + last < bytes.length; at += shift[bytes[at + last]!]!) {
    if (bytes[at + last] === text.charCodeAt(last) && hasAscii(bytes, at, text)) return at;
  }
  return -1;
}

function latin1(bytes: Uint8Array): string {
  return String.fromCharCode(...bytes);
}
