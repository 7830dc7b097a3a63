// The seam between the ledger and where it keeps its state. The ledger computes every change
// (transition.ts); a store only keeps documents by key with a version, and makes one change
// atomic: the delivery marked seen, the document replaced if its version is still the one read,
// the indexes moved, in one step or not at all. A store shared by processes (Redis) makes the
// ledger shared: each decision's handler claimed once, waiters told across processes.
import type { HandlerRuns } from './types.js';

/** A document as read, with whether the delivery about to change it was seen before. */
export interface LedgerRead {
  /** The document's JSON text, or `undefined` when there is none yet. */
  readonly value: string | undefined;
  /** Its version: 0 when absent, one more at each change. */
  readonly version: number;
  /** The delivery_id was recorded before: the event must change nothing. */
  readonly seen: boolean;
}

/** One change, applied atomically by `commit`. */
export interface LedgerCommit {
  readonly deliveryId: string;
  /** The document's key (`action:<id>`, `job:<runId>`, `credits`). */
  readonly key: string;
  /** The version `read` gave: the change applies only if the document is still at it. */
  readonly version: number;
  /** The new JSON text; `undefined` when the event changes nothing but must still be marked seen. */
  readonly value: string | undefined;
  /** The pending index: add with a score (ms of the proposal), or remove. */
  readonly pending?: { readonly actionId: string; readonly score: number } | { readonly actionId: string; readonly remove: true } | undefined;
  /** The run index: this action belongs to this run. */
  readonly run?: { readonly runId: string; readonly actionId: string } | undefined;
  /** The action that this change decided: queued for every handler name, and waiters told. */
  readonly decided?: string | undefined;
}

/** What `commit` did: applied, the delivery was seen meanwhile, or the document moved on since `read` (read again). */
export type CommitResult = 'committed' | 'duplicate' | 'conflict';

/** What claiming a decision for a handler gave: the run number taken, or why not. */
export type HandlerClaim = { readonly claimed: true; readonly run: number } | { readonly claimed: false; readonly done: boolean };

/**
 * Where an action ledger keeps its state. `createMemoryLedgerStore()` for one process,
 * `createRedisLedgerStore(client)` for every process and machine sharing a Redis.
 */
export interface LedgerStore {
  /**
   * The document under `key` and whether `deliveryId` was seen.
   *
   * @param key The document's key (`action:<id>`, `job:<runId>`, `credits`).
   * @param deliveryId The delivery_id of the event about to change the document.
   */
  read(key: string, deliveryId: string): Promise<LedgerRead>;
  /**
   * Applies `change` atomically (see `LedgerCommit`).
   *
   * @param change The change: the delivery to mark seen, the new document at the version read, the indexes to move.
   */
  commit(change: LedgerCommit): Promise<CommitResult>;
  /**
   * The documents under `keys` (`undefined` where none).
   *
   * @param keys The documents' keys, in the order of the answer.
   */
  getMany(keys: readonly string[]): Promise<Array<string | undefined>>;
  /**
   * Pending action ids whose score is at most `maxScore`, lowest score first.
   *
   * @param maxScore The highest proposal time to include, in ms since the epoch (`Infinity` for all).
   */
  pendingIds(maxScore: number): Promise<string[]>;
  /**
   * The action ids of a run.
   *
   * @param runId The id of the agent run.
   */
  runActionIds(runId: string): Promise<string[]>;
  /**
   * Up to `limit` decided action ids not yet done by handler `name`, oldest decision first (registers the name: every decision, past ones included, is queued for it).
   *
   * @param name The handler's name (`onDecision`'s `name`).
   * @param limit The most action ids to return.
   */
  handlerTodo(name: string, limit: number): Promise<string[]>;
  /**
   * Claims action `actionId` for handler `name` with `token` for `leaseMs`, unless done or claimed.
   *
   * @param name The handler's name (`onDecision`'s `name`).
   * @param actionId The id of the decided action.
   * @param token A token unique to this run, which renewing and finishing the claim must present.
   * @param leaseMs How long the claim holds without renewal, in ms.
   */
  claimHandler(name: string, actionId: string, token: string, leaseMs: number): Promise<HandlerClaim>;
  /**
   * Extends a claim still held by `token`; false when it was lost (expired, taken over).
   *
   * @param name The handler's name (`onDecision`'s `name`).
   * @param actionId The id of the claimed action.
   * @param token The token the claim was taken with.
   * @param leaseMs How long the claim holds from now without another renewal, in ms.
   */
  renewHandler(name: string, actionId: string, token: string, leaseMs: number): Promise<boolean>;
  /**
   * Ends a claim held by `token`: recorded done (`done`), or released to run again.
   *
   * @param name The handler's name (`onDecision`'s `name`).
   * @param actionId The id of the claimed action.
   * @param token The token the claim was taken with.
   * @param done True to record the run done; false to release the action to run again.
   */
  finishHandler(name: string, actionId: string, token: string, done: boolean): Promise<void>;
  /**
   * How often handler `name` ran for an action, and whether it is done.
   *
   * @param name The handler's name (`onDecision`'s `name`).
   * @param actionId The id of the action.
   */
  handlerRuns(name: string, actionId: string): Promise<HandlerRuns>;
  /**
   * Hears each new decision committed by any process sharing the store (a hint: may miss some, so readers also poll).
   *
   * @param listener Called with the id of each newly decided action.
   */
  subscribe(listener: (actionId: string) => void): () => void;
  /** Releases what the store opened (its subscriber connection); the client passed in stays the caller's. */
  close(): Promise<void>;
}
