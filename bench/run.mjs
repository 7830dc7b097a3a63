// Runs every benchmark against the built package and writes BENCHMARKS.md.
//   npm run bench                 the full run (1.5-3 minutes on 2 cores, a 1 GiB upload included)
//   npm run bench -- --quick      a fast pass (under a minute): fewer rounds, a 256 MiB upload
//   node bench/run.mjs --only webhooks,receiver,inbox,inbox-dashboard,http,hooks,mcp,bundle,cold,switches,upload-many,upload   some sections (after `npm run build`
//                                and `npm run bench:deps`, which installs bench/package.json's peers)
//   npm run bench -- --baseline <ref>   A/B: that commit's build measured beside this one, in the same rounds
//                                (per-request overhead, hooks, receivers, bundle sizes)
//   BENCH_RECEIVER_ROUNDS=33 npm run bench -- --only receiver --baseline <ref>   the receivers' A/B with 3× the rounds
import { spawnSync } from 'node:child_process';
import { existsSync, readFileSync, writeFileSync } from 'node:fs';
import { cpus, loadavg, release, totalmem, type } from 'node:os';
import { benchBundleSize, renderBundleSize, summarizeBundleSize } from './bundle-size.mjs';
import { benchColdStart, renderColdStart, summarizeColdStart } from './cold-start.mjs';
import { benchFileSwitches, renderFileSwitches, summarizeFileSwitches } from './file-switches.mjs';
import { benchHooksOverhead, renderHooksOverhead, summarizeHooksOverhead } from './hooks-overhead.mjs';
import { benchHttpOverhead, renderHttpOverhead, summarizeHttpOverhead } from './http-overhead.mjs';
import { benchInbox, renderInbox, summarizeInbox } from './inbox.mjs';
import { benchInboxDashboard, renderInboxDashboard, summarizeInboxDashboard } from './inbox-dashboard.mjs';
import { table } from './lib/stats.mjs';
import { benchMcpOverhead, renderMcpOverhead, summarizeMcpOverhead } from './mcp-overhead.mjs';
import { benchUploadMany, renderUploadMany, summarizeUploadMany } from './upload-many.mjs';
import { benchWebhookThroughput, renderWebhookThroughput, summarizeWebhookThroughput } from './webhook-throughput.mjs';
import { benchWebhookVerify, renderWebhookVerify, summarizeWebhookVerify } from './webhook-verify.mjs';

const quick = process.argv.includes('--quick');
const onlyIndex = process.argv.indexOf('--only');
const only = onlyIndex === -1 ? undefined : new Set(process.argv[onlyIndex + 1].split(','));
const baselineIndex = process.argv.indexOf('--baseline');
if (baselineIndex !== -1) {
  // Built before any section runs; the sections (and the servers they fork) read BENCH_BASELINE.
  const built = spawnSync(process.execPath, [new URL('../scripts/build-baseline.mjs', import.meta.url).pathname, process.argv[baselineIndex + 1]], { stdio: 'inherit' });
  if (built.status !== 0) process.exit(built.status ?? 1);
  process.env.BENCH_BASELINE = process.argv[baselineIndex + 1];
}
const file = new URL('../BENCHMARKS.md', import.meta.url);
const previous = existsSync(file) ? readFileSync(file, 'utf8') : '';

/** A `## Title` section of a markdown document, up to the next `## ` heading. */
function sectionOf(markdown, title) {
  const start = markdown.indexOf(`## ${title}\n`);
  if (start === -1) return undefined;
  const next = markdown.indexOf('\n## ', start + 1);
  return markdown.slice(start, next === -1 ? undefined : next).trim();
}

const sections = [];
const glance = [];

async function section({ key, title, intro, notes, bench, summarize, render }) {
  if (only && !only.has(key)) {
    // Not run this time: keep what the last run wrote.
    const kept = sectionOf(previous, title);
    if (kept) sections.push(kept);
    return;
  }
  console.error(`bench: ${title}…`);
  const started = performance.now();
  try {
    let results;
    try {
      results = await bench({ quick });
    } catch (error) {
      // Once more: on a shared checkout another build may have replaced dist/ under a running case.
      console.error(`bench: ${title} failed (${error.message}); trying once more`);
      await new Promise((resolve) => setTimeout(resolve, 3000));
      results = await bench({ quick });
    }
    glance.push(...summarize(results).map((row) => [`${title}: ${row[0]}`, row[1], row[2], row[4]]));
    const seconds = ((performance.now() - started) / 1000).toFixed(0);
    sections.push([`## ${title}`, '', intro, '', render(results), '', ...(notes ? [notes, ''] : []), `_${seconds} s in this run._`].join('\n'));
  } catch (error) {
    console.error(error);
    sections.push(`## ${title}\n\n${intro}\n\nNot measured in this run: ${error.message}`);
  }
}

