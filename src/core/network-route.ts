/**
 * A client's route and trust as a tool needs them before any call (`svc-sdk doctor`): the same
 * settings a `Client` makes from its options (transport.ts), made from an environment the tool
 * names rather than `process.env`, with the fetch that takes that route. Node only (svc-sdk/internal).
 */
import type { TransportOptions } from './transport.js';
import { bundledTrust, proxyCandidates, runtimeRoute, settingsOf, type ProxyCandidate } from './transport-settings-node.js';
import { createTransport } from './transport-node.js';

/** What a client of these options would go through: its fetch, the words for its route and trust, and the proxies it may use. */
export interface NetworkRoute {
  /** A fetch taking this route (the dispatcher rides along); the runtime's own when no option or proxy asks for one. */
  readonly fetch: typeof globalThis.fetch;
  /** `direct`, `through the proxy http://[redacted]@proxy:3128`, `through HTTPS_PROXY … (NO_PROXY: …)`. */
  readonly route: string;
  /** `Node's bundled CAs and NODE_EXTRA_CA_CERTS (…)`, `the ca option (1 certificate) besides …`. */
  readonly trust: string;
  /** The proxies a request may go through (NO_PROXY decides per host, as the dispatcher does). */
  readonly proxies: readonly ProxyCandidate[];
  /** Closes the dispatcher made here (its idle connections), if any. */
  close(): Promise<void>;
}

/**
 * The route and trust of a client of `options` in `env`. Bad options throw the `ValidationError`
 * `new Client()` would; a missing undici throws its `UndiciMismatchError` (the install line).
 *
 * @param options The network options: `proxy`, `ca`, `cert`, `key`.
 * @param env The environment to read `HTTPS_PROXY`, `HTTP_PROXY`, `NO_PROXY` and `NODE_EXTRA_CA_CERTS` from.
 */
export async function resolveNetwork(options: TransportOptions, env: Readonly<Record<string, string | undefined>>): Promise<NetworkRoute> {
  const proxies = proxyCandidates(options, env);
  let settings = settingsOf(options, env);
  if (settings === undefined) {
    const route = runtimeRoute(env);
    const runtimeFetch = { fetch: globalThis.fetch, route, trust: bundledTrust(env), proxies: route === 'direct' ? [] : proxies, close: async () => {} };
    // Direct: an agent of its own when undici is installed, so no connection the runtime's fetch holds open is reused (every step is seen).
    if (route !== 'direct' || !(await import('undici').then(() => true, () => false))) return runtimeFetch;
    settings = { proxy: undefined, fromEnv: false, env, ca: undefined, cert: undefined, key: undefined, dispatcher: undefined };
  }
  const transport = await createTransport(settings);
  const dispatcher = transport.dispatcher as { close?: () => Promise<void> };
  const fetch = ((input: RequestInfo | URL, init?: RequestInit) => transport.fetch(input, { ...init, dispatcher } as RequestInit)) as typeof globalThis.fetch;
  return { fetch, route: transport.route, trust: transport.trust, proxies, close: async () => void (await dispatcher.close?.()) };
}
