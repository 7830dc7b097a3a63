// A Node process started with the environment the test gives it (NODE_EXTRA_CA_CERTS, HTTPS_PROXY),
// bundled from the sources by proxies.test.ts: lists the origin's webhooks through a default Client.
import { Client } from '../../src/index.node.js';

const client = new Client({ apiKey: 'vdr_proxy_test', baseUrl: process.env.BASE_URL, maxRetries: 0 });
const hooks = await client.webhooks.list();
console.log(JSON.stringify({ hooks: hooks.length }));