await section({
  key: 'webhooks',
  title: 'Webhook verification',
  intro: [
    'One verification, header parsing included, each through its public API (`verifySignature` is async: its time includes',
    'the `await`). The naive limit is `createHmac` with the secret as a string + `timingSafeEqual`, called synchronously.',
    'Time per verification is the median over interleaved rounds; ratios are the medians of the ratios within each round.',
  ].join('\n'),
  notes: [
    'Notes: on Node, `verifySignature` checks the header with a strict regex, computes the HMAC with a `KeyObject` made once per',
    'secret (a `Buffer` or `Uint8Array` key is several times slower on Node 24, a string key a little), and compares the',
    'digest as 64 hex digits with the header\'s, as bytes, with `timingSafeEqual`: no hex decoding and no Buffer digest to',
    'allocate, which is what puts it ahead of the naive limit at 1 KiB. A string body goes to `update()` as it is (encoding',
    'it first would copy the body: twice the time at 256 KiB). At 256 KiB all verifiers are bound by SHA-256 itself. The',
    'invalid signature differs in its last hex digit only, so it parses and only the constant-time comparison rejects it.',
    '@octokit/webhooks-methods compares hex strings too, which is why it is about as fast as the naive limit here.',
  ].join('\n'),
  bench: benchWebhookVerify,
  summarize: summarizeWebhookVerify,
  render: renderWebhookVerify,
});
await section({
  key: 'receiver',
  title: 'Webhook receiving under load',
  intro: [
    'Unique, correctly signed deliveries (about 200 B each) sent by autocannon over loopback, 1 and 64 at a time, to a receiver',
    'in its own process: `createWebhookHandler` behind `toNodeListener` (node:http) and behind `@hono/node-server`, with the',
    'default memory dedupe and with `createRedisDedupeStore` (node-redis, a local redis-server), against a bare `node:http`',
    'server that reads the body, checks the signature with `createHmac` + `timingSafeEqual` and answers 200: the limit.',
    '`@hono/node-server` serving a bare verify-and-200 fetch handler shows what that server itself costs; the bare server',
    'plus the least a Redis dedupe must do (read `delivery_id`, claim it with SET NX and wait, answer, then SET done',
    'without waiting) shows what the Redis round trip itself costs, the ceiling of a Redis-backed receiver. The floors are',
    'those servers plus the least any receiver must add, hand-written: the envelope parsed and its fields checked, the',
    'timestamp and its zone, and the id claimed and recorded, in two Maps bounded at 50 000 ids (node:http, Hono) or in Redis',
    'as the ceiling does. Each receiver is held to its floor by server CPU per delivery (issue 32: at most 10 % over it, at 1',
    'and 64 at once), one without a floor to its ceiling (issue 23). Cases are interleaved; ratios are medians of the ratios',
    'within each round. Server CPU per delivery is the receiver process\'s CPU time over the deliveries it answered.',
  ].join('\n'),
  notes: [
    'Notes: on top of the limit\'s work the handler parses the envelope, checks its timestamp, claims and completes the',
    'delivery in the dedupe store and calls `on`. `toNodeListener` calls the handler\'s core directly (no fetch `Request` or',
    '`Response` is built); behind `@hono/node-server` the handler reads the body with `arrayBuffer()` when it has a',
    'Content-Length and answers with a string body, the two cases that server serves without copies. With Redis, each',
    'delivery costs two round trips (SET NX, then SET) to the store. `toNodeListener` answers without waiting for the',
    'second; so does a fetch handler given `waitUntil`, as the README says for a long-lived server like this one',
    '(`waitUntil: () => {}`). Without it a fetch handler waits (a serverless runtime may freeze after the answer): the',
    '"no `waitUntil`" row, for comparison; at concurrency 1 it is latency-bound.',
    'The memory row runs the store alone, in a fresh process.',
  ].join('\n'),
  bench: benchWebhookThroughput,
  summarize: summarizeWebhookThroughput,
  render: renderWebhookThroughput,
});
await section({
  key: 'inbox',
  title: 'Webhook inbox',
  intro: [
    'The durable inbox (`svc-sdk/inbox` on BullMQ): the ingress, `toNodeListener(createWebhookHandler({ secret, inbox }))`, against a',
    'bare node:http server that verifies and calls `queue.add` itself (the floor of any BullMQ ingress), each in its own process,',
    'on a redis-server with `appendfsync always`; autocannon sends unique signed deliveries 1 and 64 at a time, cases interleaved.',
    'Then worker throughput: 1 and 4 worker processes running a no-op `on` over a filled inbox.',
  ].join('\n'),
  bench: benchInbox,
  summarize: summarizeInbox,
  render: renderInbox,
});
await section({
  key: 'inbox-dashboard',
  title: 'Webhook inbox with its dashboard mounted',
  intro: [
    'The inbox ingress as an Express app\'s `POST /webhooks` route, alone and with `createInboxDashboard` (bull-board) mounted at',
    '`/admin/inbox` on the same inbox in the same process, each in its own process, on a redis-server with `appendfsync always`;',
    'autocannon sends unique signed deliveries 1 and 64 at a time, cases interleaved; ratios are medians of the ratios within',
    'each round of the receiver process\'s CPU per delivery. A second process without the dashboard, in the same rounds, gives',
    'the noise (A/A) that the dashboard\'s ratio is read against.',
  ].join('\n'),
  bench: benchInboxDashboard,
  summarize: summarizeInboxDashboard,
  render: renderInboxDashboard,
});
await section({
  key: 'http',
  title: 'Per-request overhead (loopback)',
  intro: [
    'A POST with a Bearer header and a JSON body to a `node:http` server in its own process, which answers the',
    '`rooms.create` envelope; the response JSON is parsed. Ratios are to raw `fetch` of the same request in the same round.',
  ].join('\n'),
  notes: [
    'Notes: the SDK sends through ky (the product owner\'s choice of HTTP layer). Per call it hands ky one options object',
    '(headers merged once per client, no instance defaults to deep-merge), `retry: 0` for a POST that creates (so ky clones',
    'nothing), and keeps the body out of ky\'s `Request`: ky\'s `fetch` option sends URL, headers and signal with the body',
    'beside them, because fetch given a `Request` with a body pipes it through a `TransformStream` into a copy. What is left',
    'is ky\'s own work per call (a `Request`, an `AbortController`, option merging): the "ky floor" row, the same call with no',
    'timer, is the least any ky-based client pays, and it is above the 1.15× target, which only a client that calls fetch',
    'directly can meet. The SDK sits at that floor plus its per-attempt timeout timer. The profile shows the rest: ky\'s',
    'own functions (merging and normalizing options, twice per call) and the extra `Request` it makes undici build are most',
    'of the difference; the SDK\'s own code and the zod checks of params and response are a few µs each.',
    '`node bench/profile-request.mjs [--raw]` prints the same profile for one case, with its 25 hottest functions.',
  ].join('\n'),
  bench: benchHttpOverhead,
  summarize: summarizeHttpOverhead,
  render: renderHttpOverhead,
});
await section({
  key: 'hooks',
  title: 'Hooks and telemetry overhead (loopback)',
  intro: [
    'The same `rooms.create` on loopback with no hooks, with one no-op `beforeRequest` hook, and with `clientTelemetry()`',
    'of `svc-sdk/otel` recording two spans per call (the call and its attempt) through a batch span processor to an',
    'in-memory exporter and the `http.client.request.duration` histogram to a metric reader, with an AsyncLocalStorage',
    'context manager and the W3C propagator registered, in the same interleaved rounds. Ratios are to "no hooks".',
    'OpenTelemetry\'s floor is a no-hooks call wrapped in only what the OpenTelemetry SDK itself must do for the same',
    'telemetry (the two spans with their attributes, `traceparent` injected, the duration recorded), as ky\'s floor is for',
    'a request: what `clientTelemetry()` adds over it is the SDK\'s own cost.',
  ].join('\n'),
  bench: benchHooksOverhead,
  summarize: summarizeHooksOverhead,
  render: renderHooksOverhead,
});
await section({
  key: 'mcp',
  title: 'MCP tool call overhead (in process)',
  intro: [
    'A tool call of `@svc-sdk/mcp` against the plain SDK call the tool makes, with the emulator answering through its fetch',
    'handler (no network) and the server reached over the MCP SDK\'s in-memory transport by a minimal JSON-RPC client (no',
    'client library counted); CPU µs per call, interleaved rounds, ratios within a round. The difference is JSON-RPC both',
    'ways, argument and output validation, the tool\'s own work (paging, the result budget, the text), and for a write\'s',
    'preview the commit token.',
  ].join('\n'),
  bench: benchMcpOverhead,
  summarize: summarizeMcpOverhead,
  render: renderMcpOverhead,
});
await section({
  key: 'bundle',
  title: 'Bundle size',
  intro: 'esbuild, browser platform, ESM, minified, gzip level 9; each entry imports one name from the built package.',
  notes: [
    'Notes: the client target is the size of ky + the zod/mini features the client uses + 4 kB; ky and zod/mini are bundled',
    'into the SDK\'s own chunk (tree-shaken), and the client checks URLs and unwraps `{ results }` pages itself rather than',
    'with `z.url()` and a zod union + transform (1.2 kB gzipped between them). What is left over the floor is the SDK\'s own',
    'code: every method with its param checks and messages that name the field and the fix, the error classes, and uploads',
    '(seven input types, progress, filename escaping, a MIME map: 5.3 kB of the minified bytes above, about 1.7 kB',
    'gzipped), which is what puts the client over. Loading the uploads code lazily was measured (esbuild with splitting):',
    'the first chunk would be 19.4 kB, still over, for a network round trip on a browser\'s first upload; not done.',
    'The webhook handler carries, besides verification, the envelope checks, the in-memory dedupe store (on by default) and',
    'its misuse messages; since v0.2 also the body limit read chunk by chunk, the replay window, `onVerificationError` and a',
    'store that never drops a live claim (about 800 B gzipped over the 1.5 kB target, which predates them).',
    '`import { z } from \'zod\'` is shown for contrast: it defeats tree-shaking.',
  ].join('\n'),
  bench: benchBundleSize,
  summarize: summarizeBundleSize,
  render: renderBundleSize,
});
await section({
  key: 'cold',
  title: 'Cold start (Node)',
  intro: [
    'Each script runs in a fresh `node --input-type=module -e …` process and prints `performance.now()` (ms since the process',
    'started) at the moment measured; scripts are interleaved, medians. The first-response scripts POST to a loopback server.',
  ].join('\n'),
  notes: [
    'Notes: zod/mini is bundled (tree-shaken) into the built package: importing `zod/mini` from node_modules loads its whole',
    'core, which costs more than the rest of the SDK together. `svc-sdk` re-exports the webhook helpers, so its import also',
    'loads `node:crypto` (its own row above) though a client that only sends requests never needs it. The raw fetch row',
    'already includes Node loading its fetch implementation on first use, which every client pays.',
  ].join('\n'),
  bench: benchColdStart,
  summarize: summarizeColdStart,
  render: renderColdStart,
});

