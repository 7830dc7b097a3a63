import { describe, expect, it } from 'vitest';
import * as sdkNode from '../src/index.node.js';
import * as sdkWeb from '../src/index.js';
import * as webhooksNode from '../src/webhooks/index.node.js';
import * as webhooksWeb from '../src/webhooks/index.js';

// DESIGN.md: `svc-sdk` re-exports the webhook helpers. Each entry of `svc-sdk` must carry every value
// its `svc-sdk/webhooks` twin exports, the very same one (so instanceof and identity hold across them).
describe.each([
  ['the Node entries', sdkNode, webhooksNode],
  ['the web entries', sdkWeb, webhooksWeb],
])('%s', (_, sdk, webhooks) => {
  it('svc-sdk re-exports every value of svc-sdk/webhooks, identical', () => {
    const missing = Object.keys(webhooks).filter((name) => (sdk as Record<string, unknown>)[name] !== (webhooks as Record<string, unknown>)[name]);
    expect(missing).toEqual([]);
  });
});

it('both entries of svc-sdk export the same names', () => {
  expect(Object.keys(sdkNode).sort()).toEqual(Object.keys(sdkWeb).sort());
});
