/**
 * `URL.parse` for every runtime the SDK supports: `URL.parse` itself only exists from Node 22.1,
 * and `engines` admits 22.0. Returns `undefined` for text that is not an absolute URL.
 */
export function parseUrl(text: string): URL | undefined {
  try {
    return new URL(text);
  } catch {
    return undefined;
  }
}

/** Whether `text` is an absolute http: or https: URL (what a base URL and a receiver URL must be). */
export function isHttpUrl(text: string): boolean {
  const protocol = parseUrl(text)?.protocol;
  return protocol === 'http:' || protocol === 'https:';
}
