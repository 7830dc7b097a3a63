// Receive signed webhooks in Fastify: the same handler through toNodeListener, on Fastify's raw
// request and response, in a scope where no content-type parser reads the body first.
//   SVC_WEBHOOK_SECRET=whsec_... node examples/fastify-receiver.mjs   (`--self-test` sends itself one delivery)
import Fastify from 'fastify';
import { createWebhookHandler, signPayload, toNodeListener } from 'svc-sdk/webhooks';

const secret = process.env.SVC_WEBHOOK_SECRET ?? 'whsec_example_secret';
const listener = toNodeListener(
  createWebhookHandler({ secret, on: (event) => console.log(`received ${event.event} (${event.delivery_id})`) }),
);

const app = Fastify();
await app.register(async (scope) => {
  // Fastify parses JSON bodies before the route runs; here nothing reads the body but the listener.
  scope.removeAllContentTypeParsers();
  scope.addContentTypeParser('*', (_request, _payload, done) => done(null));
  scope.post('/webhooks', (request, reply) => {
    reply.hijack(); // the listener answers on reply.raw
    return listener(request.raw, reply.raw);
  });
});
await app.listen({ port: Number(process.env.PORT ?? 3000), host: '127.0.0.1' });
const url = `http://127.0.0.1:${app.server.address().port}/webhooks`;
console.log(`listening on ${url}`);

if (process.argv.includes('--self-test')) {
  const body = JSON.stringify({ event: 'ping.test', version: '1.0', delivery_id: crypto.randomUUID(), timestamp: new Date().toISOString(), data: {} });
  const response = await fetch(url, { method: 'POST', body, headers: { 'content-type': 'application/json', 'x-svc-signature': await signPayload(body, secret) } });
  console.log(response.status, await response.text());
  await app.close();
}
