/**
 * `svc-sdk/actions`: the agent-action ledger. Records the service's action.*, job.* and credit.*
 * deliveries durably, follows every action from proposal to decision, lets code wait for a GP's
 * decision or react to it once, across processes. No HTTP client and no zod: the ledger reads the
 * events `svc-sdk/webhooks` verifies.
 *
 * @module svc-sdk/actions
 */
export { createActionLedger, DEFAULT_WINDOW_MS, type ActionLedger, type ActionLedgerOptions } from './ledger.js';
export { createMemoryLedgerStore, type MemoryLedgerStoreOptions } from './store-memory.js';
export { createRedisLedgerStore, type RedisLedgerClient, type RedisLedgerStoreOptions } from './store-redis.js';
export type { CommitResult, HandlerClaim, LedgerCommit, LedgerRead, LedgerStore } from './store.js';
// Every type of types.ts is public: the records, options and callbacks of the ledger.
export type * from './types.js';
