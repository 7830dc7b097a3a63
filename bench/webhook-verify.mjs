// Webhook verification throughput: svc-sdk's verifySignature (header parsing included, through the
// public async API) vs the naive raw limit (createHmac with a string key + timingSafeEqual) vs
// @octokit/webhooks-methods, and svc-sdk's Web Crypto build; plus valid vs invalid signature timing.
import { createHmac, randomBytes, timingSafeEqual } from 'node:crypto';
import { verify as octokitVerify } from '@octokit/webhooks-methods';
import { verifySignature } from 'svc-sdk/webhooks';
import { fixed, interleave, table } from './lib/stats.mjs';

const secret = 'whsec_bench_secret_0123456789abcdef';

/** The naive limit: what a receiver writes by hand with node:crypto. */
function rawVerify(body, header) {
  const expected = createHmac('sha256', secret).update(body).digest();
  const received = Buffer.from(header.slice(7), 'hex');
  return received.length === expected.length && timingSafeEqual(expected, received);
}

export async function benchWebhookVerify({ quick = false } = {}) {
  // The Web Crypto build, loaded by file path (the package export picks node:crypto on Node).
  const web = await import(new URL('../dist/webhooks.js', import.meta.url).href);
  const results = [];
  for (const size of [1024, 256 * 1024]) {
    const body = randomBytes(size).toString('base64').slice(0, size);
    const header = `sha256=${createHmac('sha256', secret).update(body).digest('hex')}`;
    const wrong = `sha256=${'0'.repeat(64)}`;
    const check = async (verify, signature, expected) => {
      if ((await verify(body, signature)) !== expected) throw new Error('verification gave the wrong answer');
    };
    const loop = (verify, signature = header, expected = true) => async (operations) => {
      for (let i = 0; i < operations; i++) await check(verify, signature, expected);
    };
    const cases = [
      { name: 'raw createHmac + timingSafeEqual (string key)', run: loop(async (b, h) => rawVerify(b, h)) },
      { name: 'svc-sdk verifySignature (node:crypto)', run: loop((b, h) => verifySignature(b, h, secret)) },
      { name: 'svc-sdk verifySignature, invalid signature', run: loop((b, h) => verifySignature(b, h, secret), wrong, false) },
      { name: '@octokit/webhooks-methods verify', run: loop((b, h) => octokitVerify(secret, b, h)) },
      { name: 'svc-sdk verifySignature (Web Crypto build)', run: loop((b, h) => web.verifySignature(b, h, secret)) },
    ];
    const operations = size === 1024 ? (quick ? 2000 : 10000) : quick ? 100 : 400;
    for (const { run } of cases) await run(Math.ceil(operations / 10));
    const medians = await interleave(cases, { rounds: quick ? 5 : 11, operations });
    const base = medians.get(cases[0].name);
    for (const [name, micros] of medians) results.push({ size, name, micros, ratio: micros / base });
  }
  return results;
}

export function renderWebhookVerify(results) {
  const rows = results.map(({ size, name, micros, ratio }) => {
    let target = '';
    if (name === 'svc-sdk verifySignature (node:crypto)') {
      target = ratio <= 1.0 ? 'met (≤ 1.00× raw)' : ratio <= 1.05 ? 'within noise of 1.00× raw' : 'missed (≤ 1.00× raw)';
    }
    if (name.includes('invalid')) {
      const valid = results.find((r) => r.size === size && r.name === 'svc-sdk verifySignature (node:crypto)');
      target = `invalid / valid = ${fixed(micros / valid.micros)}`;
    }
    return [size === 1024 ? '1 KiB' : '256 KiB', name, fixed(micros, 2), `${fixed(ratio)}×`, target];
  });
  return table(['body', 'verifier', 'µs / verify (median)', 'vs raw limit', 'target / note'], rows);
}

if (import.meta.url === `file://${process.argv[1]}`) console.log(renderWebhookVerify(await benchWebhookVerify({ quick: process.argv.includes('--quick') })));
