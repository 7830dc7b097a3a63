// What the receiver (receiver.ts) runs that other parts of `svc-sdk/webhooks` use too. The receiver
// is loaded when a handler is made (handler.ts), and is handed these rather than importing them: a
// bundler that splits (esbuild, Rollup, webpack) puts whatever a lazily loaded part imports from a
// module the entry also reaches in a chunk loaded at start, for every app, even one that only calls
// `verifySignature` (measured: 595 B → 2.3 kB min+gzip). Handed over by the handler, they load
// only where a handler is made. (An object made on call, not a namespace import: esbuild keeps a
// namespace object, and all it names, in every bundle of the entry.)
import { checkDelivery, Refusal } from './check-delivery.js';
import { coarseDeadlines } from './deadlines.js';
import { memoryStore } from './dedupe-memory.js';
import { PROCESSING_TTL_MS } from './dedupe.js';
import { malformedSecret } from './options.js';
import { BODY_REFUSALS, refusalAnswer } from './refusals.js';

/** The receiver's shared parts, for `createReceiver`. */
export const receiverParts = () => ({
  checkDelivery,
  Refusal,
  coarseDeadlines,
  memoryStore,
  PROCESSING_TTL_MS,
  malformedSecret,
  BODY_REFUSALS,
  refusalAnswer,
});

/** What `receiverParts` hands over. */
export type ReceiverParts = ReturnType<typeof receiverParts>;
