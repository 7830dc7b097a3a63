import { durabilityOf, type DurabilitySubject } from '../inbox/durability.js';
import { CLAIM_SCRIPT, COMMIT_SCRIPT, FINISH_SCRIPT, RENEW_SCRIPT, TODO_SCRIPT } from './redis-scripts.js';
import { DELIVERY_TTL_MS } from './store-memory.js';
import type { CommitResult, HandlerClaim, LedgerRead, LedgerStore } from './store.js';

/**
 * A connected node-redis v4+ client (`createClient()`) or ioredis client (`new Redis()`). Typed
 * loosely so that both fit; the store talks to it through raw commands (`sendCommand` / `call`).
 */
export interface RedisLedgerClient {
  /** A new connection with the same settings: the store's subscriber for decision notifications. */
  duplicate(): unknown;
}

/** Options of `createRedisLedgerStore`. */
export interface RedisLedgerStoreOptions {
  /** Prefix of every key and of the notification channel. Default `'svc-sdk:actions:'`. */
  prefix?: string | undefined;
  /** How long a delivery_id is remembered, in ms. Default 7 days. */
  deliveryTtlMs?: number | undefined;
  /** Keep the ledger on a Redis without an append-only file, knowing a restart may lose the latest changes. Default false (a warning). */
  acceptNoPersistence?: boolean | undefined;
  /**
   * Where the one warning about persistence goes. Default `console.warn`.
   *
   * @param message The warning, ready to log.
   */
  warn?: ((message: string) => void) | undefined;
  /** The connection to subscribe with (it is put in subscriber mode). Default: `client.duplicate()`, opened on the first wait or handler and closed by `close()`. */
  subscriber?: unknown;
}

type Send = (args: string[]) => Promise<unknown>;

/** What fills a script's slot that a call does not use, or a flag off (the scripts act only on 'add', 'remove' and '1'). */
const UNUSED = '';

/** The inbox's durability rules, in the ledger's words. */
const DURABILITY_SUBJECT: DurabilitySubject = { area: 'actions ledger', kept: 'recorded actions', recent: 'ledger changes made' };
interface Subscriber {
  isOpen?: boolean;
  on(event: string, listener: (...args: never[]) => void): unknown;
  connect?(): Promise<unknown>;
  subscribe(channel: string, listener?: (message: string) => void): Promise<unknown>;
  close?(): Promise<unknown>;
  quit?(): Promise<unknown>;
}

/**
 * A `LedgerStore` in Redis, shared by every process and machine that uses the same Redis and
 * prefix. Pass a connected node-redis or ioredis client; neither is a dependency of this SDK.
 * Each change is one Lua script (atomic); before the first, the store reads the Redis
 * configuration as `svc-sdk/inbox` does: an eviction policy other than `noeviction` is refused
 * (the ledger could lose actions silently), no append-only file is a warning. Decisions are
 * published on a channel so that waiters in other processes hear them at once; one standalone
 * Redis (or a primary with replicas), not a cluster.
 *
 * @param client A connected node-redis v4+ or ioredis client.
 * @param options The key `prefix` (default `'svc-sdk:actions:'`), `deliveryTtlMs` (default 7 days), `acceptNoPersistence`, `warn` and the `subscriber` connection.
 *
 * @example
 * ```ts
 * import { createClient } from 'redis';
 * const redis = await createClient({ url: process.env.REDIS_URL }).connect();
 * const ledger = createActionLedger({ store: createRedisLedgerStore(redis) });
 * ```
 */
