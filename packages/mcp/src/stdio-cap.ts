// The stdio line cap: a message over the cap is answered as a protocol error (JSON-RPC -32600,
// with its id when the line's start names one) and logged, and the server goes on reading; the
// SDK's own cap would close the transport, and the server would exit 0 as if stdin had ended.
import { Transform, type Readable, type Writable } from 'node:stream';

/** Largest stdio message by default: the SDK's 10 MiB. */
export const DEFAULT_MAX_LINE_BYTES = 10 * 1024 * 1024;

/**
 * `input` with every line over `maxBytes` dropped: for each, `stdout` gets the error response and
 * `log` one line naming the cap. What is passed on never holds a line over the cap.
 *
 * @param input The protocol's input (stdin), one JSON-RPC message a line.
 * @param stdout Where the error answer to a line over the cap goes.
 * @param log Where the one line naming the cap goes (stderr).
 * @param maxBytes The largest line passed on, in bytes (10 MiB).
 */
export function cappedLines(input: Readable, stdout: Writable, log: (line: string) => void, maxBytes = DEFAULT_MAX_LINE_BYTES): Readable {
  // The line being read: held until its newline (as the SDK's own buffer would), dropped once over the cap.
  let pieces: Buffer[] = [];
  let length = 0;
  let dropping = false;
  let head = '';
  const refuse = () => {
    const id = /^\s*\{.*?"id"\s*:\s*("(?:[^"\\]|\\.){0,200}"|-?\d{1,16})/.exec(head)?.[1];
    const message = `[svc-sdk] message over ${maxBytes} bytes, not read: send smaller arguments (the stdio cap)`;
    stdout.write(`${JSON.stringify({ jsonrpc: '2.0', id: id === undefined ? null : (JSON.parse(id) as unknown), error: { code: -32600, message } })}\n`);
    log(`svc-sdk mcp: ${message}`);
  };
  const capped = new Transform({
    transform(chunk: Buffer, _encoding, done) {
      let start = 0;
      while (start < chunk.length) {
        const newline = chunk.indexOf(0x0a, start);
        const end = newline === -1 ? chunk.length : newline + 1;
        const piece = chunk.subarray(start, end);
        if (head.length < 512) head += piece.subarray(0, 512).toString('utf8');
        length += piece.length;
        if (!dropping && length > maxBytes) {
          dropping = true;
          pieces = [];
        }
        if (!dropping) pieces.push(piece);
        if (newline !== -1) {
          if (dropping) refuse();
          else this.push(Buffer.concat(pieces));
          pieces = [];
          dropping = false;
          length = 0;
          head = '';
        }
        start = end;
      }
      done();
    },
  });
  input.pipe(capped);
  return capped;
}