await section({
  key: 'switches',
  title: 'File switches (one call, one delivery)',
  intro: [
    'How many times a newcomer following one delivery or one call switches files (issues 31 and 32), counted by',
    '`node bench/file-switches.mjs` (which prints the same lists): src/*.ts run as they are (Node\'s type stripping), each',
    'scenario in its own process, a `node:inspector` session steps from the listener being called until the response is',
    'written (from `rooms.create` being called until its value), with a breakpoint on every statement of src/, so every',
    'statement of the SDK that runs pauses, in order, whoever calls it; ky, zod and Node itself run without a pause. A switch',
    'is a pause in src/ in another file than the pause in src/ before it: A → ky → B counts one, A → ky → A none. A node:http',
    'server on 127.0.0.1; each scenario runs twice, the first once the lazily loaded modules are in, and the second counts.',
    'How each file was reached: `call`, `return`, `called by ky`, or `from the event loop` (an event, an await resumed).',
    'Two counting rules: every switch, and the switches beside calls of leaf helpers (a call from A into B answered by',
    'B\'s return to A with no switch between counts none: a reader takes it as one line of A). A report, not a gate.',
  ].join('\n'),
  bench: benchFileSwitches,
  summarize: summarizeFileSwitches,
  render: renderFileSwitches,
});
await section({
  key: 'upload-many',
  title: 'Uploading a folder',
  intro: [
    '`documents.uploadMany` (a directory, a manifest, concurrency 8) against a sequential loop of `documents.upload`',
    '(`fileFromPath`) and against raw `fetch` with the same concurrency and the same multipart bodies; also `uploadMany` over',
    'the same files as Blobs with no manifest (nothing hashed or written), which shows what resumability costs. Small files',
    'go to the emulator with its latency fault; large ones to a `node:http` server with the same latency that discards the',
    'bytes (the emulator keeps documents in memory). Each case runs in a fresh process; peak RSS is its own (VmHWM; `maxRSS` would count the RSS of this process at spawn).',
  ].join('\n'),
  bench: benchUploadMany,
  summarize: summarizeUploadMany,
  render: renderUploadMany,
});

