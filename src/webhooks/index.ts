// Placeholder: the webhooks issue fills this entry (verify, sign, events, handler, dedupe).
export { WEBHOOK_EVENT_KINDS, type EventKind, type KnownEventKind } from './event-kinds.js';
