// The route, DNS, TCP, CONNECT and TLS lines of `svc-sdk doctor`, read from the connections one
// request to the service opened (doctor-connections.ts): the route is the one the library's
// dispatcher took (its NO_PROXY rules, not a copy), each step's failure the one undici reported.
import { isIP } from 'node:net';
import { describeFetchFailure, type ProxyCandidate } from 'svc-sdk/internal';
import type { Connection, PeerCertificate } from './doctor-connections.js';
import { fail, pass, skip, type Check } from './doctor-report.js';

/** The service as the doctor reaches it. */
export interface ServiceTarget {
  readonly url: URL;
  /** `host:port`, the scheme's port written out. */
  readonly target: string;
}

/** What the request found: its connections, and the error when no answer came. */
export interface Observed {
  readonly connections: readonly Connection[];
  readonly failure: unknown;
  readonly timeoutMs: number;
}

// Asked of a connection's code, which is undefined until it fails.
const DNS_CODES: ReadonlySet<string | undefined> = new Set(['ENOTFOUND', 'EAI_AGAIN', 'EAI_FAIL', 'EAI_NODATA', 'EAI_NONAME']);
const TCP_CODES: ReadonlySet<string | undefined> = new Set(['ECONNREFUSED', 'ETIMEDOUT', 'EHOSTUNREACH', 'ENETUNREACH', 'UND_ERR_CONNECT_TIMEOUT', 'ECONNRESET']);
const UNTRUSTED = /SELF_SIGNED|UNABLE_TO_GET_ISSUER|UNABLE_TO_VERIFY|CERT_UNTRUSTED|CERT_SIGNATURE_FAILURE/;

const codeOf = (connection: Connection) => connection.error?.code;
/**
 * The last connection to `target` that ended (connected or failed), else the last one begun: undici tries
 * again a connection that failed on the socket (a proxy that drops the tunnel) until the request times out,
 * its last try cut off before it ended; the failures before it say what went wrong.
 */
const lastTo = (connections: readonly Connection[], target: string) => {
  const attempts = connections.filter((connection) => connection.target === target);
  return attempts.findLast((connection) => connection.socket || connection.error) ?? attempts.at(-1);
};
const cn = (name: PeerCertificate['subject']) => {
  const value = name?.CN ?? name?.O;
  return Array.isArray(value) ? value.join(', ') : (value ?? 'an unnamed subject');
};

/**
 * The lines from `route` to `tls`, and whether the service was reached (a connection made, or
 * one already open), so the key and clock lines know whether to say more.
 */