export function createRedisLedgerStore(client: RedisLedgerClient, options: RedisLedgerStoreOptions = {}): LedgerStore {
  const redis = client as unknown as { isOpen?: unknown; sendCommand?: Send; call?: (...args: string[]) => Promise<unknown>; duplicate?: (override?: { autoResubscribe: boolean }) => unknown };
  const isNodeRedis = typeof redis?.isOpen === 'boolean' && typeof redis.sendCommand === 'function';
  if (!redis || !(isNodeRedis || typeof redis.call === 'function')) {
    throw new TypeError('[svc-sdk] createRedisLedgerStore: pass a connected node-redis (createClient) or ioredis (new Redis) client');
  }
  const { prefix = 'svc-sdk:actions:', acceptNoPersistence = false, warn = console.warn } = options;
  const deliveryTtlMs = Math.ceil(options.deliveryTtlMs ?? DELIVERY_TTL_MS);
  if (!(deliveryTtlMs > 0)) throw new TypeError('[svc-sdk] createRedisLedgerStore: deliveryTtlMs must be a positive number of ms');
  const send: Send = isNodeRedis ? (args) => redis.sendCommand!(args) : (args) => redis.call!(...args);
  const key = {
    document: (name: string) => `${prefix}doc:${name}`,
    seen: (deliveryId: string) => `${prefix}seen:${deliveryId}`,
    pending: `${prefix}pending`,
    run: (runId: string) => `${prefix}run:${runId}`,
    decided: `${prefix}decided`,
    sequence: `${prefix}sequence`,
    names: `${prefix}handlers`,
    queue: (name: string) => `${prefix}todo:${name}`,
    done: (name: string) => `${prefix}done:${name}`,
    runs: (name: string) => `${prefix}runs:${name}`,
    lease: (name: string, actionId: string) => `${prefix}lease:${name}:${actionId}`,
    channel: `${prefix}decided`,
  };

  let checked: Promise<void> | undefined;
  /** The durability check, once it passed; asked again after a failure (a Redis restarting, a configuration fixed meanwhile). */
  const ready = () =>
    (checked ??= (async () => {
      const verdict = durabilityOf(String(await send(['INFO', 'all'])), acceptNoPersistence, DURABILITY_SUBJECT);
      if (verdict.refuse) throw new Error(verdict.refuse);
      if (verdict.warn) warn(verdict.warn);
    })().catch((error: unknown) => {
      checked = undefined;
      throw error;
    }));

  // Scripts are loaded by SCRIPT LOAD (no hashing here) and loaded again after a restart emptied Redis's cache.
  const shas = new Map<string, string>();
  const evalSha = (sha: string, keys: string[], args: string[]) => send(['EVALSHA', sha, String(keys.length), ...keys, ...args]);
  const load = async (script: string, keys: string[], args: string[]): Promise<unknown> => {
    await ready();
    const sha = String(await send(['SCRIPT', 'LOAD', script]));
    shas.set(script, sha);
    return evalSha(sha, keys, args);
  };
  /** EVALSHA, one round trip once checked and loaded (a sha is known only after the check passed; the hot path: no async frame of its own); loaded again on NOSCRIPT. */
  const run = (script: string, keys: string[], args: string[]): Promise<unknown> => {
    const sha = shas.get(script);
    if (sha === undefined) return load(script, keys, args);
    return evalSha(sha, keys, args).catch((error: unknown) => {
      // Both clients reject with an Error; the load sets the script's new sha in place of the old.
      if (!String((error as Error).message).startsWith('NOSCRIPT')) throw error;
      return load(script, keys, args);
    });
  };
  // Both clients answer a missing key with null.
  const text = (value: unknown) => (value === null ? undefined : String(value));
  /** A document's text without its `<version>:` prefix. */
  const body = (stored: string | undefined) => (stored === undefined ? undefined : stored.slice(stored.indexOf(':') + 1));

  const listeners = new Set<(actionId: string) => void>();
  const tell = (actionId: string) => {
    for (const listener of [...listeners]) listener(actionId);
  };
  let subscriber: { connection: Subscriber; owned: boolean } | undefined;
  let subscribing: Promise<void> | undefined;
  const subscribe = async () => {
    const owned = options.subscriber === undefined;
    // ioredis subscribes again after a reconnection by itself, with no handler on that command: a connection
    // closed before Redis answered it (close() here, Redis going down again) would be an unhandled rejection,
    // which ends the user's process. The store's own connection subscribes again here instead, caught.
    const connection = (options.subscriber ?? (isNodeRedis ? redis.duplicate!() : redis.duplicate!({ autoResubscribe: false }))) as Subscriber;
    subscriber = { connection, owned };
    // Reconnections are the client's; a notification lost meanwhile is caught by the readers' polling.
    connection.on('error', () => undefined);
    if (isNodeRedis) {
      if (connection.isOpen === false) await connection.connect!();
      await connection.subscribe(key.channel, tell);
    } else {
      connection.on('message', ((channel: string, message: string) => channel === key.channel && tell(message)) as (...args: never[]) => void);
      await connection.subscribe(key.channel);
      if (owned) connection.on('ready', () => void connection.subscribe(key.channel).catch(() => undefined));
    }
  };

  return {
    read(name, deliveryId): Promise<LedgerRead> {
      return send(['MGET', key.document(name), key.seen(deliveryId)]).then((reply) => {
        const [stored, seen] = reply as unknown[];
        const value = text(stored);
        return { value: body(value), version: value === undefined ? 0 : Number(value.slice(0, value.indexOf(':'))), seen: seen !== null };
      });
    },
    commit(change): Promise<CommitResult> {
      const { pending, run: runIndex, decided } = change;
      // The action a change is about: named by whichever index it moves (a late proposal moves only the run's); a job's or the credits' names none.
      const actionId = pending?.actionId ?? decided ?? runIndex?.actionId ?? UNUSED;
      const [pendingOp, score] = pending === undefined ? [UNUSED, UNUSED] : 'remove' in pending ? ['remove', UNUSED] : ['add', String(pending.score)];
      return run(
        COMMIT_SCRIPT,
        [key.document(change.key), key.seen(change.deliveryId), key.pending, key.run(runIndex?.runId ?? UNUSED), key.decided, key.sequence, key.names],
        [
          String(change.version),
          // '' is also the script's "no new text".
          change.value ?? '',
          String(deliveryTtlMs),
          pendingOp,
          score,
          actionId,
          runIndex ? '1' : UNUSED,
          decided !== undefined ? '1' : UNUSED,
          key.queue(''),
          key.channel,
        ],
      ).then((result) => {
        // This process's waiters at once; other processes by the channel.
        if (result === 'committed' && decided !== undefined) tell(decided);
        return result as CommitResult;
      });
    },
    async getMany(names) {
      if (names.length === 0) return [];
      return ((await send(['MGET', ...names.map(key.document)])) as unknown[]).map((value) => body(text(value)));
    },
    async pendingIds(maxScore) {
      return ((await send(['ZRANGEBYSCORE', key.pending, '-inf', Number.isFinite(maxScore) ? String(maxScore) : '+inf'])) as unknown[]).map(String);
    },
    async runActionIds(runId) {
      return ((await send(['SMEMBERS', key.run(runId)])) as unknown[]).map(String);
    },
    async handlerTodo(name, limit) {
      return ((await run(TODO_SCRIPT, [key.names, key.queue(name), key.decided], [name, String(limit)])) as unknown[]).map(String);
    },
    async claimHandler(name, actionId, token, leaseMs): Promise<HandlerClaim> {
      const run_ = Number(await run(CLAIM_SCRIPT, [key.done(name), key.lease(name, actionId), key.runs(name), key.queue(name)], [actionId, token, String(Math.ceil(leaseMs))]));
      return run_ > 0 ? { claimed: true, run: run_ } : { claimed: false, done: run_ < 0 };
    },
    async renewHandler(name, actionId, token, leaseMs) {
      return Number(await run(RENEW_SCRIPT, [key.lease(name, actionId)], [token, String(Math.ceil(leaseMs))])) === 1;
    },
    async finishHandler(name, actionId, token, done) {
      await run(FINISH_SCRIPT, [key.lease(name, actionId), key.done(name), key.queue(name)], [token, done ? '1' : UNUSED, actionId, new Date().toISOString()]);
    },
    async handlerRuns(name, actionId) {
      const [runs, done] = await Promise.all([send(['HGET', key.runs(name), actionId]), send(['HEXISTS', key.done(name), actionId])]);
      // HGET answers null for none: Number(null) is 0.
      return { runs: Number(runs), done: Number(done) === 1 };
    },
    subscribe(listener) {
      listeners.add(listener);
      subscribing ??= subscribe().catch((error: unknown) => {
        // Waiters and handlers still poll; the next subscribe tries again.
        warn(`[svc-sdk] actions ledger: could not subscribe to decisions (${error instanceof Error ? error.message : String(error)}); polling only`);
        subscribing = undefined;
      });
      return () => listeners.delete(listener);
    },
    async close() {
      listeners.clear();
      await subscribing;
      const current = subscriber;
      subscriber = undefined;
      subscribing = undefined;
      // Both clients' duplicates have quit (node-redis 5 also close, quit's new name).
      if (current?.owned) await (current.connection.close ?? current.connection.quit)!.call(current.connection).catch(() => undefined);
    },
  };
}
