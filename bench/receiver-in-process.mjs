// The receiver's CPU per delivery with no sockets: `toNodeListener(createWebhookHandler({ secret, on }))`
// from the built package, fed signed deliveries through Node-shaped request and response objects, in
// interleaved rounds against the `--baseline` build (svc-sdk-baseline, scripts/build-baseline.mjs).
// The receiver section measures the same over real sockets; this one moves less with the machine's load,
// so an A/B of the receiver's own code holds on a busy machine too.
//   npm run build && node scripts/build-baseline.mjs <ref> && node bench/receiver-in-process.mjs
import { createHmac } from 'node:crypto';
import { Readable } from 'node:stream';

const SECRET = 'whsec_in_process_bench';
const DELIVERIES = Number(process.env.RECEIVER_IN_PROCESS_DELIVERIES ?? 20_000);
const ROUNDS = Number(process.env.RECEIVER_IN_PROCESS_ROUNDS ?? 6);

const builds = { 'this build': await import('svc-sdk/webhooks') };
try {
  builds.baseline = await import('svc-sdk-baseline/webhooks');
} catch {
  console.error('receiver-in-process: no svc-sdk-baseline (node scripts/build-baseline.mjs <ref>): this build only');
}

/** A signed delivery as node:http hands it to a listener, and a response that records its status. */
function delivery(id) {
  const text = JSON.stringify({ event: 'ping.test', version: '1.0', delivery_id: id, timestamp: new Date().toISOString(), data: {} });
  const req = Readable.from([Buffer.from(text)]);
  Object.assign(req, {
    method: 'POST',
    url: '/webhooks',
    headers: { 'content-type': 'application/json', 'content-length': String(Buffer.byteLength(text)), 'x-svc-signature': `sha256=${createHmac('sha256', SECRET).update(text).digest('hex')}` },
  });
  const res = { statusCode: 0, headersSent: false, writableEnded: false, setHeader() {}, getHeader() {}, hasHeader: () => false, writeHead(status) { this.statusCode = status; return this; }, end() { this.writableEnded = true; }, on() {}, once() {} };
  return { req, res };
}

const listeners = Object.fromEntries(Object.entries(builds).map(([name, sdk]) => [name, sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on() {} }))]));
const samples = Object.fromEntries(Object.keys(builds).map((name) => [name, []]));
for (let round = 0; round < ROUNDS; round++) {
  const order = Object.keys(builds);
  if (round % 2) order.reverse();
  for (const name of order) {
    const pairs = Array.from({ length: DELIVERIES }, (_, index) => delivery(`${name}-${round}-${index}`));
    const started = process.cpuUsage();
    for (const { req, res } of pairs) await listeners[name](req, res);
    const { user, system } = process.cpuUsage(started);
    if (pairs.some(({ res }) => res.statusCode !== 200)) throw new Error(`${name}: a delivery was not answered 200`);
    samples[name].push((user + system) / DELIVERIES);
  }
}
const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const [name, values] of Object.entries(samples)) {
  console.log(`${name}: ${median(values).toFixed(1)} µs of CPU per delivery (median of ${ROUNDS} rounds of ${DELIVERIES}: ${values.map((value) => value.toFixed(1)).join(', ')})`);
}