export function networkChecks(service: ServiceTarget, proxies: readonly ProxyCandidate[], noProxy: string | undefined, observed: Observed, trust: string): { checks: Check[]; reached: boolean } {
  const { connections, failure, timeoutMs } = observed;
  const proxy = proxies.find((candidate) => candidate.host !== service.target && connections.some((connection) => connection.target === candidate.host));
  const origin = lastTo(connections, service.target);
  const shownUrl = `${service.url.origin}/`;
  const route = proxy
    ? pass('route', `${shownUrl} through ${proxy.source} ${proxy.shown}`)
    : pass('route', `${shownUrl} direct${proxies.length && noProxy ? ` (NO_PROXY: ${noProxy})` : ''}`);
  const trustLine = pass('trust', trust);
  const checks: Check[] = [route, trustLine];
  const tlsNone = service.url.protocol === 'http:' ? skip('tls', 'the service URL is http://: no TLS to check') : undefined;

  if (origin === undefined) {
    // No connection was opened: one already was (a long-lived process), or the request failed before connecting.
    if (failure === undefined) {
      checks.push(pass('network', 'the service answered on a connection already open'));
      return { checks, reached: true };
    }
    checks.push(fail('network', `no new connection: the request failed on one already open, or before connecting: ${describeFetchFailure(failure, timeoutMs)}`, 'raise --timeout, or check SVC_BASE_URL'));
    return { checks, reached: false };
  }
  // undici asks the proxy for a tunnel after it records the connection to the service, so a proxy found
  // among the connections comes with the service's.
  const hop = proxy ? lastTo(connections, proxy.host)! : origin;
  const hopName = proxy ? `the proxy's host ${hop.hostname}` : hop.hostname;
  const hopCode = codeOf(hop);
  if (DNS_CODES.has(hopCode)) {
    const fix = proxy
      ? `correct the proxy's host in ${proxy.source}, or check this machine's resolver (/etc/resolv.conf, the VPN)`
      : `correct the host in SVC_BASE_URL (or --base-url), or check this machine's resolver (/etc/resolv.conf, the VPN)`;
    checks.push(fail('dns', `${hopName} does not resolve (${hopCode})`, fix), skip('tcp', 'no address to connect to'));
    if (proxy) checks.push(skip('connect', 'no proxy to ask'));
    checks.push(tlsNone ?? skip('tls', 'no connection'));
    return { checks, reached: false };
  }
  const address = hop.socket?.remoteAddress ?? hop.error?.address;
  const resolved = isIP(hop.hostname) ? `${hop.hostname} is an address: no lookup` : `${hop.hostname} → ${address ?? 'resolved'}`;
  checks.push(pass('dns', proxy ? `${resolved} (the proxy resolves ${service.url.hostname})` : resolved));

  const hopTimedOut = hop.socket === undefined && hop.error === undefined;
  if (TCP_CODES.has(hopCode) || hopTimedOut) {
    const why = hopTimedOut ? `no connection within ${timeoutMs} ms` : describeFetchFailure(hop.error, timeoutMs);
    const fix = proxy
      ? `check that the proxy runs at ${proxy.shown} (${proxy.source}), or that this machine may reach it`
      : `check that the service listens on ${service.target} (the port in SVC_BASE_URL); a firewall that drops it needs ${service.target} allowed, or a proxy (HTTPS_PROXY)`;
    checks.push(fail('tcp', `${hop.target}: ${why}`, hopTimedOut ? `raise --timeout, or ${fix}` : fix));
    if (proxy) checks.push(skip('connect', 'no connection to the proxy'));
    checks.push(tlsNone ?? skip('tls', 'no connection'));
    return { checks, reached: false };
  }
  checks.push(pass('tcp', `connected to ${hop.target}${address && address !== hop.hostname ? ` (${address})` : ''}`));

  if (proxy) {
    const refused = /Proxy response \((\d+)\)/.exec(origin.error?.message ?? '');
    if (refused || (origin.error && !origin.error.code?.match(UNTRUSTED) && !/TLS|CERT|SSL/.test(origin.error.code ?? ''))) {
      const status = refused?.[1];
      const what = status ? `the proxy refused to tunnel to ${service.target} (it answered ${status} to CONNECT)` : `the tunnel to ${service.target} failed: ${describeFetchFailure(origin.error, timeoutMs)}`;
      const fix = status === '407'
        ? `the proxy wants credentials: give them in ${proxy.source} as http://user:password@${proxy.host}`
        : `ask the proxy's administrators to allow CONNECT to ${service.target}, or add ${service.url.hostname} to NO_PROXY if it is reachable directly`;
      checks.push(fail('connect', what, fix), tlsNone ?? skip('tls', 'no tunnel'));
      return { checks, reached: false };
    }
    checks.push(pass('connect', `the proxy tunnels to ${service.target}`));
  }

  if (tlsNone) {
    checks.push(tlsNone);
    return { checks, reached: true };
  }
  // A code implies an error: codeOf reads it from origin.error.
  const tlsCode = codeOf(origin);
  if (tlsCode !== undefined) {
    const intercepted = proxy ? `; a proxy that intercepts TLS signs with its own CA: trust that one` : '';
    const fix = UNTRUSTED.test(tlsCode)
      ? `trust the CA that signed it: NODE_EXTRA_CA_CERTS=/path/to/ca.pem, or --ca /path/to/ca.pem (the Client's ca option)${intercepted}`
      : tlsCode === 'ERR_TLS_CERT_ALTNAME_INVALID'
        ? `the certificate is not for ${service.url.hostname}: check the host in SVC_BASE_URL`
        : /EXPIRED|NOT_YET_VALID/.test(tlsCode)
          ? "check this machine's clock (see the clock line), then tell the service's operators"
          : `check --ca and NODE_EXTRA_CA_CERTS${intercepted}`;
    checks.push(fail('tls', `${describeFetchFailure(origin.error, timeoutMs)} (trust: ${trust})`, fix));
    return { checks, reached: false };
  }
  if (origin.tls) {
    const { protocol, certificate } = origin.tls;
    checks.push(pass('tls', `${protocol}, a certificate for ${cn(certificate.subject)} issued by ${cn(certificate.issuer)}, trusted`));
    return { checks, reached: true };
  }
  // No handshake ended, and no code says why (every TLS and socket error carries one): the request failed first (an
  // answer comes over the encrypted socket).
  checks.push(fail('tls', `no handshake: ${describeFetchFailure(failure, timeoutMs)}`, 'raise --timeout'));
  return { checks, reached: false };
}
