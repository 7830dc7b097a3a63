import { describe, expectTypeOf, test } from 'vitest';
import {
  Client,
  type AfterResponseContext,
  type BeforeRetryContext,
  type CallInfo,
  type ClientHooks,
  type DeliveryOutcome,
  type SvcError,
  type WebhookHooks,
} from '../../src/index.node.js';
import { clientTelemetry, webhookTelemetry } from '../../src/otel/index.js';
import { createWebhookHandler } from '../../src/webhooks/index.node.js';

declare const client: Client;

describe('client hooks', () => {
  test('the contexts are typed', () => {
    expectTypeOf<BeforeRetryContext['error']>().toEqualTypeOf<SvcError>();
    expectTypeOf<BeforeRetryContext['delayMs']>().toEqualTypeOf<number>();
    expectTypeOf<AfterResponseContext['response']>().toEqualTypeOf<Response>();
    expectTypeOf<CallInfo['operation']>().toEqualTypeOf<string>();
    expectTypeOf<Parameters<NonNullable<ClientHooks['beforeRequest']>>[0]['headers']>().toEqualTypeOf<Record<string, string>>();
  });

  test('a client and a call take one set or an array of sets, telemetry included', () => {
    new Client({ hooks: clientTelemetry() });
    new Client({ hooks: [clientTelemetry(), { beforeRetry: ({ attempt }) => attempt < 3 }] });
    void client.rooms.create({ name: 'R', room_type: 'company_investment' }, { hooks: { onError: ({ error }) => console.error(error.name) } });
    // @ts-expect-error beforeRetry answers a boolean (or nothing), not a delay
    new Client({ hooks: { beforeRetry: () => 500 } });
    // @ts-expect-error not a hook
    new Client({ hooks: { beforeSend: () => {} } });
  });
});

describe('receiver hooks', () => {
  test('createWebhookHandler takes them, webhookTelemetry() makes them', () => {
    expectTypeOf(webhookTelemetry()).toEqualTypeOf<WebhookHooks>();
    createWebhookHandler({ secret: 'whsec_x', on: () => {}, hooks: [webhookTelemetry(), { onOutcome: ({ outcome }) => console.log(outcome) }] });
    expectTypeOf<DeliveryOutcome['outcome']>().toEqualTypeOf<'processed' | 'stored' | 'duplicate' | 'refused' | 'failed'>();
  });
});
