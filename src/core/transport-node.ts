/**
 * The dispatcher of a client's requests on Node (loaded with the first attempt of a client whose
 * transport.ts settings ask for one), and the words that name its route and trust in errors.
 *
 * A dispatcher the SDK makes comes with the `fetch` of the same undici package (an optional peer),
 * so the two always match, whatever undici Node's own fetch is built on. A dispatcher of the
 * caller's goes to the runtime's fetch, and must come from the undici major that fetch is built on.
 */
import { UndiciMismatchError } from './errors.js';
import { runtime } from '../shared/runtime.js';
import { bundledTrust, shownProxy, type Transport, type TransportSettings } from './transport.js';

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

/** The installed undici's version, read from its package.json. */
async function installedVersion(): Promise<string | undefined> {
  try {
    const manifest = (await import('undici/package.json', { with: { type: 'json' } })) as { default: { version: string } };
    return manifest.default.version;
  } catch {
    return undefined;
  }
}

/** The TLS options of every connection (to the service, and to an https proxy), and how errors name them. */
async function trustOf(settings: TransportSettings): Promise<{ tls: Record<string, unknown>; trust: string }> {
  const bundled = bundledTrust(settings.env);
  const tls: Record<string, unknown> = {};
  let trust = bundled;
  if (settings.ca !== undefined) {
    const { default: nodeTls } = await import('node:tls');
    // Node's default store holds its bundled roots and NODE_EXTRA_CA_CERTS: a `ca` of our own replaces it, so it is added back.
    const defaults = typeof nodeTls.getCACertificates === 'function' ? nodeTls.getCACertificates('default') : [...nodeTls.rootCertificates];
    if (settings.ca === 'system') {
      tls.ca = [...defaults, ...nodeTls.getCACertificates('system')];
      trust = `the system store besides ${bundled}`;
    } else {
      tls.ca = [...defaults, ...settings.ca];
      trust = `the ca option (${settings.ca.length} certificate${settings.ca.length === 1 ? '' : 's'}) besides ${bundled}`;
    }
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
