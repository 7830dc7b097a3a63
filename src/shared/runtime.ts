/**
 * The one answer to "which runtime is this?", read once when the SDK loads. Every module that
 * adapts to its runtime reads this record (at use, not at import), so a test takes another
 * runtime's branch by assigning a field (test/support/runtime.ts) rather than faking globals.
 * @internal
 */
export interface Runtime {
  /** A page with a DOM (`window` and `document`): its users can read every request, API key included. */
  browserPage: boolean;
  /**
   * A browser, page or web worker (`document`, or `importScripts`): it owns `User-Agent` and never
   * streams a request body over HTTP/1.1.
   */
  browser: boolean;
  /** Node's own fetch (undici): Node, and not Bun or Deno, which also define `process.versions.node`. */
  nodeFetch: boolean;
  /** Cloudflare's workerd (`navigator.userAgent` is `Cloudflare-Workers`): it refuses `redirect: 'error'`. */
  workerd: boolean;
  /** The version of the undici Node's fetch is built on (`process.versions.undici`); `undefined` elsewhere. */
  undici: string | undefined;
  /** Node's version (`process.versions.node`, `24.11.0`); `undefined` elsewhere. */
  node: string | undefined;
}

/** Reads the runtime from the globals each one defines (no global is required to exist). */
export function detectRuntime(scope: Record<string, unknown> = globalThis as unknown as Record<string, unknown>): Runtime {
  const hasDocument = typeof scope.document !== 'undefined';
  const versions = (scope.process as { versions?: { node?: unknown; undici?: unknown } } | undefined)?.versions;
  const node = typeof versions?.node === 'string' ? versions.node : undefined;
  // Bun and Deno define `process.versions.node` too, with fetches of their own.
  const bunOrDeno = 'Bun' in scope || 'Deno' in scope;
  return {
    browserPage: typeof scope.window !== 'undefined' && hasDocument,
    browser: hasDocument || typeof scope.importScripts === 'function',
    nodeFetch: node !== undefined && !bunOrDeno,
    workerd: (scope.navigator as { userAgent?: unknown } | undefined)?.userAgent === 'Cloudflare-Workers',
    undici: typeof versions?.undici === 'string' ? versions.undici : undefined,
    node,
  };
}

/** The runtime the SDK runs in. @internal */
export const runtime: Runtime = detectRuntime();
