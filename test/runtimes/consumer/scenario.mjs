// The one scenario every runtime of the matrix runs against the packed package: JSON calls, uploads,
// an error case, webhook signatures and the webhook handler on real Requests. It takes the package's
// modules as arguments (each runtime loads them its own way: import, require, a bundle) and uses
// only web APIs, so the very same file runs in Node, Bun, Deno, workerd and Chromium. Every step
// runs even when an earlier independent one failed, so a row reports all that is broken at once.

/** The test API key: the emulator accepts any key that starts with `vdr_`. */
const API_KEY = 'vdr_runtime_matrix_key';

/**
 * Runs the scenario against the service at `baseUrl`; resolves with what it observed, or rejects
 * with an Error naming every step that failed and why.
 */
export async function runScenario({ sdk, webhooks, baseUrl, label }) {
  const observed = { label };
  const failures = [];
  const step = async (name, action) => {
    try {
      return await action();
    } catch (error) {
      failures.push(`step "${name}" failed:\n${indent(explain(error))}`);
      return undefined;
    }
  };
  // Chromium runs this as a page, where a key is visible to the page's users: the SDK wants it said.
  const client = new sdk.Client({ apiKey: API_KEY, baseUrl, maxRetries: 0, timeout: 15_000, dangerouslyAllowBrowser: true });
  const word = `quokka${Math.floor(Math.random() * 1e9)}`;
  const text = `Runtime matrix notes from ${label}. The covenant threshold word is ${word}.`;

  // JSON calls: the envelope is unwrapped and the result checked against the schema.
  const room = await step('deals.create and rooms.create', async () => {
    const deal = await client.deals.create({ name: `Deal from ${label}`, stage: 'sourcing', asset_class: 'equity' });
    check(Number.isInteger(deal.id) && deal.id > 0, `deals.create returned an integer id (got ${show(deal.id)})`);
    check(deal.name === `Deal from ${label}`, `deals.create returned the deal's name (got ${show(deal.name)})`);
    const created = await client.rooms.create({ name: `Room from ${label}`, room_type: 'company_investment' });
    check(Number.isInteger(created.id) && created.id > 0, `rooms.create returned an integer id (got ${show(created.id)})`);
    observed.dealId = deal.id;
    observed.roomId = created.id;
    return created;
  });

  // An upload from bytes (multipart, one part named `file`); the search proves the bytes arrived.
  const document = await step('documents.upload of bytes, then search.query', async () => {
    check(room !== undefined, 'a room exists (see the step above)');
    const uploaded = await client.documents.upload(room.id, new TextEncoder().encode(text), {
      filename: 'runtime-notes.txt',
      contentType: 'text/plain',
    });
    check(Number.isInteger(uploaded.id) && uploaded.id > 0, `documents.upload returned an integer id (got ${show(uploaded.id)})`);
    check(uploaded.original_filename === 'runtime-notes.txt', `documents.upload kept the filename (got ${show(uploaded.original_filename)})`);
    observed.documentId = uploaded.id;
    const found = await client.search.query(room.id, { query: word });
    const cited = (found.citations ?? []).some(
      (citation) => citation.document_id === uploaded.id || (citation.passage ?? '').includes(word),
    );
    check(cited || (found.answer ?? '').includes(word), `search.query cites the uploaded text (got ${show(found)})`);
    return uploaded;
  });

  // An upload with progress: the SDK streams the body through a byte counter. (Chromium streams a
  // request body over HTTP/2 only; the emulator, like most local servers, speaks HTTP/1.1.)
  await step('documents.upload with onUploadProgress', async () => {
    check(room !== undefined, 'a room exists (see the step above)');
    const blob = new Blob([text.repeat(64)], { type: 'text/plain' });
    const progress = [];
    const tracked = await client.documents.upload(room.id, blob, {
      filename: 'runtime-progress.txt',
      onUploadProgress: (event) => void progress.push(event),
    });
    check(Number.isInteger(tracked.id) && tracked.id !== document?.id, `the upload returned a new id (got ${show(tracked.id)})`);
    check(progress.length > 0, 'onUploadProgress was called');
    check(progress.at(-1).loaded >= blob.size, `onUploadProgress reported every byte (got ${show(progress)})`);
    observed.progressEvents = progress.length;
  });

  // An error case: an unknown room is a 404, mapped to NotFoundError, with the key kept out of it.
  await step('a 404 becomes NotFoundError', async () => {
    const failure = await client.search.query(987_654_321, { query: word }).then(
      () => undefined,
      (error) => error,
    );
    check(failure !== undefined, 'search.query on an unknown room rejected');
    check(failure.name === 'NotFoundError', `the 404 is a NotFoundError (got ${show(failure.name)}: ${failure.message})`);
    check(failure instanceof sdk.NotFoundError && failure instanceof sdk.APIError, 'the 404 is an instance of NotFoundError and APIError');
    check(failure instanceof sdk.SvcError, 'the 404 is an instance of SvcError');
    check(failure.status === 404, `the error carries status 404 (got ${show(failure.status)})`);
    check(!`${failure.message} ${failure.url}`.includes(API_KEY), 'the error does not contain the API key');
    observed.errorName = failure.name;
    observed.errorStatus = failure.status;
  });

  // Webhook signatures, against an HMAC computed here with Web Crypto (an independent implementation).
  const secret = `whsec_${word}`;
  const body = JSON.stringify({
    event: 'document.uploaded',
    version: '1.0',
    delivery_id: crypto.randomUUID(),
    timestamp: new Date().toISOString(),
    data: { room_id: room?.id ?? 1, document_id: 4242, filename: 'runtime-notes.txt', uploader_id: 1 },
  });
  const tampered = body.replace('runtime-notes', 'runtime-notez');
  const signature = await hmacHeader(secret, body);
  await step('verifySignature and signPayload of svc-sdk/webhooks', async () => {
    const verify = {
      good: await webhooks.verifySignature(body, signature, secret),
      goodBytes: await webhooks.verifySignature(new TextEncoder().encode(body), signature, secret),
      rotated: await webhooks.verifySignature(body, signature, ['whsec_old', secret]),
      tampered: await webhooks.verifySignature(tampered, signature, secret),
      wrongSecret: await webhooks.verifySignature(body, signature, 'whsec_other'),
      junk: await webhooks.verifySignature(body, 'sha256=not-hex', secret),
    };
    observed.verify = verify;
    check(verify.good === true, 'verifySignature is true for a good signature');
    check(verify.goodBytes === true, 'verifySignature is true for a good signature over bytes');
    check(verify.rotated === true, 'verifySignature is true when any of several secrets matches');
    check(verify.tampered === false, 'verifySignature is false for a tampered body');
    check(verify.wrongSecret === false, 'verifySignature is false for another secret');
    check(verify.junk === false, 'verifySignature is false (no throw) for a junk header');
    check((await webhooks.signPayload(body, secret)) === signature, 'signPayload matches an independent HMAC-SHA256');
  });

  // The receiver: createWebhookHandler on real Request objects, as an edge function or a page gets them.
  await step('createWebhookHandler on real Requests', async () => {
    const received = [];
    const handler = webhooks.createWebhookHandler({ secret, on: (event) => void received.push(event) });
    const post = (payload, header) =>
      handler(
        new Request('https://receiver.example/webhooks', {
          method: 'POST',
          headers: { 'content-type': 'application/json', 'x-svc-signature': header },
          body: payload,
        }),
      );
    const accepted = await post(body, signature);
    const acceptedBody = await accepted.json();
    check(
      accepted.status === 200 && acceptedBody.received === true,
      `a signed delivery gets 200 { received: true } (got ${accepted.status} ${show(acceptedBody)})`,
    );
    check(received.length === 1 && received[0].event === 'document.uploaded', 'on() got the event once');
    check(received[0].data.document_id === 4242, 'on() got the event data');
    const replayed = await post(body, signature);
    check(replayed.status === 200 && received.length === 1, `a redelivery gets 200 without calling on() again (got ${replayed.status}, ${received.length} calls)`);
    const refused = await post(tampered, signature);
    const refusedBody = await refused.json();
    check(refused.status === 401 && typeof refusedBody.error === 'string', `a tampered delivery gets 401 { error } (got ${refused.status})`);
    check(received.length === 1, 'on() is not called for a tampered delivery');
    const wrongMethod = await handler(new Request('https://receiver.example/webhooks', { method: 'GET' }));
    check(wrongMethod.status === 405, `a GET gets 405 (got ${wrongMethod.status})`);
    observed.handler = { signed: accepted.status, replayed: replayed.status, tampered: refused.status, get: wrongMethod.status };
  });

  if (failures.length) throw new Error(`${failures.length} scenario step(s) failed in ${label}:\n${failures.join('\n')}`);
  return observed;
}

/** An error's stack with its chain of causes (workerd and pages print only what they are given). */
export function explain(error) {
  const lines = [];
  for (let current = error, depth = 0; current !== undefined && depth < 5; current = current?.cause, depth += 1) {
    lines.push(`${depth ? 'caused by: ' : ''}${current?.stack ?? String(current)}`);
  }
  return lines.join('\n');
}

/** `sha256=<hex>` of the body, computed with Web Crypto alone. */
async function hmacHeader(secret, body) {
  const encoder = new TextEncoder();
  const key = await crypto.subtle.importKey('raw', encoder.encode(secret), { name: 'HMAC', hash: 'SHA-256' }, false, ['sign']);
  const mac = new Uint8Array(await crypto.subtle.sign('HMAC', key, encoder.encode(body)));
  return `sha256=${Array.from(mac, (byte) => byte.toString(16).padStart(2, '0')).join('')}`;
}

function check(condition, message) {
  if (!condition) throw new Error(`check failed: ${message}`);
}

function show(value) {
  return JSON.stringify(value)?.slice(0, 200);
}

function indent(text) {
  return text
    .split('\n')
    .slice(0, 12)
    .map((line) => `  ${line}`)
    .join('\n');
}
