/**
 * The dispatcher of a client's requests on Node (loaded with the first attempt of a client whose
 * transport.ts settings ask for one), and the words that name its route and trust in errors.
 *
 * A dispatcher the SDK makes comes with the `fetch` of the same undici package (an optional peer),
 * so the two always match, whatever undici Node's own fetch is built on. A dispatcher of the
 * caller's goes to the runtime's fetch, and must come from the undici major that fetch is built on.
 */
import { readFileSync } from 'node:fs';
import { SvcError, UndiciMismatchError } from './errors.js';
import { runtime } from '../shared/runtime.js';
import type { Transport, TransportSettings } from './transport.js';
import { bundledTrust, shownProxy } from './transport-settings-node.js';

export type { Transport } from './transport.js';



type Undici = typeof import('undici');


/** The runtime's undici major (`process.versions.undici`), or undefined off Node. */
function runtimeMajor(): number | undefined {
  return runtime.undici === undefined ? undefined : Number.parseInt(runtime.undici, 10);
}

async function loadUndici(): Promise<Undici> {
  try {
    return await import('undici');
  } catch (cause) {
    const major = runtimeMajor();
    throw new UndiciMismatchError(`[svc-sdk] the proxy, ca, cert and key options (and a proxy from the environment) need the undici package, an optional peer of svc-sdk: npm install undici${major ? `@${major}` : ''}`, { cause });
  }
}

/** The installed undici's version, read from its package.json; undefined where that cannot be read (a bundle without it). */
function installedVersion(): Promise<string | undefined> {
  return import('undici/package.json', { with: { type: 'json' } }).then((manifest: { default: { version: string } }) => manifest.default.version, () => undefined);
}

/** The parts of node:tls the trusted certificates are read from. Node before 22.15 has no getCACertificates. */
export interface CertificateStores {
  readonly rootCertificates: readonly string[];
  readonly getCACertificates?: ((type: 'default' | 'system') => string[]) | undefined;
}

/**
 * The certificates a connection trusts under the `ca` option, which replaces Node's default store: that store
 * first (its bundled CAs and NODE_EXTRA_CA_CERTS), then the option's certificates or the system store. A Node
 * without tls.getCACertificates (before 22.15) cannot read the system store, so `'system'` is refused there,
 * and its rootCertificates are the bundled CAs alone, so NODE_EXTRA_CA_CERTS's file is read here.
 *
 * @param ca The option's certificates, or `'system'`.
 * @param tls node:tls as this runtime has it (a test passes an older Node's).
 * @param env The environment naming NODE_EXTRA_CA_CERTS.
 * @internal Exported for its tests.
 */
export function trustedCertificates(ca: readonly string[] | 'system', tls: CertificateStores, env: Readonly<Record<string, string | undefined>>): string[] {
  if (tls.getCACertificates) return [...tls.getCACertificates('default'), ...(ca === 'system' ? tls.getCACertificates('system') : ca)];
  if (ca === 'system') {
    throw new SvcError("[svc-sdk] ca: 'system' needs Node 22.15 or newer (tls.getCACertificates reads the system store): upgrade Node, or pass the system's CA file as ca, e.g. readFileSync('/etc/ssl/certs/ca-certificates.crt', 'utf8')");
  }
  return [...tls.rootCertificates, ...extraCertificates(env.NODE_EXTRA_CA_CERTS), ...ca];
}

/** The file NODE_EXTRA_CA_CERTS names, or none when it is unset or cannot be read (Node warned of that when it started, and trusts none of it either). */
function extraCertificates(file: string | undefined): string[] {
  if (!file) return [];
  try {
    return [readFileSync(file, 'utf8')];
  } catch {
    return [];
  }
}

/** The TLS options of every connection (to the service, and to an https proxy), and how errors name them. */
async function trustOf(settings: TransportSettings): Promise<{ tls: Record<string, unknown>; trust: string }> {
  const bundled = bundledTrust(settings.env);
  const tls: Record<string, unknown> = {};
  let trust = bundled;
  if (settings.ca !== undefined) {
    const { default: nodeTls } = await import('node:tls');
    tls.ca = trustedCertificates(settings.ca, nodeTls, settings.env);
    trust = settings.ca === 'system'
      ? `the system store besides ${bundled}`
      : `the ca option (${settings.ca.length} certificate${settings.ca.length === 1 ? '' : 's'}) besides ${bundled}`;
  }
  if (settings.cert !== undefined) {
    tls.cert = settings.cert;
    tls.key = settings.key;
    trust += ', presenting the cert option';
  }
  return { tls, trust };
}

/** Builds the transport of a client's settings (transport.ts): its dispatcher, its fetch, and the words for its route and trust. */
export async function createTransport(settings: TransportSettings): Promise<Transport> {
  if (settings.dispatcher !== undefined) {
    const undici = await import('undici').catch(() => undefined);
    const major = runtimeMajor();
    // Only a dispatcher of the installed undici can be checked; one from elsewhere is taken as given.
    if (undici && settings.dispatcher instanceof undici.Dispatcher && major !== undefined) {
      const version = await installedVersion();
      const installed = version === undefined ? undefined : Number.parseInt(version, 10);
      if (installed !== undefined && installed !== major) {
        throw new UndiciMismatchError(
          `[svc-sdk] the dispatcher comes from undici ${version}, but this runtime's fetch is built on undici ${runtime.undici}: ` +
            `their internals differ, so it is refused. Install undici@${major}, or pass proxy / ca / cert instead (the SDK then pairs undici's own fetch with its dispatcher)`,
        );
      }
    }
    return { fetch: globalThis.fetch, dispatcher: settings.dispatcher, route: 'through the dispatcher option', trust: 'what the dispatcher option trusts' };
  }
  const undici = await loadUndici();
  const { tls, trust } = await trustOf(settings);
  const fetch = undici.fetch as unknown as typeof globalThis.fetch;
  if (settings.proxy) {
    const dispatcher = new undici.ProxyAgent({ uri: settings.proxy, requestTls: tls, proxyTls: tls });
    return { fetch, dispatcher, route: `through the proxy ${shownProxy(settings.proxy)}`, trust };
  }
  if (settings.fromEnv) {
    const { env } = settings;
    // undici's EnvHttpProxyAgent is what Node's own fetch uses under NODE_USE_ENV_PROXY: the same NO_PROXY rules.
    // The proxies and NO_PROXY of the settings' environment (undici's own default reads process.env, which a tool may not run with).
    const dispatcher = new undici.EnvHttpProxyAgent({
      httpProxy: env.http_proxy || env.HTTP_PROXY || '',
      httpsProxy: env.https_proxy || env.HTTPS_PROXY || '',
      noProxy: env.no_proxy || env.NO_PROXY || '',
      connect: tls,
      requestTls: tls,
      proxyTls: tls,
    });
    const named = (['https_proxy', 'HTTPS_PROXY', 'http_proxy', 'HTTP_PROXY'] as const).filter((name) => env[name]);
    const noProxy = env.no_proxy || env.NO_PROXY;
    const route = `through ${named.map((name) => `${name} ${shownProxy(env[name]!)}`).join(', ')}${noProxy ? ` (NO_PROXY: ${noProxy})` : ''}`;
    return { fetch, dispatcher, route, trust };
  }
  return { fetch, dispatcher: new undici.Agent({ connect: tls }), route: 'direct', trust };
}
