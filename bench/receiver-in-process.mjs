// The receiver's CPU per delivery with no sockets: `toNodeListener(createWebhookHandler({ secret, on }))`
// from the built package, fed signed deliveries through Node-shaped request and response objects, in
// interleaved rounds against the `--baseline` build (svc-sdk-baseline, scripts/build-baseline.mjs).
// The receiver section measures the same over real sockets; this one moves less with the machine's load,
// so an A/B of the receiver's own code holds on a busy machine too. Two cases:
//   memory  the default memory dedupe, one delivery at a time
//   redis   createRedisDedupeStore over a client shaped as node-redis's whose replies come in batches, as
//           from one socket read, with 64 deliveries in flight: the store path, its deadlines and promises
// Each round starts after a full collection when `--expose-gc` is given (steadier: 1.00 ± 0.02× A/A).
//   npm run build && node scripts/build-baseline.mjs <ref> && node --expose-gc bench/receiver-in-process.mjs
import { spawnSync } from 'node:child_process';
import { createHmac } from 'node:crypto';
import { fileURLToPath } from 'node:url';

const SECRET = 'whsec_in_process_bench';
const DELIVERIES = Number(process.env.RECEIVER_IN_PROCESS_DELIVERIES ?? 20_000);
const ROUNDS = Number(process.env.RECEIVER_IN_PROCESS_ROUNDS ?? 10);
const IN_FLIGHT = { memory: 1, redis: 64 };
const STORE = process.env.RECEIVER_IN_PROCESS_STORE;
if (!STORE) {
  // Each case in a process of its own: the memory case leaves two full stores (50 000 ids each) in the
  // heap, and a later case measured beside them moved by 0.1× (collections over a larger heap).
  for (const store of Object.keys(IN_FLIGHT)) {
    const { status } = spawnSync(process.execPath, [...process.execArgv, fileURLToPath(import.meta.url)], { stdio: 'inherit', env: { ...process.env, RECEIVER_IN_PROCESS_STORE: store } });
    if (status !== 0) process.exit(status ?? 1);
  }
  process.exit(0);
}

const builds = { 'this build': await import('svc-sdk/webhooks') };
try {
  builds.baseline = await import('svc-sdk-baseline/webhooks');
} catch {
  console.error('receiver-in-process: no svc-sdk-baseline (node scripts/build-baseline.mjs <ref>): this build only');
}

/**
 * A signed delivery as node:http hands it to a listener: the request's body events are fired by
 * `arrive()` (one chunk, then the end), and the response records its status.
 */
function delivery(id) {
  const body = Buffer.from(JSON.stringify({ event: 'ping.test', version: '1.0', delivery_id: id, timestamp: new Date().toISOString(), data: {} }));
  const listeners = {};
  const req = {
    method: 'POST',
    url: '/webhooks',
    headers: { 'content-type': 'application/json', 'content-length': String(body.length), 'x-svc-signature': `sha256=${createHmac('sha256', SECRET).update(body).digest('hex')}` },
    on(event, listener) {
      listeners[event] = listener;
      return this;
    },
    removeListener(event) {
      delete listeners[event];
      return this;
    },
    pause() {},
  };
  const res = { statusCode: 0, headersSent: false, writeHead(status) { this.statusCode = status; return this; }, end() {} };
  const arrive = () => {
    listeners.data?.(body);
    listeners.end?.();
  };
  return { req, res, arrive };
}

/** A node-redis-shaped client (`isOpen`, SET with an options object) over a Map, whose replies settle together on the next turn of the event loop. */
function redisLike() {
  const keys = new Map();
  let replies = [];
  const flush = () => {
    const due = replies;
    replies = [];
    for (const reply of due) reply();
  };
  const later = (answer) =>
    new Promise((resolve) => {
      if (!replies.length) setImmediate(flush);
      replies.push(() => resolve(answer()));
    });
  return {
    isOpen: true,
    set: (key, value, { NX, XX } = {}) => later(() => ((NX && keys.has(key)) || (XX && !keys.has(key)) ? null : (keys.set(key, value), 'OK'))),
    get: (key) => later(() => keys.get(key) ?? null),
    del: (key) => later(() => Number(keys.delete(key))),
  };
}

const median = (values) => [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)];
for (const store of [STORE]) {
  const listeners = Object.fromEntries(
    Object.entries(builds).map(([name, sdk]) => [name, sdk.toNodeListener(sdk.createWebhookHandler({ secret: SECRET, on() {}, dedupe: store === 'redis' ? sdk.createRedisDedupeStore(redisLike()) : true }))]),
  );
  const samples = Object.fromEntries(Object.keys(builds).map((name) => [name, []]));
  for (let round = 0; round < ROUNDS; round++) {
    const order = Object.keys(builds);
    if (round % 2) order.reverse();
    for (const name of order) {
      const deliveries = Array.from({ length: DELIVERIES }, (_, index) => delivery(`${store}-${name}-${round}-${index}`));
      globalThis.gc?.();
      const started = process.cpuUsage();
      let next = 0;
      const lane = async () => {
        while (next < deliveries.length) {
          const { req, res, arrive } = deliveries[next++];
          const answered = listeners[name](req, res);
          arrive();
          await answered;
        }
      };
      await Promise.all(Array.from({ length: IN_FLIGHT[store] }, lane));
      const { user, system } = process.cpuUsage(started);
      if (deliveries.some(({ res }) => res.statusCode !== 200)) throw new Error(`${name}, ${store}: a delivery was not answered 200`);
      samples[name].push((user + system) / DELIVERIES);
    }
  }
  for (const [name, values] of Object.entries(samples)) {
    console.log(
      `${store} dedupe, ${IN_FLIGHT[store]} in flight, ${name}: ${median(values).toFixed(1)} µs of CPU per delivery (median of ${ROUNDS} rounds of ${DELIVERIES}: ${values.map((value) => value.toFixed(1)).join(', ')})`,
    );
  }
  if (samples.baseline) {
    const ratio = median(samples.baseline.map((theirs, round) => theirs / samples['this build'][round]));
    console.log(`${store} dedupe: the baseline's CPU per delivery over this build's, round by round: ${ratio.toFixed(2)}×`);
  }
}
