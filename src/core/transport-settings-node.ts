/**
 * Node's rules for a client's route and trust (registered by the `node` entry, transport.ts): its
 * options checked, the environment's proxies read (`HTTPS_PROXY` / `HTTP_PROXY` / `NO_PROXY`, and
 * whether Node's own fetch already routes through them), and the words errors and `svc-sdk doctor`
 * name a route and a trust with. Read once per client; transport-node.ts builds the dispatcher.
 */
import { ValidationError, type Issue } from './errors.js';
import { parseUrl } from '../shared/parse-url.js';
import { runtime } from '../shared/runtime.js';
import type { TransportOptions, TransportSettings } from './transport.js';

/** Whether the environment sets a proxy (which one applies to a request is undici's EnvHttpProxyAgent's choice, as Node's). */
function envProxy(env: Readonly<Record<string, string | undefined>>): boolean {
  return Boolean(env.https_proxy || env.HTTPS_PROXY || env.http_proxy || env.HTTP_PROXY);
}

/**
 * Whether the fetch of Node `version` reads the proxy variables under `NODE_USE_ENV_PROXY=1`: Node 24 on, and 22
 * from 22.21 (the backport). Node 23 and 22 before 22.21 ignore the variable, so the SDK routes the call itself there.
 * (`--use-env-proxy` needs no such check: a Node without it refuses to start with it.)
 *
 * @param version Node's version (`22.14.0`), or `undefined` off Node.
 */
function readsEnvProxy(version: string | undefined): boolean {
  // Off Node, String(undefined) is no version: NaN, and no.
  const [major, minor] = String(version).split('.').map(Number) as [number, number];
  return major === 22 ? minor >= 21 : major >= 24;
}

/** Whether Node itself routes fetch through the environment's proxies (`NODE_USE_ENV_PROXY=1` where it reads it, `--use-env-proxy`). */
function nodeRoutesEnv(env: Readonly<Record<string, string | undefined>>): boolean {
  const execArgv = (globalThis as { process?: { execArgv?: string[] } }).process?.execArgv ?? [];
  return (env.NODE_USE_ENV_PROXY === '1' && readsEnvProxy(runtime.node)) || execArgv.includes('--use-env-proxy');
}

/**
 * Node's own trust in the words errors use: its bundled CAs, and `NODE_EXTRA_CA_CERTS` when set.
 *
 * @param env The environment that names `NODE_EXTRA_CA_CERTS`.
 */
export function bundledTrust(env: Readonly<Record<string, string | undefined>>): string {
  return `Node's bundled CAs${env.NODE_EXTRA_CA_CERTS ? ` and NODE_EXTRA_CA_CERTS (${env.NODE_EXTRA_CA_CERTS})` : ''}`;
}

/**
 * The route of the runtime's fetch on its own: Node's through the environment's proxy (`NODE_USE_ENV_PROXY`), else direct.
 *
 * @param env The environment of the proxy variables and `NODE_USE_ENV_PROXY`.
 */
export function runtimeRoute(env: Readonly<Record<string, string | undefined>>): string {
  return envProxy(env) && nodeRoutesEnv(env) ? "through the environment's proxy (Node's NODE_USE_ENV_PROXY)" : 'direct';
}

/**
 * A proxy URL as a route names it: its user name and password as `[redacted]`.
 *
 * @param url The proxy's URL, credentials and all.
 */
export function shownProxy(url: string): string {
  const parsed = new URL(url);
  const credentials = parsed.username || parsed.password ? '[redacted]@' : '';
  return `${parsed.protocol}//${credentials}${parsed.host}`;
}

/** A proxy a client's requests may go through: where it is set, how a route shows it, and the host:port connected to. */
export interface ProxyCandidate {
  /** `the proxy option`, `HTTPS_PROXY`, `http_proxy`, … */
  readonly source: string;
  /** Its URL with any credentials as `[redacted]`. */
  readonly shown: string;
  /** `host:port` (the scheme's port when none is written), as a connection to it names it. */
  readonly host: string;
}

/**
 * The proxies of these settings (the option's, or the environment's that are set), in their precedence.
 *
 * @param options The client's network options (`proxy: false` and a `dispatcher` mean none).
 * @param env The environment of `HTTPS_PROXY`, `HTTP_PROXY` (either case).
 */
