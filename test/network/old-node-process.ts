// Run by old-node.test.ts under a Node before 22.15 (bundled from the sources): a Client's ca option there, against
// the test's TLS origin, whose certificate NODE_EXTRA_CA_CERTS names; OTHER_CA is a certificate of nobody's.
import { Client } from '../../src/index.node.js';

async function outcome(ca: string): Promise<{ hooks: number } | { name: string; message: string }> {
  const client = new Client({ apiKey: 'vdr_old_node', baseUrl: process.env.BASE_URL, proxy: false, ca, maxRetries: 0 });
  return client.webhooks.list().then(
    (hooks) => ({ hooks: hooks.length }),
    (error: unknown) => ({ name: (error as Error).name, message: (error as Error).message }),
  );
}

console.log(JSON.stringify({ node: process.version, caOption: await outcome(process.env.OTHER_CA!), system: await outcome('system') }));
