/**
 * The route and trust of a client's requests: a proxy (the `proxy` option, else `HTTPS_PROXY` /
 * `HTTP_PROXY` / `NO_PROXY`), the certificates it trusts (`ca`, the system store) and presents
 * (`cert` / `key`), or an undici dispatcher of the caller's. These are Node's: the `node` entry
 * registers the rules that read them (transport-settings-node.ts, once per client) and the module
 * that makes the dispatcher with the first attempt that needs it (transport-node.ts: undici is an
 * optional peer, loaded then). Any other runtime's fetch has its own proxy and trust settings, so
 * its bundle carries none of those rules, and a client given one of these options is refused.
 */
import { ValidationError } from './errors.js';

/** The network options of a `Client`. */
export interface TransportOptions {
  /**
   * The proxy every request goes through (`http://proxy:3128`, `http://user:password@proxy:3128`), or
   * `false` to go direct whatever the environment says. Default: `HTTPS_PROXY` / `HTTP_PROXY` (either
   * case), with `NO_PROXY`'s exceptions, matched as Node's own fetch does. Needs the `undici` package
   * of the runtime's major (Node 22: 6, Node 24: 7, Node 26: 8) unless Node routes fetch itself
   * (`NODE_USE_ENV_PROXY=1` on Node 22.21 or 24 and later) and no other option here is set.
   */
  proxy?: string | false | undefined;
  /**
   * Certificates (PEM) to trust besides Node's bundled ones and `NODE_EXTRA_CA_CERTS` (a corporate CA
   * a proxy intercepts TLS with), or `'system'` for the operating system's store besides them.
   */
  ca?: string | readonly string[] | 'system' | undefined;
  /** A client certificate (PEM) for mutual TLS; with `key`. */
  cert?: string | undefined;
  /** The private key (PEM) of `cert`. */
  key?: string | undefined;
  /**
   * An undici dispatcher of your own, handed to fetch for every request. It must come from the undici
   * major the runtime's fetch is built on (`process.versions.undici`): another is refused with an
   * `UndiciMismatchError`, as their internals differ. Exclusive with the options above.
   */
  dispatcher?: object | undefined;
}

/** What a client's requests go through, resolved once: what transport-node.ts builds a dispatcher from. */
export interface TransportSettings {
  /** An explicit proxy URL; `undefined` with `fromEnv` for the environment's. */
  readonly proxy: string | undefined;
  /** The environment's proxies apply (no `proxy` option, and one of HTTPS_PROXY / HTTP_PROXY is set). */
  readonly fromEnv: boolean;
  readonly env: Readonly<Record<string, string | undefined>>;
  readonly ca: readonly string[] | 'system' | undefined;
  readonly cert: string | undefined;
  readonly key: string | undefined;
  readonly dispatcher: object | undefined;
}

/** A client's requests' route and trust, resolved (transport-node.ts): what attempt.ts hands fetch, and what errors say. */
export interface Transport {
  /** The fetch to call: undici's own, paired with `dispatcher`, or the runtime's for a caller's dispatcher. */
  readonly fetch: typeof globalThis.fetch;
  readonly dispatcher: object;
  /** `direct`, `through the proxy http://proxy:3128`, `through HTTPS_PROXY http://… (NO_PROXY: …)`: never a password. */
  readonly route: string;
  /** `Node's bundled CAs and NODE_EXTRA_CA_CERTS`, `the ca option (1 certificate) besides …`. */
  readonly trust: string;
}

/** What the `node` entry registers: the rules that read a client's settings, and the loader of the module that builds its dispatcher. */
export interface TransportSupport {
  /** The client's transport settings, or `undefined` when fetch's own route is the one; bad options throw a ValidationError. */
  settingsOf(options: TransportOptions, env: Readonly<Record<string, string | undefined>> | undefined): TransportSettings | undefined;
  /** How an error names the route and trust of a client without settings, when its usual words do not say enough. */
  defaultRoute(): string | undefined;
  /** transport-node.ts, loaded with the first attempt that needs a dispatcher. */
  load(): Promise<{ createTransport(settings: TransportSettings): Promise<Transport> }>;
}
let registered: TransportSupport | undefined;

/** Registers this runtime's transport support (the `node` entry does). @internal */
export function useTransport(support: TransportSupport): void {
  registered = support;
}

/** The options that only Node's transport reads: the keys of TransportOptions (`satisfies` refuses a misspelt one). */
const NODE_OPTIONS = ['proxy', 'ca', 'cert', 'key', 'dispatcher'] as const satisfies readonly (keyof TransportOptions)[];

/**
 * The client's transport settings, or `undefined` when fetch's own route is the one (then nothing
 * is loaded). Bad options, and off Node any of them, are a ValidationError of `new Client()`.
 */
export function transportOf(options: TransportOptions, env: Readonly<Record<string, string | undefined>> | undefined): TransportSettings | undefined {
  if (registered) return registered.settingsOf(options, env);
  const given = NODE_OPTIONS.filter((name) => options[name] !== undefined);
  if (given.length === 0) return undefined;
  throw new ValidationError(
    'new Client()',
    given.map((name) => ({ path: [name], message: `${name} is a Node option: in this runtime, its fetch's own proxy and trust settings apply; leave it out` })),
  );
}

/** The registered module that builds a client's dispatcher (only a client with settings asks, and only Node makes settings). */
export function loadTransport(): ReturnType<TransportSupport['load']> {
  return registered!.load();
}

/** How an error names the route and trust of a client without transport settings, or `undefined` when its usual words say enough (always, off Node). */
export function defaultRoute(): string | undefined {
  return registered?.defaultRoute();
}