export function proxyCandidates(options: TransportOptions, env: Readonly<Record<string, string | undefined>>): ProxyCandidate[] {
  const candidate = (source: string, url: string): ProxyCandidate => {
    const parsed = new URL(url);
    return { source, shown: shownProxy(url), host: `${parsed.hostname}:${parsed.port || (parsed.protocol === 'https:' ? 443 : 80)}` };
  };
  if (options.proxy === false || options.dispatcher !== undefined) return [];
  if (typeof options.proxy === 'string') return [candidate('the proxy option', options.proxy)];
  return (['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'] as const).filter((name) => env[name]).map((name) => candidate(name, env[name]!));
}

/**
 * How an error names the route and trust of a client without transport settings: the runtime's
 * fetch on its own (`direct`, or Node's route through the environment's proxy), or nothing off Node.
 */
export function defaultRoute(): string | undefined {
  if (!runtime.nodeFetch) return undefined;
  const env = (globalThis as { process?: { env?: Record<string, string | undefined> } }).process?.env ?? {};
  // A direct call of the runtime's fetch, as every client made: its usual words say enough.
  if (!(envProxy(env) && nodeRoutesEnv(env))) return undefined;
  return `route: ${runtimeRoute(env)}; trust: ${bundledTrust(env)}`;
}

/** What is wrong with a client's network options, one issue each. */
function transportIssues(options: TransportOptions): Issue[] {
  const issues: Issue[] = [];
  const { proxy, ca, cert, key, dispatcher } = options;
  if (proxy !== undefined && proxy !== false) {
    const url = typeof proxy === 'string' ? parseUrl(proxy) : undefined;
    if (!url || (url.protocol !== 'http:' && url.protocol !== 'https:')) {
      issues.push({ path: ['proxy'], message: 'proxy must be an http(s) URL such as http://proxy.example:3128, or false for no proxy' });
    }
  }
  const isPem = (value: unknown) => typeof value === 'string' && value.includes('-----BEGIN ');
  if (ca !== undefined && ca !== 'system' && !(isPem(ca) || (Array.isArray(ca) && ca.length > 0 && ca.every(isPem)))) {
    issues.push({ path: ['ca'], message: "ca must be PEM text (-----BEGIN CERTIFICATE-----…), an array of them, or 'system'" });
  }
  if ((cert === undefined) !== (key === undefined)) issues.push({ path: [cert === undefined ? 'cert' : 'key'], message: 'cert and key go together: pass both for mutual TLS' });
  else if (cert !== undefined && !(isPem(cert) && isPem(key))) issues.push({ path: ['cert'], message: 'cert and key must be PEM text (-----BEGIN …-----)' });
  if (dispatcher !== undefined) {
    if (typeof (dispatcher as { dispatch?: unknown } | null)?.dispatch !== 'function') issues.push({ path: ['dispatcher'], message: 'dispatcher must be an undici Dispatcher (an Agent, ProxyAgent, …)' });
    else if (proxy || ca || cert) issues.push({ path: ['dispatcher'], message: 'dispatcher is exclusive with proxy, ca, cert and key: set them on your dispatcher' });
  }
  return issues;
}

/**
 * The client's transport settings, or `undefined` when fetch's own route is the one (no option, no
 * proxy in the environment, or Node already routing fetch through it): then nothing is loaded.
 * Bad options are a ValidationError of `new Client()`.
 */
export function settingsOf(options: TransportOptions, env: Readonly<Record<string, string | undefined>> | undefined): TransportSettings | undefined {
  const issues = transportIssues(options);
  if (issues.length) throw new ValidationError('new Client()', issues);
  const environment = env ?? {};
  const { proxy, cert, key, dispatcher } = options;
  const ca = typeof options.ca === 'string' && options.ca !== 'system' ? [options.ca] : (options.ca as readonly string[] | 'system' | undefined);
  const tls = ca !== undefined || cert !== undefined;
  const fromEnv = proxy === undefined && envProxy(environment) && (tls || !nodeRoutesEnv(environment));
  // `proxy: false` where Node itself routes fetch through the environment's proxy needs a dispatcher of its own (a direct one);
  // anywhere else the runtime's fetch already goes direct, and no undici is needed for it.
  const direct = proxy === false && nodeRoutesEnv(environment) && envProxy(environment);
  if (!proxy && !fromEnv && !tls && !direct && dispatcher === undefined) return undefined;
  return { proxy: proxy || undefined, fromEnv, env: environment, ca, cert, key, dispatcher };
}