// The upload benchmark (bench/upload-memory.mjs) belongs to the uploads work: it writes its own
// "## Upload memory" section into BENCHMARKS.md. Run it, then take the section it wrote.
if (!only || only.has('upload')) {
  const script = new URL('./upload-memory.mjs', import.meta.url);
  let uploadSection;
  if (existsSync(script)) {
    console.error('bench: Upload memory…');
    const result = spawnSync(process.execPath, [script.pathname, ...(quick ? ['--size', '256'] : [])], {
      stdio: ['ignore', 'pipe', 'inherit'],
      encoding: 'utf8',
    });
    const written = sectionOf(existsSync(file) ? readFileSync(file, 'utf8') : '', 'Upload memory');
    if (result.status === 0 && written) {
      uploadSection = written;
      const summary = result.stdout.split('\n').find((line) => line.startsWith('{"bench":"upload-memory"'));
      if (summary) {
        const { sizeMiB, targetMB, streamedUnderTarget, rows } = JSON.parse(summary);
        const streamed = rows.filter((row) => row.kind === 'fileFromPath' || row.kind === 'readStream');
        glance.push([
          `Upload memory: peak RSS of a streamed ${sizeMiB} MiB upload`,
          `< ${targetMB} MB`,
          `${Math.max(...streamed.map((row) => row.peakRssMB))} MB (buffered: ${rows.find((row) => row.kind === 'buffered')?.peakRssMB} MB)`,
          streamedUnderTarget ? 'met' : '**missed**',
        ]);
      }
    } else {
      uploadSection = `## Upload memory\n\nThe run of bench/upload-memory.mjs failed (exit ${result.status}).`;
    }
  } else {
    uploadSection = sectionOf(previous, 'Upload memory') ?? '## Upload memory\n\nNot measured: bench/upload-memory.mjs is missing.';
  }
  sections.push(uploadSection);
} else {
  const kept = sectionOf(previous, 'Upload memory');
  if (kept) sections.push(kept);
}

