// The limits a user of svc-sdk meets: the caps on what is read, sent or kept, and the defaults of the
// options that set them, in one place, so a number the README or DESIGN.md states has one home. A
// constant private to one algorithm (a slice size, a sweep count) stays beside it. The tool packages
// (@svc-sdk/cli, @svc-sdk/mcp) read the ones they share through svc-sdk/internal.
// Numbers as literals, not products: bundles keep a product of constants as written.

// --- The Client ---

/** The default of `timeout`: 60 s per attempt. */
export const DEFAULT_CLIENT_TIMEOUT_MS = 60_000;
/** The default of `maxRetries`: 2 retries after the first attempt. */
export const DEFAULT_MAX_RETRIES = 2;
/** The longest timer a runtime can set (2^31-1 ms, about 24.8 days); a longer `timeout` would overflow. */
export const MAX_TIMER_MS = 2_147_483_647;
/** The default of `maxResponseBytes`: 64 MiB, far above any answer of the service, low enough to bound memory. */
export const DEFAULT_MAX_RESPONSE_BYTES = 67_108_864;
/** The default of `maxPages`: far above any real list, low enough to stop a loop. */
export const DEFAULT_MAX_PAGES = 1000;
/** Redirects a GET follows at most (fetch's own limit is 20: a loop would cost 20 round trips). */
export const MAX_REDIRECTS = 5;
/** The longest wait a service's Retry-After is followed for (longer asks wait this long, as before with ky's `maxRetryAfter`). */
export const MAX_RETRY_AFTER_MS = 60_000;

// --- Receiving webhooks ---

/** The default of `maxBodyBytes`: 1 MiB; a delivery is a few hundred bytes. */
export const DEFAULT_MAX_BODY_BYTES = 1_048_576;
/** The default of `bodyTimeoutMs`: how long a delivery's body may take to arrive, 10 s. */
export const DEFAULT_BODY_TIMEOUT_MS = 10_000;
/** The default of `storeTimeoutMs`: how long a dedupe store or inbox call may take, 2 s. */
export const DEFAULT_STORE_TIMEOUT_MS = 2000;
/** The default of `secretTimeoutMs`: how long a secret function may take, 5 s. */
export const DEFAULT_SECRET_TIMEOUT_MS = 5000;
/** How far ahead of this clock a delivery's timestamp may be (clock skew between hosts): 5 minutes. */
export const FUTURE_SKEW_MS = 300_000;
/** The default tolerance: 12 h, over the service's retry schedule of about 10.6 h. */
export const DEFAULT_TOLERANCE_MS = 43_200_000;
/**
 * How long a processed `delivery_id` is remembered: 12 h 5 min, the default replay window (12 h,
 * over the service's ~10.6 h of retries) plus the 5 minutes a timestamp may be ahead, so that
 * every delivery the window lets in is still remembered when it is replayed.
 */
export const DONE_TTL_MS = 43_500_000;
/** How long a claim lasts when its worker never completes nor releases it (a crash): 5 minutes. */
export const PROCESSING_TTL_MS = 300_000;
/** The memory dedupe store's default size (`maxEntries`): 50 000 ids, about 5.5 MB (UUIDs). */
export const DEFAULT_MAX_DEDUPE_ENTRIES = 50_000;

// --- documents.uploadMany ---

/** The default of `concurrency`: files sent at once. */
export const DEFAULT_UPLOAD_CONCURRENCY = 4;
/** The most files sent at once (`concurrency`, the CLI's `--concurrency`). */
export const MAX_UPLOAD_CONCURRENCY = 64;
/**
 * The longest manifest line taken for a record. A record is a path (at most a few KiB on every file
 * system) and a few fields: a longer line is not one of ours, and is refused rather than held in memory.
 */
export const MAX_MANIFEST_LINE_BYTES = 65_536;

// --- The emulator (svc-sdk/testing, `svc-sdk emulator`) ---

/** The default of `maxJsonBytes`: the largest JSON request body it takes, 1 MiB. */
export const DEFAULT_MAX_JSON_BYTES = 1_048_576;
/** The default of `maxUploadBytes`: the largest upload it takes, 100 MiB. */
export const DEFAULT_MAX_UPLOAD_BYTES = 104_857_600;
/** The default of `maxRecords`: enough for any test suite, and a CLI emulator left running for weeks stays at a few MB of records. */
export const DEFAULT_MAX_RECORDS = 10_000;
/** The largest `page_size` it answers (`pageSize`, the CLI's `--page-size`). */
export const MAX_PAGE_SIZE = 1000;
/** The page size when a request asks for a `page` but not its size. */
export const DEFAULT_PAGE_SIZE = 100;

// --- The MCP server (@svc-sdk/mcp, `svc-sdk mcp`) ---

/** The default of its HTTP transport's `maxBodyBytes` (the CLI's `--max-body-bytes`): 1 MiB; tool arguments are small. */
export const DEFAULT_MCP_MAX_BODY_BYTES = 1_048_576;
