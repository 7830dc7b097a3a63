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

/** The emulator's whole state: plain maps and counters, cleared by `reset()`. */
export class Store {
  readonly deals = new Map<number, StoredDeal>();
  readonly rooms = new Map<number, StoredRoom>();
  readonly transactions = new Map<number, StoredTransaction>();
  readonly documents = new Map<number, StoredDocument>();
  readonly webhooks = new Map<number, StoredWebhook>();
  readonly #uploaders = new Map<string, number>();
  #nextId = new Map<string, number>();

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
