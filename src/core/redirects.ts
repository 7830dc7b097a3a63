/**
 * The redirect rules of the core, in one place:
 * - only a GET follows a redirect, at most MAX_REDIRECTS hops; a write's 3xx is an APIError, never a resend;
 * - a redirect to another origin carries neither the API key nor the caller's headers;
 * - a page of a list is never read from another origin (that origin's items would join the list);
 * - an upload on Node refuses redirects inside fetch (`redirect: 'error'`, see CoreRequest.redirect).
 */
import { redactUrl } from '../shared/redact.js';
import { APIError, describeRequest } from './errors.js';
import { MAX_REDIRECTS } from '../shared/limits.js';


/** What following a redirect needs from the attempt: where it is, how it sends, what it may do. */
export interface RedirectContext {
  method: string;
  /** The URL of the answer being followed. */
  url: string;
  headers: Record<string, string>;
  /** Only a GET follows: a write is never sent again on the word of a 3xx. */
  follow: boolean;
  /** A list's page: only same-origin redirects are followed. */
  sameOrigin: boolean;
  /** The headers a request to another origin carries (no key, no caller headers). */
  anonymousHeaders: Record<string, string>;
  /** Sends the request again to `url` with `headers`, without following; `follow` lets fetch follow (a browser, which hides the target). */
  send: (url: string, headers: Record<string, string>, follow?: boolean) => Promise<Response>;
}

/** A 3xx answer: the only answers whose Location `followRedirects` follows (a browser's opaque stand-in is handled before). */
function isRedirect(response: Response): boolean {
  return response.status >= 300 && response.status < 400;
}

/** Follows a GET's redirects by the rules above; returns the first answer that is not one. */
export async function followRedirects(response: Response, context: RedirectContext): Promise<Response> {
  const { method, follow, sameOrigin } = context;
  const origin = new URL(context.url).origin;
  let { url, headers } = context;
  for (let hops = 0; ; hops++) {
    if (response.type === 'opaqueredirect') {
      // A browser hides where a redirect goes; it drops the Authorization header across origins itself.
      if (!follow) throw redirectError(response, method, url, undefined, false);
      const followed = await context.send(url, headers, true);
      if (sameOrigin && followed.url && new URL(followed.url).origin !== origin) {
        void followed.body?.cancel().catch(() => undefined);
        throw redirectError(followed, method, url, followed.url, true);
      }
      return followed;
    }
    const location = isRedirect(response) ? response.headers.get('location') : null;
    if (location === null) return response;
    void response.body?.cancel().catch(() => undefined);
    if (!follow || hops === MAX_REDIRECTS) throw redirectError(response, method, url, location, false);
    const next = new URL(location, url);
    if (next.origin !== origin) {
      if (sameOrigin) throw redirectError(response, method, url, location, true);
      headers = context.anonymousHeaders;
    }
    url = next.href;
    response = await context.send(url, headers);
  }
}

/** The APIError of a redirect the core does not follow: a write's, a page's to another origin, or one past the hop limit. */
function redirectError(response: Response, method: string, url: string, location: string | undefined, crossOrigin: boolean): APIError {
  const where = location === undefined ? 'a redirect (the browser hides where to)' : `a redirect to ${redactUrl(location)}`;
  const why = crossOrigin
    ? 'a page of a list is never read from another origin, so its items cannot join the list'
    : method === 'GET'
      ? `more than ${MAX_REDIRECTS} redirects`
      : 'a write never follows a redirect, so it was not sent again: check baseUrl';
  return new APIError(
    { status: response.status, body: undefined, headers: response.headers, method, url },
    `${describeRequest(method, url)} failed with ${response.status}, ${where}: ${why}`,
  );
}
