// Where the emulator is as strict as the service in production, beyond each operation's own checks:
// the path prefix, the Host of its HTTP server, the methods it knows, and an `x-request-id` on
// every answer. Each rule is one function here, applied by emulator.ts, handlers.ts and listen.ts.
import { fail } from './requests.js';

/**
 * Whether an msw route's match is the service's path exactly: msw's `*` before `/api/v1` matches any
 * prefix (`/foo/api/v1/rooms`, `/api/v1/api/v1/rooms`), which production answers 404; only the
 * request's own origin may stand there.
 */
export function isServicePath(request: Request, params: Record<string, unknown>): boolean {
  return params['0'] === new URL(request.url).origin;
}

/** The methods an HTTP server routes at all; any other (TRACE, CONNECT, PROPFIND...) is 405 before anything else. */
const KNOWN_METHODS = new Set(['GET', 'HEAD', 'POST', 'PUT', 'PATCH', 'DELETE', 'OPTIONS']);

/** The 405 answer for a method the service does not know, else `undefined`. */
export function unknownMethod(request: Request): Response | undefined {
  if (KNOWN_METHODS.has(request.method)) return undefined;
  const response = fail(405, `method ${request.method} is not allowed: the service answers GET, POST, PATCH and DELETE`);
  response.headers.set('allow', 'GET, POST, PATCH, DELETE');
  return response;
}

/** Host names that reach the emulator's server on the loopback it listens on (127.0.0.1). */
const LOOPBACK_HOSTS = ['127.0.0.1', 'localhost'];

/**
 * The 421 answer for a request whose `Host` is not the loopback the emulator listens on nor one of
 * `allowedHosts`, else `undefined`: a web page whose DNS name was rebound to 127.0.0.1 cannot
 * drive the emulator from a browser.
 */
export function misdirectedHost(request: Request, allowedHosts: readonly string[]): Response | undefined {
  const host = hostName(request.headers.get('host'));
  if (host !== undefined && (LOOPBACK_HOSTS.includes(host) || allowedHosts.includes(host))) return undefined;
  return fail(
    421,
    `Host ${JSON.stringify(request.headers.get('host') ?? '')} is not this emulator's: call it as 127.0.0.1 or localhost, or list the name in createEmulator({ allowedHosts })`,
  );
}

/**
 * The host name of a Host header or a listed name as URLs read it (without its port, lowercase,
 * punycode for an international name: `bücher.example` is `xn--bcher-kva.example`, as a client sends
 * it), or `undefined` when it is not one. The one reading for both sides, so a listed name matches
 * the Host that names it.
 */
export function hostName(header: string | null): string | undefined {
  try {
    return header ? new URL(`http://${header}`).hostname : undefined;
  } catch {
    return undefined;
  }
}

/** `response` with an `x-request-id` (as the service sends on every answer), unless it has one. */
export function withRequestId(response: Response): Response {
  if (response.headers.has('x-request-id')) return response;
  try {
    response.headers.set('x-request-id', `req_${crypto.randomUUID().replaceAll('-', '')}`);
    return response;
  } catch {
    // Immutable headers (a Response from elsewhere): a copy carries it.
    const copy = new Response(response.body, response);
    copy.headers.set('x-request-id', `req_${crypto.randomUUID().replaceAll('-', '')}`);
    return copy;
  }
}
