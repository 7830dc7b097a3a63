/**
 * The base class of every error the SDK throws, client and webhooks alike.
 *
 * It lives in a module with no imports so that `svc-sdk/webhooks` can extend it without
 * pulling the HTTP client (ky, zod) into an edge bundle.
 *
 * @example
 * ```ts
 * try { await client.rooms.create(params) } catch (error) {
 *   if (error instanceof SvcError) console.error(error.message);
 * }
 * ```
 */
export class SvcError extends Error {
  override name = 'SvcError';
}
