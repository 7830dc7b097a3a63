import { describe, expectTypeOf, test } from 'vitest';
import type {
  ActionExpiredData,
  CreditLowData,
  DocumentUploadedData,
  KnownEventKind,
  WebhookEvent,
  WebhookEventOf,
} from '../../src/webhooks/index.js';
import * as node from '../../src/webhooks/index.node.js';
import * as web from '../../src/webhooks/index.js';

declare const event: WebhookEvent;

describe('WebhookEvent', () => {
  test('narrows on event === kind', () => {
    if (event.event === 'credit.low') {
      expectTypeOf(event.data).toEqualTypeOf<CreditLowData>();
      expectTypeOf(event.data.balance).toEqualTypeOf<number>();
    }
    if (event.event === 'document.uploaded') {
      expectTypeOf(event.data).toEqualTypeOf<DocumentUploadedData>();
      expectTypeOf(event.data.room_id).toEqualTypeOf<number>();
      expectTypeOf(event.data.filename).toEqualTypeOf<string>();
    }
    if (event.event === 'action.expired') expectTypeOf(event.data).toEqualTypeOf<ActionExpiredData>();
    if (event.event === 'credit.granted') expectTypeOf(event.data.note).toEqualTypeOf<string>();
    if (event.event === 'job.failed') expectTypeOf(event.data.error).toEqualTypeOf<string>();
    if (event.event === 'module.disabled') expectTypeOf(event.data.module).toEqualTypeOf<string>();
    if (event.event === 'ping.test') expectTypeOf(event.data).toEqualTypeOf<Record<string, unknown>>();
  });

  test('narrows in a switch, and the default branch holds the rest', () => {
    switch (event.event) {
      case 'credit.exhausted':
        expectTypeOf(event.data.balance).toEqualTypeOf<number>();
        break;
      case 'action.approved':
        expectTypeOf(event.data.result).toEqualTypeOf<unknown>();
        break;
      default:
        expectTypeOf(event.data).not.toEqualTypeOf<CreditLowData>();
    }
  });

  test('every known kind has a member; an unknown kind has untyped data and a string event', () => {
    expectTypeOf<WebhookEventOf<'credit.low'>>().toExtend<WebhookEvent>();
    expectTypeOf<KnownEventKind>().toExtend<WebhookEvent['event']>();
    expectTypeOf<WebhookEvent['event']>().toExtend<string>();
    expectTypeOf(event.delivery_id).toEqualTypeOf<string>();
    // A kind newer than the SDK: compare as a string, then read data as a record.
    if ((event.event as string) === 'fund.closed') expectTypeOf(event.data).toExtend<object>();
    // @ts-expect-error a typo in a known kind is caught: the literal overlaps no member
    if (event.event === 'credit.lowww') return;
  });

  test('a wrong field on a narrowed event is an error', () => {
    if (event.event === 'credit.low') {
      // @ts-expect-error credit.low has no filename
      void event.data.filename;
    }
  });
});

describe('the two entries', () => {
  test('have the same signatures', () => {
    expectTypeOf(node.verifySignature).toEqualTypeOf(web.verifySignature);
    expectTypeOf(node.verifyWebhook).toEqualTypeOf(web.verifyWebhook);
    expectTypeOf(node.createWebhookHandler).toEqualTypeOf(web.createWebhookHandler);
    expectTypeOf(web.verifyWebhook).returns.resolves.toEqualTypeOf<WebhookEvent>();
    expectTypeOf(web.createWebhookHandler).returns.toEqualTypeOf<(request: Request) => Promise<Response>>();
  });

  test('accept a string, Buffer, Uint8Array or ArrayBuffer body and one or several secrets', () => {
    expectTypeOf(web.verifySignature).toBeCallableWith('{}', 'sha256=', 's');
    expectTypeOf(web.verifySignature).toBeCallableWith(Buffer.from('{}'), null, ['a', 'b']);
    expectTypeOf(web.verifySignature).toBeCallableWith(new ArrayBuffer(2), undefined, 's');
    // Node's req.headers value, array included (a repeated header, which never verifies).
    expectTypeOf(web.verifySignature).toBeCallableWith('{}', ({} as import('node:http').IncomingHttpHeaders)['x-svc-signature'], 's');
  });
});
