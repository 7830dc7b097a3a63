// The delivery's JSON text as many servers write it (Python's json.dumps, for one): a space after
// every `,` and `:`, and every non-ASCII character escaped as \uXXXX. Not what JSON.stringify
// writes, on purpose: a receiver that verifies JSON.stringify(parsedBody) instead of the raw bytes
// (the classic raw-body bug) fails against the emulator as it would in production.

/** `value` as JSON text with `", "` and `": "` separators and non-ASCII escaped; the same data as `JSON.stringify(value)`. */
export function serviceJson(value: unknown): string {
  // Through JSON.stringify first, so toJSON (dates), undefined and functions go as they would.
  return write(JSON.parse(JSON.stringify(value)) as unknown);
}

function write(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(write).join(', ')}]`;
  if (value !== null && typeof value === 'object') {
    return `{${Object.entries(value).map(([key, item]) => `${text(key)}: ${write(item)}`).join(', ')}}`;
  }
  return text(value);
}

/** A JSON scalar, with every character past ASCII as a \u escape (a pair of them for astral ones). */
function text(value: unknown): string {
  return JSON.stringify(value).replace(/[\u0080-\uffff]/g, (char) => `\\u${char.charCodeAt(0).toString(16).padStart(4, '0')}`);
}
