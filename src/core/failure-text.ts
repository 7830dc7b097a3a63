// How the client's errors and log lines show a failure: the redaction rule (shared/redact.ts, the
// one rule) and the words of a message (the service's own, a text answer described, where a
// connection was tried). Imported as any module is: an error made at any moment says the same.
export { redactBody, redactEveryString, redactUrl } from '../shared/redact.js';

/** What an error answer says, in a few words: the service's own (`error`, `message`, `detail` of a JSON body), or a text answer described; else `undefined`. */
export function answerReason(body: unknown, headers: Headers, size: number | undefined): string | undefined {
  return typeof body === 'string' ? describeText(body, headers, size) : serverMessage(body);
}

/**
 * A text answer (an upstream's HTML error page, a proxy's text) is described, never quoted: it can
 * be kilobytes of markup, and the message ends up in logs. The text stays whole on `body`.
 */
function describeText(body: string, headers: Headers, size: number | undefined): string {
  // split always gives a first part (the whole value when it has no `;`).
  const type = headers.get('content-type')?.split(';')[0]!.trim() || 'no content type';
  const bytes = size ?? new TextEncoder().encode(body).byteLength;
  return `${type} answer of ${bytes} bytes (kept whole on error.body)`;
}

/** The service's own words: `error`, `message` or `detail` of a JSON body. */
function serverMessage(body: unknown): string | undefined {
  if (typeof body !== 'object' || body === null) return undefined;
  const record = body as Record<string, unknown>;
  for (const key of ['error', 'message', 'detail'] as const) {
    const value = record[key];
    if (typeof value === 'string') return value;
    if (value !== undefined) return JSON.stringify(value).slice(0, 200);
  }
  return undefined;
}

/** A signal's reason in a few words: `TimeoutError: signal timed out`, or the text of a string reason, 200 characters at most. */
export function describeReason(reason: unknown): string {
  let text: string;
  try {
    text = reason instanceof Error ? `${reason.name}: ${reason.message}` : String(reason);
  } catch {
    text = typeof reason; // a reason whose toString throws
  }
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}

/**
 * `127.0.0.1:4000 (ECONNREFUSED)`: where a connection was tried (the scheme's default port spelled
 * out; `parsed` is the request's URL, parsed by the caller), and the first system error code along
 * the failure's `cause` chain.
 */
export function unreached(parsed: URL | undefined, cause: unknown): string {
  const where = parsed ? `${parsed.hostname}:${parsed.port || (parsed.protocol === 'https:' ? '443' : '80')}` : 'the service';
  for (let error = cause, depth = 0; typeof error === 'object' && error !== null && depth < 8; depth++) {
    const { code } = error as { code?: unknown };
    if (typeof code === 'string' && /^[A-Z][A-Z0-9_]+$/.test(code)) return `${where} (${code})`;
    error = (error as { cause?: unknown }).cause;
  }
  return where;
}
