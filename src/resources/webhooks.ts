import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/http.js';
import type { ListOptions, PagePromise } from '../core/pagination.js';
import { operations } from '../operations.js';
import type { WebhookCreated, WebhookCreateParams, WebhookEndpoint, WebhookSecret, WebhookUpdateParams } from '../schemas/webhooks.js';
import { Resource } from './resource.js';

/**
 * Webhook registrations. Paths other than create's are assumptions (the spec does not show them):
 * see the README's "Assumptions where the spec is silent".
 */
export class Webhooks extends Resource {
  /**
   * Registers an endpoint; the answer carries its signing `secret`, shown this once.
   *
   * @param params The endpoint: its `url`, `name` and the `event_types` it receives (`null` for every kind).
   * @param options Per-call overrides of the client's settings: `signal`, `timeout`, `maxRetries`, `headers`, `hooks`.
   *
   * @example
   * ```ts
   * const hook = await client.webhooks.create({ url: 'https://example.com/webhooks', name: 'uploads', event_types: ['document.uploaded'] });
   * console.log(hook.secret); // store it: it verifies the deliveries, and is never shown again
   * ```
   */
  create(params: WebhookCreateParams, options?: RequestOptions): APIPromise<WebhookCreated> {
    return this.core.call(operations['webhooks.create'], { params }, options);
  }

  /**
   * Lists this client's registered endpoints: awaited, every page; with `for await`, one page at a time.
   *
   * @param options Per-call overrides of the client's settings (`signal`, `timeout`, `maxRetries`, `headers`), and `maxPages`.
   *
   * @example
   * ```ts
   * for (const endpoint of await client.webhooks.list()) console.log(endpoint.id, endpoint.url, endpoint.failure_count);
   * ```
   */
  list(options?: ListOptions): PagePromise<WebhookEndpoint> {
    return this.core.list(operations['webhooks.list'], undefined, options);
  }

  /**
   * Reads one endpoint, with its `failure_count`.
   *
   * @param webhookId The id of the webhook endpoint.
   * @param options Per-call overrides of the client's settings: `signal`, `timeout`, `maxRetries`, `headers`, `hooks`.
   *
   * @example
   * ```ts
   * const endpoint = await client.webhooks.retrieve(hook.id);
   * ```
   */
  retrieve(webhookId: number, options?: RequestOptions): APIPromise<WebhookEndpoint> {
    return this.core.call(operations['webhooks.retrieve'], { path: [webhookId] }, options);
  }

  /**
   * Changes an endpoint's url, name or event types.
   *
   * @param webhookId The id of the webhook endpoint.
   * @param params The fields to change: `url`, `name`, `event_types`.
   * @param options Per-call overrides of the client's settings: `signal`, `timeout`, `maxRetries`, `headers`, `hooks`.
   *
   * @example
   * ```ts
   * await client.webhooks.update(hook.id, { event_types: null }); // every kind from now on
   * ```
   */
  update(webhookId: number, params: WebhookUpdateParams, options?: RequestOptions): APIPromise<WebhookEndpoint> {
    return this.core.call(operations['webhooks.update'], { path: [webhookId], params }, options);
  }

  /**
   * Deletes an endpoint; no further deliveries are made to it. A retry that finds it gone counts as deleted.
   *
   * @param webhookId The id of the webhook endpoint.
   * @param options Per-call overrides of the client's settings: `signal`, `timeout`, `maxRetries`, `headers`, `hooks`.
   *
   * @example
   * ```ts
   * await client.webhooks.delete(hook.id);
   * ```
   */
  delete(webhookId: number, options?: RequestOptions): APIPromise<void> {
    return this.core.call(operations['webhooks.delete'], { path: [webhookId] }, options) as APIPromise<void>;
  }

  /**
   * Replaces an endpoint's signing secret; the answer carries the new one, shown this once.
   *
   * @param webhookId The id of the webhook endpoint.
   * @param options Per-call overrides of the client's settings: `signal`, `timeout`, `maxRetries`, `headers`, `hooks`.
   *
   * @example
   * ```ts
   * const { secret } = await client.webhooks.rotateSecret(hook.id); // verify with [secret, oldSecret] until the retries of older deliveries are done
   * ```
   */
  rotateSecret(webhookId: number, options?: RequestOptions): APIPromise<WebhookSecret> {
    return this.core.call(operations['webhooks.rotateSecret'], { path: [webhookId] }, options);
  }

  /**
   * Asks the service to send a `ping.test` delivery to the endpoint.
   *
   * @param webhookId The id of the webhook endpoint.
   * @param options Per-call overrides of the client's settings: `signal`, `timeout`, `maxRetries`, `headers`, `hooks`.
   *
   * @example
   * ```ts
   * await client.webhooks.ping(hook.id); // a ping.test delivery to the endpoint
   * ```
   */
  ping(webhookId: number, options?: RequestOptions): APIPromise<void> {
    return this.core.call(operations['webhooks.ping'], { path: [webhookId] }, options) as APIPromise<void>;
  }
}
