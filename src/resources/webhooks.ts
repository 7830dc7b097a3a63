import type { RequestOptions } from '../core/http.js';
import { path } from '../core/path.js';
import { parseParams } from '../core/validate.js';
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
  /** Registers an endpoint; the answer carries its signing `secret`, shown this once. */
  async create(params: WebhookCreateParams, options?: RequestOptions): Promise<WebhookCreated> {
    const json = parseParams('webhooks.create', WebhookCreateParamsSchema, params);
    return this.core.request(
      { method: 'POST', path: '/webhooks/', json, schema: WebhookCreatedSchema, operation: 'webhooks.create' },
      options,
    );
  }

  /** Lists this client's registered endpoints. */
  async list(options?: RequestOptions): Promise<WebhookEndpoint[]> {
    return this.core.request(
      { method: 'GET', path: '/webhooks/', schema: WebhookEndpointListSchema, page: true, operation: 'webhooks.list' },
      options,
    );
  }

  /** Reads one endpoint, with its `failure_count`. */
  async retrieve(webhookId: number, options?: RequestOptions): Promise<WebhookEndpoint> {
    parseParams('webhooks.retrieve', webhookIdSchema, webhookId);
    return this.core.request(
      { method: 'GET', path: path`/webhooks/${webhookId}/`, schema: WebhookEndpointSchema, operation: 'webhooks.retrieve' },
      options,
    );
  }

  /** Changes an endpoint's url, name or event types. */
  async update(webhookId: number, params: WebhookUpdateParams, options?: RequestOptions): Promise<WebhookEndpoint> {
    parseParams('webhooks.update', webhookIdSchema, webhookId);
    const json = parseParams('webhooks.update', WebhookUpdateParamsSchema, params);
    return this.core.request(
      { method: 'PATCH', path: path`/webhooks/${webhookId}/`, json, schema: WebhookEndpointSchema, operation: 'webhooks.update' },
      options,
    );
  }

  /** Deletes an endpoint; no further deliveries are made to it. */
  async delete(webhookId: number, options?: RequestOptions): Promise<void> {
    parseParams('webhooks.delete', webhookIdSchema, webhookId);
    await this.core.request({ method: 'DELETE', path: path`/webhooks/${webhookId}/`, operation: 'webhooks.delete' }, options);
  }

  /** Replaces an endpoint's signing secret; the answer carries the new one, shown this once. */
  async rotateSecret(webhookId: number, options?: RequestOptions): Promise<WebhookSecret> {
    parseParams('webhooks.rotateSecret', webhookIdSchema, webhookId);
    return this.core.request(
      { method: 'POST', path: path`/webhooks/${webhookId}/rotate-secret/`, schema: WebhookSecretSchema, operation: 'webhooks.rotateSecret' },
      options,
    );
  }

  /** Asks the service to send a `ping.test` delivery to the endpoint. */
  async ping(webhookId: number, options?: RequestOptions): Promise<void> {
    parseParams('webhooks.ping', webhookIdSchema, webhookId);
    await this.core.request({ method: 'POST', path: path`/webhooks/${webhookId}/ping/`, operation: 'webhooks.ping' }, options);
  }
}
