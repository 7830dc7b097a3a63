// `svc-sdk inbox demo`: the whole inbox on one machine from an empty folder, with only a local Redis:
// the emulator as the service (in this process), a receiver storing each verified delivery in Redis
// (createWebhookHandler({ secret, inbox })), a worker running `on` for it (inbox.process), the
// receiver registered as the emulator's webhook, and N document.uploaded deliveries fired through
// it. examples/inbox-quickstart.mjs is the same in code. Ctrl+C or SIGTERM closes everything (the
// receiver, the worker, the inbox's connection, the emulator), so the process ends by itself.
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { redactUrl } from 'svc-sdk/internal';
import type { BullmqInbox, InboxWorker } from 'svc-sdk/inbox';
import { UsageError, type CliIO } from '../command.js';
import { println, signalExitCode, watchStop } from '../signals.js';
import { statsText } from '../inbox-text.js';
import { escapeControl } from '../terminal-text.js';

/** The demo's own queue: never a real inbox's (svc-webhooks), so its deliveries mix with none. */
export const DEMO_QUEUE = 'svc-webhooks-demo';

/** What `inbox demo` runs with, its flags read and checked. */
export interface DemoOptions {
  /** The inbox, opened on the Redis and queue of --redis and --queue. */
  inbox: BullmqInbox;
  /** The Redis URL, for the line that names it (redacted). */
  url: string;
  queue: string;
  /** The most it waits for Redis, and for the next delivery to be processed. */
  timeoutMs: number;
  /** The receiver's port on 127.0.0.1 (0: a free one). */
  port: number;
  /** How many deliveries to fire; 0 serves until stopped. */
  deliveries: number;
  /** Lets the inbox's warnings through (the probe's connection errors are the probe's to say, once). */
  speak: () => void;
}

/**
 * Runs the demo and resolves with the exit code: 0 once every delivery was processed (or, with
 * `deliveries` 0, once stopped), the signal's code when stopped before, 1 when deliveries stall.
 *
 * @param options The inbox and the demo's flags.
 * @param io Where it prints, and the host's stop.
 */
export async function runInboxDemo(options: DemoOptions, io: CliIO): Promise<number> {
  const { inbox, deliveries, timeoutMs } = options;
  await reachable(inbox);
  options.speak();
  // Loaded here, so that the other commands start without loading msw.
  const [{ Client }, { createEmulator }, { createWebhookHandler, toNodeListener }] = await Promise.all([import('svc-sdk'), import('svc-sdk/testing'), import('svc-sdk/webhooks')]);
  let lastFailure: string | undefined;
  const emulator = createEmulator({
    deliveryDelayMs: 0,
    // A refused delivery (the receiver's 500 when Redis refuses to store) is said; the emulator retries it on its schedule.
    onDelivery: (attempt) => {
      if (attempt.status !== undefined && attempt.status < 300) return;
      lastFailure = `delivery ${escapeControl(attempt.deliveryId)} attempt ${attempt.attempt}: ${attempt.status ?? `failed: ${escapeControl(String(attempt.error))}`}`;
      println(io.stderr, `[svc-sdk] inbox demo: the receiver refused ${lastFailure}; the emulator retries it later`);
    },
  });
  const stop = watchStop(io.stop);
  let server: Server | undefined;
  let worker: InboxWorker | undefined;
  try {
    let secret = '';
    server = createServer(toNodeListener(createWebhookHandler({ secret: () => secret, inbox })));
    const receiverUrl = `http://127.0.0.1:${await listen(server, options.port)}/webhooks`;
    const client = new Client({ apiKey: 'vdr_inbox_demo', baseUrl: 'https://svc.test', fetch: emulator.fetch });
    ({ secret } = await client.webhooks.create({ url: receiverUrl, name: 'svc-sdk inbox demo', event_types: ['document.uploaded'] }));

    const processed = new Set<string>();
    let progressed = () => {};
    worker = inbox.process((event, { attempt }) => {
      // At least once: a delivery run twice is printed twice, and counted once.
      const file = event.event === 'document.uploaded' ? ` ${escapeControl(event.data.filename)}` : '';
      println(io.stdout, `processed ${escapeControl(event.delivery_id)}: ${event.event}${file} (attempt ${attempt})`);
      processed.add(event.delivery_id);
      progressed();
    });
    const started = await Promise.race([worker.ready().then(() => 'ready' as const), stop.stopped]);
    if (started !== 'ready') return signalExitCode(started);
    println(io.stdout, `receiver on ${receiverUrl}, worker running on queue ${escapeControl(options.queue)}, Redis ${redactUrl(options.url)}`);

    let ended: NodeJS.Signals | 'done' | 'stalled';
    if (deliveries === 0) {
      const served = await emulator.listen(0);
      println(io.stdout, `the emulator on ${served.url} delivers to it: fire more with svc-sdk trigger document.uploaded --emulator ${served.url}`);
      println(io.stdout, 'Press Ctrl+C to stop.');
      ended = await stop.stopped;
    } else {
      for (let n = 1; n <= deliveries; n++) await emulator.trigger('document.uploaded', { room_id: 1, document_id: n, filename: `memo-${n}.pdf`, uploader_id: 1 });
      ended = await new Promise<NodeJS.Signals | 'done' | 'stalled'>((resolve) => {
        let timer: ReturnType<typeof setTimeout> | undefined;
        // Bounded by the next delivery, not the whole run: a slow machine takes longer, a stuck one is said.
        const check = () => {
          clearTimeout(timer);
          if (processed.size >= deliveries) return resolve('done');
          timer = setTimeout(() => resolve('stalled'), timeoutMs);
        };
        progressed = check;
        void stop.stopped.then((signal) => (clearTimeout(timer), resolve(signal)));
        check();
      });
      progressed = () => {};
    }
    if (ended === 'stalled') {
      throw new Error(`[svc-sdk] inbox demo: ${processed.size} of ${deliveries} deliveries processed, none more within ${timeoutMs} ms (--timeout)${lastFailure ? `; the last refused: ${lastFailure}` : ''}`);
    }
    if (ended === 'done') println(io.stdout, `${processed.size} deliveries processed through the inbox`);
    println(io.stdout, `queue ${escapeControl(options.queue)} (svc-sdk inbox stats --queue ${escapeControl(options.queue)} shows it again):`);
    io.stdout.write(statsText(await inbox.stats()));
    return ended === 'done' || deliveries === 0 ? 0 : signalExitCode(ended);
  } finally {
    stop.dispose();
    server?.close();
    server?.closeAllConnections();
    await worker?.close();
    await emulator.close();
  }
}

/**
 * Redis answers (or the inbox's one line says why not, within --timeout): a stats read, where a
 * queue this Redis never held is an answer too (the demo's first run makes it).
 */
async function reachable(inbox: BullmqInbox): Promise<void> {
  try {
    await inbox.stats();
  } catch (error) {
    if (!(error instanceof Error && error.message.startsWith('[svc-sdk] inbox: no queue '))) throw error;
  }
}

/** Listens on 127.0.0.1:`port`; resolves with the port (a free one for 0), a UsageError when it is taken. */
function listen(server: Server, port: number): Promise<number> {
  return new Promise((resolve, reject) => {
    server.once('error', (error: NodeJS.ErrnoException) => reject(error.code === 'EADDRINUSE' ? new UsageError(`port ${port} is in use: pick another with --port (0: a free one)`) : error));
    server.listen(port, '127.0.0.1', () => resolve((server.address() as AddressInfo).port));
  });
}
