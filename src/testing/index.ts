/**
 * `svc-sdk/testing`: an in-memory emulator of the whole service, for tests and local development.
 *
 * @module svc-sdk/testing
 */
// The emulator of the service, for tests and local development. msw, @hono/node-server and
// minisearch are optional peer dependencies: install them to use this entry.
export { createEmulator, type Emulator, type EmulatorOptions, type WaitOptions } from './emulator.js';
export type { DeliveryAttempt, ScheduledDelivery } from './deliveries.js';
export type { ListeningEmulator } from './listen.js';
export type { EmulatorFaults } from './faults.js';
export { CreditsExhaustedError, type EmulatorAction, type EmulatorActions, type EmulatorActionsOptions } from './actions.js';
export type { Citation, SearchAnswer } from './search-index.js';
export { SAMPLE_EVENT_DATA, sampleEventData, buildEventBody } from './events.js';
