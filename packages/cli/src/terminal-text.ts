// What the CLI prints of text it did not write (file names, service and forward-target messages, request
// bodies): with every control character escaped, so a hostile name or answer cannot move the cursor,
// clear the screen, retitle the window or forge lines of output.

/** C0 controls, DEL and C1 controls (0x80–0x9f, which some terminals read as ESC sequences), plus the Unicode line and paragraph separators and bidirectional overrides. */
// eslint-disable-next-line no-control-regex -- matching control characters is the point
const CONTROL = /[\x00-\x1f\x7f-\x9f\u2028\u2029\u202a-\u202e\u2066-\u2069]/g;

/**
 * `text` safe to print on one terminal line: each control character as a visible escape
 * (`\n`, `\t`, `\r`, `\x1b`, `\u202e`), everything else as it was.
 */
export function escapeControl(text: string): string {
  return text.replace(CONTROL, (char) => {
    if (char === '\n') return '\\n';
    if (char === '\r') return '\\r';
    if (char === '\t') return '\\t';
    const code = char.charCodeAt(0);
    return code <= 0xff ? `\\x${code.toString(16).padStart(2, '0')}` : `\\u${code.toString(16).padStart(4, '0')}`;
  });
}
