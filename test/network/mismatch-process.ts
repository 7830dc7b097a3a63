// Run by dispatcher-mismatch.test.ts under another Node than the test's (bundled from the sources):
// a Client given a dispatcher of the installed undici, whose major may differ from this Node's fetch.
import { Agent } from 'undici';
import { Client, UndiciMismatchError } from '../../src/index.node.js';

const client = new Client({ apiKey: 'vdr_mismatch', baseUrl: 'http://127.0.0.1:9', dispatcher: new Agent(), maxRetries: 0 });
const error = await client.webhooks.list().then(() => undefined, (caught: unknown) => caught);
console.log(JSON.stringify({ node: process.version, undici: process.versions.undici, name: (error as Error)?.name, mismatch: error instanceof UndiciMismatchError, message: (error as Error)?.message }));
