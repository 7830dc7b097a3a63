import { writeFileSync } from 'node:fs';
import { join } from 'node:path';
import tls from 'node:tls';
import { afterAll, describe, expect, it } from 'vitest';
import { SvcError } from '../../src/index.node.js';
import { trustedCertificates } from '../../src/core/transport-node.js';
import { scratch } from './proxies.js';

// The certificates a `ca` option makes a connection trust, against node:tls as this Node has it and as a Node
// before 22.15 has it (rootCertificates alone, no getCACertificates). old-node.test.ts runs the same cases on
// a real Node 22.14, over TLS; here, in process, the lists themselves are compared.

const work = scratch('svc-trusted-');
afterAll(() => work.remove());
const OPTION = '-----BEGIN CERTIFICATE-----\nthe ca option\n-----END CERTIFICATE-----\n';
const EXTRA = '-----BEGIN CERTIFICATE-----\nNODE_EXTRA_CA_CERTS\n-----END CERTIFICATE-----\n';
const extraFile = join(work.dir, 'extra.pem');
writeFileSync(extraFile, EXTRA);
/** node:tls of a Node before 22.15: its bundled CAs, and no getCACertificates. */
const oldTls = { rootCertificates: tls.rootCertificates };

describe('trustedCertificates(ca, tls, env) on this Node (tls.getCACertificates)', () => {
  it("the ca option's certificates come after Node's default store (bundled CAs and NODE_EXTRA_CA_CERTS, not read again)", () => {
    expect(trustedCertificates([OPTION], tls, { NODE_EXTRA_CA_CERTS: extraFile })).toEqual([...tls.getCACertificates('default'), OPTION]);
  });

  it("'system': the default store, then the system store", () => {
    expect(trustedCertificates('system', tls, {})).toEqual([...tls.getCACertificates('default'), ...tls.getCACertificates('system')]);
  });
});

describe('trustedCertificates(ca, tls, env) on a Node before 22.15 (no tls.getCACertificates)', () => {
  it.each([
    ['set', { NODE_EXTRA_CA_CERTS: extraFile }, [EXTRA]],
    ['unset', {}, []],
    ['empty', { NODE_EXTRA_CA_CERTS: '' }, []],
    // Node warned of it when it started, and trusts none of it: neither does the SDK.
    ['naming no file', { NODE_EXTRA_CA_CERTS: join(work.dir, 'missing.pem') }, []],
  ])("the bundled CAs, NODE_EXTRA_CA_CERTS's file (%s), then the ca option's certificates", (_, env, extra) => {
    expect(trustedCertificates([OPTION, OPTION], oldTls, env)).toEqual([...tls.rootCertificates, ...extra, OPTION, OPTION]);
  });

  it("'system' is an SvcError naming the Node it needs and the way round", () => {
    const call = () => trustedCertificates('system', oldTls, {});
    expect(call).toThrow(SvcError);
    expect(call).toThrow(
      "[svc-sdk] ca: 'system' needs Node 22.15 or newer (tls.getCACertificates reads the system store): upgrade Node, or pass the system's CA file as ca, e.g. readFileSync('/etc/ssl/certs/ca-certificates.crt', 'utf8')",
    );
  });
});
