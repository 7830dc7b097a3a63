import type { APIPromise } from '../core/api-promise.js';
import type { RequestOptions } from '../core/http.js';
import type { ListOptions, PagePromise } from '../core/pagination.js';
import { path } from '../core/path.js';
import { idField } from '../schemas/common.js';
import {
  WebhookCreatedSchema,
  WebhookCreateParamsSchema,
  WebhookEndpointListSchema,
  WebhookEndpointSchema,
  WebhookSecretSchema,
  WebhookUpdateParamsSchema,
  type WebhookCreated,
  type WebhookCreateParams,
  type WebhookEndpoint,
  type WebhookSecret,
  type WebhookUpdateParams,
} from '../schemas/webhooks.js';
import { Resource } from './resource.js';

const webhookIdSchema = idField('webhookId');

/**
 * Webhook registrations. Paths other than create's are assumptions (the spec does not show them):
 * see the README's "Assumptions where the spec is silent".
 */
export class Webhooks extends Resource {
  /**
   * Registers an endpoint; the answer carries its signing `secret`, shown this once.
   *
   * @example
   * ```ts
   * const hook = await client.webhooks.create({ url: 'https://example.com/webhooks', name: 'uploads', event_types: ['document.uploaded'] });
   * console.log(hook.secret); // store it: it verifies the deliveries, and is never shown again
   * ```
   */
  create(params: WebhookCreateParams, options?: RequestOptions): APIPromise<WebhookCreated> {
    return this.core.call('webhooks.create', options, (parse) => ({
      method: 'POST',
      path: '/webhooks/',
      json: parse(WebhookCreateParamsSchema, params),
      schema: WebhookCreatedSchema,
    }));
  }

  /**
   * Lists this client's registered endpoints: awaited, every page; with `for await`, one page at a time.
   *
   * @example
   * ```ts
   * for (const endpoint of await client.webhooks.list()) console.log(endpoint.id, endpoint.url, endpoint.failure_count);
   * ```
   */
  list(options?: ListOptions): PagePromise<WebhookEndpoint> {
    return this.core.list('webhooks.list', options, () => ({ method: 'GET', path: '/webhooks/', schema: WebhookEndpointListSchema }));
  }

  /**
   * Reads one endpoint, with its `failure_count`.
   *
   * @example
   * ```ts
   * const endpoint = await client.webhooks.retrieve(hook.id);
   * ```
   */
  retrieve(webhookId: number, options?: RequestOptions): APIPromise<WebhookEndpoint> {
    return this.core.call('webhooks.retrieve', options, (parse) => ({
      method: 'GET',
      path: path`/webhooks/${parse(webhookIdSchema, webhookId)}/`,
      schema: WebhookEndpointSchema,
    }));
  }

  /**
   * Changes an endpoint's url, name or event types.
   *
   * @example
   * ```ts
   * await client.webhooks.update(hook.id, { event_types: null }); // every kind from now on
   * ```
   */
  update(webhookId: number, params: WebhookUpdateParams, options?: RequestOptions): APIPromise<WebhookEndpoint> {
    return this.core.call('webhooks.update', options, (parse) => ({
      method: 'PATCH',
      path: path`/webhooks/${parse(webhookIdSchema, webhookId)}/`,
      json: parse(WebhookUpdateParamsSchema, params),
      schema: WebhookEndpointSchema,
    }));
  }

  /**
   * Deletes an endpoint; no further deliveries are made to it. A retry that finds it gone counts as deleted.
   *
   * @example
   * ```ts
   * await client.webhooks.delete(hook.id);
   * ```
   */
  delete(webhookId: number, options?: RequestOptions): APIPromise<void> {
    return this.core.call('webhooks.delete', options, (parse) => ({
      method: 'DELETE',
      path: path`/webhooks/${parse(webhookIdSchema, webhookId)}/`,
      returnsNothing: true,
    }));
  }

  /**
   * Replaces an endpoint's signing secret; the answer carries the new one, shown this once.
   *
   * @example
   * ```ts
   * const { secret } = await client.webhooks.rotateSecret(hook.id); // verify with [secret, oldSecret] until the retries of older deliveries are done
   * ```
   */
  rotateSecret(webhookId: number, options?: RequestOptions): APIPromise<WebhookSecret> {
    return this.core.call('webhooks.rotateSecret', options, (parse) => ({
      method: 'POST',
      path: path`/webhooks/${parse(webhookIdSchema, webhookId)}/rotate-secret/`,
      schema: WebhookSecretSchema,
    }));
  }

  /**
   * Asks the service to send a `ping.test` delivery to the endpoint.
   *
   * @example
   * ```ts
   * await client.webhooks.ping(hook.id); // a ping.test delivery to the endpoint
   * ```
   */
  ping(webhookId: number, options?: RequestOptions): APIPromise<void> {
    return this.core.call('webhooks.ping', options, (parse) => ({
      method: 'POST',
      path: path`/webhooks/${parse(webhookIdSchema, webhookId)}/ping/`,
      returnsNothing: true,
    }));
  }
}
