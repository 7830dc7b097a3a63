// Where `svc-sdk listen` forwards deliveries. A `--forward-to` URL may carry `user:password@` (an app
// behind basic auth); fetch refuses such a URL, and printing it would show the password on every
// delivery line. So the credentials leave the URL here, once, and travel only as a header.

/** The app's webhook route, without credentials, and the basic auth its URL asked for. */
export interface ForwardTarget {
  /** The URL requests go to and lines print: never with `user:password@`. */
  readonly url: URL;
  /** `Basic …` from the URL's `user:password@`, or undefined when it had none. */
  readonly authorization: string | undefined;
}

/** Splits `url` into a URL safe to request and print, and the basic auth of its `user:password@`. */
export function forwardTarget(url: URL): ForwardTarget {
  if (!url.username && !url.password) return { url, authorization: undefined };
  const bare = new URL(url);
  bare.username = '';
  bare.password = '';
  // The URL keeps them percent-encoded (`p%40ss`); basic auth sends the characters themselves.
  const credentials = `${decoded(url.username)}:${decoded(url.password)}`;
  return { url: bare, authorization: `Basic ${Buffer.from(credentials).toString('base64')}` };
}

/** A percent-encoded URL part as its characters; as written when it is not valid percent-encoding (`%zz`). */
function decoded(part: string): string {
  try {
    return decodeURIComponent(part);
  } catch {
    return part;
  }
}
