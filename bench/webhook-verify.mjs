// Webhook verification throughput: `verifySignature` of the built package (header parsing included,
// through its public async API) against the naive limit (createHmac with a string key +
// timingSafeEqual, called synchronously), a KeyObject made once, @octokit/webhooks-methods and the
// Web Crypto paths. Bodies of 1 KiB and 256 KiB, as Buffers (what express.raw() and node:http give)
// and as strings (the only form octokit takes). Plus: a valid and an invalid signature, timed alike.
import { createHmac, createSecretKey, timingSafeEqual, webcrypto } from 'node:crypto';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { verifySignature } from 'svc-sdk/webhooks';
// The build every runtime but Node gets (Web Crypto); `svc-sdk/webhooks` above resolves to the Node one.
import { verifySignature as verifySignatureWeb } from '../dist/webhooks.js';
import { fixed, interleave, pairedRatio, table, times, verdict } from './lib/stats.mjs';

const SECRET = 'whsec_bench_0123456789abcdef0123456789abcdef';

/** A delivery-shaped JSON body of about `size` bytes. */
function makeBody(size) {
  const envelope = { event: 'document.uploaded', delivery_id: 'dlv_0123456789', data: { document_id: 11, padding: '' } };
  const bare = JSON.stringify(envelope).length;
  envelope.data.padding = 'x'.repeat(Math.max(0, size - bare));
  return JSON.stringify(envelope);
}

function casesFor(text) {
  const buffer = Buffer.from(text);
  const header = `sha256=${createHmac('sha256', SECRET).update(buffer).digest('hex')}`;
  // Same length, last hex digit changed: it parses, and only the comparison can reject it.
  const wrong = header.slice(0, -1) + (header.endsWith('0') ? '1' : '0');
  const key = createSecretKey(Buffer.from(SECRET));
  const webKey = webcrypto.subtle.importKey('raw', Buffer.from(SECRET), { name: 'HMAC', hash: 'SHA-256' }, false, ['verify']);

  // The naive limit: what a careful hand-written verifier does, string key, with the length check
  // that `Buffer.from(hex, 'hex')` needs (it stops silently at a bad digit).
  const naive = (body, signatureHeader) => {
    const expected = Buffer.from(signatureHeader.slice(7), 'hex');
    if (expected.length !== 32) return false;
    return timingSafeEqual(createHmac('sha256', SECRET).update(body).digest(), expected);
  };
  const withKeyObject = (body, signatureHeader) => {
    const expected = Buffer.from(signatureHeader.slice(7), 'hex');
    if (expected.length !== 32) return false;
    return timingSafeEqual(createHmac('sha256', key).update(body).digest(), expected);
  };
  const webRaw = async (body, signatureHeader) => {
    const expected = Buffer.from(signatureHeader.slice(7), 'hex');
    if (expected.length !== 32) return false;
    return webcrypto.subtle.verify('HMAC', await webKey, expected, body);
  };

  const sync = (check) => (operations) => {
    for (let i = 0; i < operations; i++) if (!check()) throw new Error('a valid signature did not verify');
  };
  const async_ = (check, expect = true) => async (operations) => {
    for (let i = 0; i < operations; i++) if ((await check()) !== expect) throw new Error('unexpected verification result');
  };
  return {
    buffer: {
      'naive limit (createHmac, string key)': sync(() => naive(buffer, header)),
      'createHmac with a KeyObject made once': sync(() => withKeyObject(buffer, header)),
      'svc-sdk verifySignature (node:crypto)': async_(() => verifySignature(buffer, header, SECRET)),
      'svc-sdk verifySignature, invalid signature': async_(() => verifySignature(buffer, wrong, SECRET), false),
      'svc-sdk verifySignature (Web Crypto build)': async_(() => verifySignatureWeb(buffer, header, SECRET)),
      'raw Web Crypto, key imported once': async_(() => webRaw(buffer, header)),
    },
    string: {
      'naive limit (createHmac, string key)': sync(() => naive(text, header)),
      'svc-sdk verifySignature (node:crypto)': async_(() => verifySignature(text, header, SECRET)),
      '@octokit/webhooks-methods verify': async_(() => octokitVerify(SECRET, text, header)),
    },
  };
}