const [load1] = loadavg();
const header = [
  '# Benchmarks',
  '',
  `- Machine: ${cpus()[0]?.model ?? 'unknown CPU'}, ${cpus().length} cores, ${Math.round(totalmem() / 2 ** 30)} GiB; ${type()} ${release()}`,
  `- Node: ${process.version}`,
  `- Date: ${new Date().toISOString().slice(0, 16).replace('T', ' ')} UTC`,
  `- Command: \`${process.env.BENCH_RECEIVER_ROUNDS ? `BENCH_RECEIVER_ROUNDS=${process.env.BENCH_RECEIVER_ROUNDS} ` : ''}npm run bench${quick || process.env.BENCH_BASELINE ? ' --' : ''}${quick ? ' --quick' : ''}${process.env.BENCH_BASELINE ? ` --baseline ${process.env.BENCH_BASELINE}` : ''}\`${only ? ` (sections: ${[...only].join(', ')}; the others are from an earlier run)` : ''}`,
  `- Load average at the end of the run: ${load1.toFixed(1)} (on a shared machine, absolute times vary by ±15 % or more; the ratios, taken within one run, hold better)`,
  '',
  'Every comparison is measured in the same run, interleaved (A B C, B C A, …), as medians of several rounds. The package is',
  'imported by its name, `svc-sdk`, from `dist/` (the package references itself, or bench/node_modules/svc-sdk links to it), so the figures are what users get.',
  ...(process.env.BENCH_BASELINE
    ? ['', `A/B: rows marked "baseline ${process.env.BENCH_BASELINE}" are that commit's build (scripts/build-baseline.mjs), measured in the same rounds as this one.`]
    : []),
].join('\n');
const glanceTable = glance.length
  ? ['## Targets at a glance', '', table(['figure', 'target', 'measured', 'target met'], glance)].join('\n')
  : undefined;
// "## Summary" is hand-written (moved from the README): kept as it is, after the glance table.
const summary = sectionOf(previous, 'Summary');
writeFileSync(
  file,
  `${[header, ...(glanceTable && !only ? [glanceTable] : []), ...(summary ? [summary] : []), ...sections].join('\n\n')}\n`,
);
console.error('bench: wrote BENCHMARKS.md');
