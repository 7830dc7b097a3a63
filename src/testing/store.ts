import type { DeliveryTarget } from './deliveries.js';
import { randomHex } from '../shared/hex.js';
import type { SearchableDocument } from './search-index.js';

/** A stored deal. */
export interface StoredDeal {
  id: number;
  name: string;
  stage: string;
  asset_class: string;
  [field: string]: unknown;
}

/** A stored room. */
export interface StoredRoom {
  id: number;
  name: string;
  room_type: string;
  [field: string]: unknown;
}

/** A stored transaction. */
export interface StoredTransaction {
  id: number;
  name: string;
  deal_id: number;
  linked_room_id: number | null;
  [field: string]: unknown;
}

/** A stored document, with its bytes for search. */
export interface StoredDocument extends SearchableDocument {
  roomId: number;
  uploaderId: number;
}

/** A webhook registration, owned by one API key. */
export interface StoredWebhook extends DeliveryTarget {
  apiKey: string;
  name: string;
  event_types: string[] | null;
}

/** The kinds of record the emulator keeps, each bounded on its own: its collections, and the delivery attempts it made. */
export type RecordKind = 'deals' | 'rooms' | 'transactions' | 'documents' | 'webhooks' | 'delivery attempts';

/**
 * Records by id, oldest first, at most `limit` of them: adding one more drops the oldest. A Map
 * whose `set` keeps the bound, so the routes store records as in any Map and cannot forget it.
 */
class BoundedRecords<V> extends Map<number, V> {
  constructor(
    private readonly kind: RecordKind,
    private readonly limit: number,
    private readonly dropped: (kind: RecordKind, record: V) => void,
  ) {
    super();
  }

  override set(id: number, record: V): this {
    if (this.size >= this.limit && !this.has(id)) {
      const [oldestId, oldest] = this.entries().next().value!;
      this.delete(oldestId);
      this.dropped(this.kind, oldest);
    }
    return super.set(id, record);
  }
}

/**
 * The emulator's whole state: maps and counters, cleared by `reset()`. Each collection keeps at most
 * `maxRecords` records, so a long-running emulator (the CLI's) does not grow without end: past it, the
 * oldest record is dropped (a dropped webhook gets no more deliveries) and `warn` is called once.
 */
export class Store {
  readonly deals: Map<number, StoredDeal>;
  readonly rooms: Map<number, StoredRoom>;
  readonly transactions: Map<number, StoredTransaction>;
  readonly documents: Map<number, StoredDocument>;
  readonly webhooks: Map<number, StoredWebhook>;
  readonly #uploaders = new Map<string, number>();
  #nextId = new Map<string, number>();
  readonly #maxRecords: number;
  readonly #warn: (message: string) => void;
  #warned = false;

  constructor(maxRecords = Number.POSITIVE_INFINITY, warn: (message: string) => void = console.warn) {
    this.#maxRecords = maxRecords;
    this.#warn = warn;
    const dropped = (kind: RecordKind, record: unknown) => {
      if (kind === 'webhooks') (record as StoredWebhook).deleted = true; // stops its pending retries, as a delete does
      this.noteDropped(kind);
    };
    this.deals = new BoundedRecords<StoredDeal>('deals', maxRecords, dropped);
    this.rooms = new BoundedRecords<StoredRoom>('rooms', maxRecords, dropped);
    this.transactions = new BoundedRecords<StoredTransaction>('transactions', maxRecords, dropped);
    this.documents = new BoundedRecords<StoredDocument>('documents', maxRecords, dropped);
    this.webhooks = new BoundedRecords<StoredWebhook>('webhooks', maxRecords, dropped);
  }

  /** Says, the first time a record of any kind is dropped for the bound, that records are now being dropped. */
  noteDropped(kind: RecordKind): void {
    if (this.#warned) return;
    this.#warned = true;
    this.#warn(
      `[svc-sdk] emulator: ${kind} reached ${this.#maxRecords}, the most it keeps of each kind: each new record now drops the oldest of its kind. ` +
        'Raise the bound with createEmulator({ maxRecords }) or svc-sdk emulator --max-records, or reset() between runs',
    );
  }

  /** The next id of a kind of record, from 1. */
  nextId(kind: 'deal' | 'room' | 'transaction' | 'document' | 'webhook'): number {
    const id = (this.#nextId.get(kind) ?? 0) + 1;
    this.#nextId.set(kind, id);
    return id;
  }

  /** A stable user id for an API key: the `uploader_id` of its uploads. */
  uploaderId(apiKey: string): number {
    let id = this.#uploaders.get(apiKey);
    if (id === undefined) {
      id = this.#uploaders.size + 1;
      this.#uploaders.set(apiKey, id);
    }
    return id;
  }

  /** Forgets every record and restarts the ids. */
  clear(): void {
    for (const webhook of this.webhooks.values()) webhook.deleted = true; // stops their pending retries
    this.deals.clear();
    this.rooms.clear();
    this.transactions.clear();
    this.documents.clear();
    this.webhooks.clear();
    this.#uploaders.clear();
    this.#nextId = new Map();
  }
}

/** A registration as listed or retrieved: never its secret. */
export function webhookView(webhook: StoredWebhook): Record<string, unknown> {
  const { id, url, name, event_types, failure_count } = webhook;
  return { id, url, name, event_types, failure_count };
}

/** A fresh signing secret: `whsec_` and 32 random bytes in hex. */
export function newSecret(): string {
  return `whsec_${randomHex(32)}`;
}