export async function benchWebhookVerify({ quick = false } = {}) {
  const results = [];
  for (const size of [1024, 256 * 1024]) {
    const text = makeBody(size);
    const groups = casesFor(text);
    for (const [bodyKind, calls] of Object.entries(groups)) {
      const cases = Object.entries(calls).map(([name, run]) => ({ name, run }));
      // About 10-20 ms per sample whatever the size; warm every path first.
      const operations = size === 1024 ? 4000 : 40;
      for (const { run } of cases) await run(operations);
      const measured = await interleave(cases, {
        rounds: quick ? 7 : 31,
        operations,
        baseline: 'naive limit (createHmac, string key)',
      });
      for (const [name, { micros, ratio, samples }] of measured) results.push({ size, bodyKind, name, micros, ratio, samples });
    }
  }
  return results;
}

const label = (size) => (size === 1024 ? '1 KiB' : `${size / 1024} KiB`);

/** The rows of the summary: figure, target, measured, peers, whether the target is met. */
export function summarizeWebhookVerify(results) {
  const find = (size, bodyKind, name) => results.find((r) => r.size === size && r.bodyKind === bodyKind && r.name.startsWith(name));
  const summary = [];
  for (const size of [1024, 256 * 1024]) {
    const sdk = find(size, 'buffer', 'svc-sdk verifySignature (node:crypto)');
    const sdkString = find(size, 'string', 'svc-sdk verifySignature (node:crypto)');
    const octokit = find(size, 'string', '@octokit');
    const web = find(size, 'buffer', 'svc-sdk verifySignature (Web Crypto');
    const invalid = find(size, 'buffer', 'svc-sdk verifySignature, invalid');
    // Throughput relative to the naive limit: 1 / time ratio.
    const speed = (r) => 1 / r.ratio;
    // At 256 KiB every verifier is bound by SHA-256 itself (the per-call work is 0.1 % of the time),
    // so there a ratio within 1 % of the limit or of octokit is a tie, not a miss.
    const tie = size === 1024 ? 0 : 0.01;
    summary.push([
      `verify throughput, ${label(size)} Buffer body, vs the naive limit`,
      size === 1024 ? '≥ 1.00×' : '≥ 1.00× (±1 %)',
      `${times(speed(sdk))} (${fixed(sdk.micros)} µs)`,
      `KeyObject ${times(speed(find(size, 'buffer', 'createHmac with a KeyObject')))}; Web Crypto build ${times(speed(web))}; raw Web Crypto ${times(speed(find(size, 'buffer', 'raw Web Crypto')))}`,
      verdict(speed(sdk) >= 1 - tie),
    ]);
    const versusOctokit = pairedRatio(sdkString, octokit);
    summary.push([
      `verify throughput, ${label(size)} string body, vs the naive limit`,
      size === 1024 ? '≥ 1.00×, ahead of octokit' : '≥ 1.00×, not behind octokit (±1 %)',
      `${times(speed(sdkString))} (${fixed(sdkString.micros)} µs); ${times(1 / versusOctokit)} octokit's`,
      `@octokit/webhooks-methods ${times(speed(octokit))}`,
      verdict(speed(sdkString) >= 1 - tie && (size === 1024 ? versusOctokit < 1 : versusOctokit <= 1 + tie)),
    ]);
    summary.push([
      `invalid / valid signature time, ${label(size)}`,
      '1.00× (constant time)',
      times(pairedRatio(invalid, sdk)),
      '',
      // Timing noise on this machine is a few per cent even between neighbouring samples.
      verdict(Math.abs(pairedRatio(invalid, sdk) - 1) <= 0.05),
    ]);
  }
  return summary;
}

export function renderWebhookVerify(results) {
  const summary = summarizeWebhookVerify(results);
  const detail = results.map(({ size, bodyKind, name, micros, ratio }) => [
    label(size),
    bodyKind,
    name,
    fixed(micros, 2),
    times(ratio),
    times(1 / ratio),
  ]);
  return [
    table(['figure', 'target', 'measured', 'peers', 'target met'], summary),
    '',
    'Every case, medians of interleaved rounds (ratios are medians of the ratios within each round):',
    '',
    table(['body', 'body as', 'verifier', 'µs / verify', 'time vs naive', 'throughput vs naive'], detail),
  ].join('\n');
}

if (import.meta.url === `file://${process.argv[1]}`) {
  console.log(renderWebhookVerify(await benchWebhookVerify({ quick: process.argv.includes('--quick') })));
}
