/**
 * `svc-sdk/internal`: the few library internals that svc-sdk's own tools (`@svc-sdk/cli`,
 * `@svc-sdk/mcp`) share with the library, so that each rule has one home. Node only. Not part of
 * the public API: names here may change in any release, and only the tool packages of the same
 * version may import them (their package.json pins `svc-sdk` to exactly that version).
 *
 * Everything a tool needs that an integrator could also use (the Client, errors, verify and sign,
 * the emulator, the inbox) comes from the public entries instead; test/structure.test.ts checks
 * that the tool packages import nothing else of the library.
 *
 * @module svc-sdk/internal
 */
/** The library's version, as the tools print it (`svc-sdk --version`, the MCP server's info). */
export { VERSION } from './core/version.js';
/** The operation table: the MCP server's tools name its entries, take their arguments from its params schemas and are gated by its effects. */
export { operations } from './operations.js';
/** What the params schemas' refinements mean in JSON Schema (an id is an integer above 0): the MCP server's tool arguments say it. */
export { jsonSchemaFacts } from './schemas/common.js';
/** One operation of the table: its method, path, params schema and flags. */
export type { Operation, OperationEffect } from './core/types.js';
/** The per-user state folder rule (manifests, secret files): where it is, and how it is made (0700, a link or a wider mode refused). */
export { ensureStateDirectory, stateDirectory } from './shared/state-dir.js';
/** The one-line description of a failed fetch (cause, code, timeout), for the CLI's messages. */
export { describeFetchFailure } from './shared/fetch-failure.js';
/** A URL parsed the way the library parses one, or undefined. */
export { parseUrl } from './shared/parse-url.js';
/** Random hex from the platform's CSPRNG. */
export { randomHex } from './shared/hex.js';
/** The refusal → status table every receiver uses (`svc-sdk listen` answers with it too). */
export { refusalAnswer, type RefusalReason } from './webhooks/refusals.js';
/** A receiver's answer: status, error text, headers. */
export type { Answer } from './webhooks/types.js';
/** The emulator's control paths for events, actions and credits (`svc-sdk trigger` through a running emulator). */
export { CONTROL_ACTIONS_PATH, CONTROL_CREDITS_PATH, CONTROL_EVENTS_PATH } from './testing/control-path.js';
/** Sample events, without loading the emulator's peers (`svc-sdk trigger`). */
export { buildEventBody, sampleEventData } from './testing/events.js';
/** A client's API key handed to `identify` (a hash of it, say) without exposing it on the instance. */
export { identifyApiKey } from './client.js';
/** The content type the SDK sends for a file name. */
export { mimeFromFilename } from './uploads/mime.js';
/** The folder upload's listing (what the MCP server's upload preview shows). */
export { listFiles } from './uploads/walk-node.js';
/** The one bounded body reader (a stream or a Node request, given up past a byte limit): the MCP server's Node listener and the CLI's printed answers. */
export { readAtMost, type BoundedSource, type ReadAtMostOptions } from './shared/read-at-most.js';
/** The one redaction rule for a URL (user info and credential-named query values hidden), for the CLI's messages. */
export { redactUrl } from './shared/redact.js';
/** A client's route and trust from options and a named environment, with a fetch that takes it (`svc-sdk doctor`). */
export { resolveNetwork, type NetworkRoute } from './core/network-route.js';
/** A proxy a route may go through, as `resolveNetwork` lists them. */
export type { ProxyCandidate } from './core/transport-settings-node.js';
/** The receivers' replay window: the default `tolerance` and how far ahead of the clock a delivery may be. */
export { DEFAULT_MAX_RECORDS, DEFAULT_MCP_MAX_BODY_BYTES, DEFAULT_TOLERANCE_MS, DEFAULT_UPLOAD_CONCURRENCY, FUTURE_SKEW_MS, MAX_PAGE_SIZE, MAX_UPLOAD_CONCURRENCY } from './shared/limits.js';
