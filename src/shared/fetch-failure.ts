// Why a fetch failed, in words a person acts on. undici rejects every network failure with the same
// `TypeError: fetch failed`; the reason (a refused connection, a timeout, a TLS failure, an unknown
// host) is in its `cause`, sometimes an AggregateError of one error per address tried.

interface ErrorLike {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  cause?: unknown;
  errors?: unknown;
}

/** The innermost error of `error`'s `cause` chain that carries a `code` (the one naming the fault). */
function rootCause(error: unknown): ErrorLike | undefined {
  let found: ErrorLike | undefined;
  let current = error as ErrorLike | undefined;
  for (let depth = 0; current !== null && typeof current === 'object' && depth < 5; depth += 1) {
    if (typeof current.code === 'string') found = current;
    const next: unknown = current.cause ?? (Array.isArray(current.errors) ? current.errors[0] : undefined);
    current = next as ErrorLike | undefined;
  }
  return found;
}

/**
 * One phrase naming why a request got no answer: `connection refused (ECONNREFUSED)`, `timed out` (an
 * `AbortSignal.timeout` of `timeoutMs`),
 * `TLS failed: … (CODE)`, `host not found (ENOTFOUND)`, `connection reset (ECONNRESET)`, or the
 * error's own message when it is none of these.
 */
export function describeFetchFailure(error: unknown, timeoutMs?: number): string {
  const { name, message } = (error ?? {}) as ErrorLike;
  if (name === 'TimeoutError') return timeoutMs === undefined ? 'timed out: no answer in time' : `timed out: no answer within ${timeoutMs} ms`;
  const cause = rootCause(error);
  const code = typeof cause?.code === 'string' ? cause.code : undefined;
  const detail = typeof cause?.message === 'string' ? cause.message : '';
  if (code === undefined) return innermostMessage(error) === 'bad port' ? 'bad port: fetch refuses to connect to this port (1, 6000, 6665–6669 and more): use another' : typeof message === 'string' ? message : String(error);
  if (code === 'ECONNREFUSED') return 'connection refused (ECONNREFUSED): nothing listens there';
  if (code === 'ENOTFOUND' || code === 'EAI_AGAIN') return `host not found (${code})`;
  if (code === 'ECONNRESET' || code === 'EPIPE') return `connection reset (${code})`;
  if (code === 'UND_ERR_SOCKET') return 'the connection closed before an answer (UND_ERR_SOCKET)';
  if (code === 'UND_ERR_CONNECT_TIMEOUT' || code === 'ETIMEDOUT' || code === 'UND_ERR_HEADERS_TIMEOUT') return `timed out (${code})`;
  if (/CERT|TLS|SSL|SELF_SIGNED|UNABLE_TO_VERIFY/.test(code)) return `TLS failed: ${openSslReason(detail) || 'handshake'} (${code})`;
  return detail ? `${detail} (${code})` : code;
}

/**
 * The reason of an OpenSSL error line (`…:error:0A00010B:SSL routines:tls_validate_record_header:wrong
 * version number:../deps/…:77:`), which is `wrong version number`; any other text as it is.
 */
function openSslReason(detail: string): string {
  const parts = detail.split(':');
  const routines = parts.findIndex((part) => part.endsWith(' routines'));
  return (routines === -1 ? detail : (parts[routines + 2] ?? detail)).trim();
}

/** Where an attempt failed: while its answer was read, and whether it had a body to send. */
export interface FailurePhase {
  readonly reading: boolean;
  readonly sending: boolean;
  /** An upload, whose fetch refuses redirects (`redirect: 'error'`). */
  readonly upload: boolean;
}

/** Codes of a connection the other side closed (or reset) after it was made. */
const CLOSED = new Set(['ECONNRESET', 'EPIPE', 'UND_ERR_SOCKET']);

/**
 * What an `APIConnectionError`'s message says after `failed: ` when the plain `could not reach
 * host:port` would be wrong: a port fetch refuses to dial (so nothing was tried), a redirect an upload
 * refused, or a connection that was made and then closed (the service was reached). `undefined`
 * when `could not reach` is right.
 */
export function connectionFailure(error: unknown, url: string, phase: FailurePhase): string | undefined {
  const innermost = innermostMessage(error);
  if (innermost === 'bad port') {
    // `url` is the request's, which fetch parsed before it refused the port (never a scheme's default, so never empty).
    const { port } = new URL(url);
    return (
      `fetch refuses to connect to port ${port} (a "bad port" of the Fetch standard, kept for other protocols: 1, 6000, 6665–6669 and more), ` +
      'so nothing was sent: serve the service on another port, such as 8080'
    );
  }
  if (phase.upload && innermost === 'unexpected redirect') return 'the service answered a redirect, which an upload never follows: check baseUrl';
  const code = rootCause(error)?.code;
  const suffix = typeof code === 'string' ? ` (${code})` : '';
  if (phase.reading) return `the connection closed while the answer was being read${suffix}: the service was reached`;
  if (typeof code === 'string' && CLOSED.has(code)) {
    return phase.sending
      ? `the connection closed while the request was being sent, before any answer${suffix}: the service was reached`
      : `the connection closed before an answer${suffix}: the service was reached`;
  }
  return undefined;
}

/** The message of the last error along a `cause` chain (undici's `bad port` sits under its `fetch failed`). */
function innermostMessage(error: unknown): unknown {
  let message: unknown;
  let current = error as ErrorLike | undefined;
  for (let depth = 0; current !== null && typeof current === 'object' && depth < 5; depth += 1) {
    message = current.message;
    current = current.cause as ErrorLike | undefined;
  }
  return message;
}
