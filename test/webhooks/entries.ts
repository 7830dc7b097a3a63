// Both entries of `svc-sdk/webhooks`: every suite runs against each, so the Node (node:crypto) and
// web (Web Crypto) back ends are held to the same behaviour.
import * as node from '../../src/webhooks/index.node.js';
import * as web from '../../src/webhooks/index.js';

export const ENTRIES = [
  ['node', node],
  ['web', web],
] as const;

export type Entry = typeof web;
