// Serves the packed package's emulator (`svc-sdk/testing`) over HTTP on 127.0.0.1 for the matrix,
// with the same server library its `listen()` uses, plus CORS so that a page on another origin can
// call it (the emulator answers no preflight of its own). Prints one line `{"url": ...}` once
// listening, then runs until it is ended.
import { serve } from '@hono/node-server';
import { createEmulator } from 'svc-sdk/testing';

const emulator = createEmulator();
const CORS = {
  'access-control-allow-origin': '*',
  'access-control-allow-methods': 'GET, POST, PATCH, DELETE, OPTIONS',
  'access-control-allow-headers': 'authorization, content-type, accept, x-svc-sdk-version',
  'access-control-max-age': '600',
};

async function withCors(request) {
  if (request.method === 'OPTIONS') return new Response(null, { status: 204, headers: CORS });
  const response = await emulator.fetch(request);
  const headers = new Headers(response.headers);
  for (const [name, value] of Object.entries(CORS)) headers.set(name, value);
  return new Response(response.body, { status: response.status, statusText: response.statusText, headers });
}

serve({ fetch: withCors, port: 0, hostname: '127.0.0.1' }, (info) => {
  console.log(JSON.stringify({ url: `http://127.0.0.1:${info.port}` }));
});
