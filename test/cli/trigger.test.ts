// `svc-sdk trigger` run in process (test/cli/support.ts) against loopback servers that record what
// they got: the requests on the wire, the lines printed, the exit codes. With an emulator: trigger-emulator.test.ts.
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterEach, describe, expect, it } from 'vitest';
import { sampleEventData } from '../../src/internal.js';
import { closedPort, run } from './support.js';

interface Got {
  method: string | undefined;
  path: string | undefined;
  headers: IncomingHttpHeaders;
  body: string;
}

const servers: Array<() => Promise<void>> = [];
afterEach(async () => {
  for (const close of servers.splice(0)) await close();
});

/** A loopback server answering `answer` and recording each request. */
async function server(answer: (response: ServerResponse) => void) {
  const got: Got[] = [];
  const http = createServer(async (request, response) => {
    let body = '';
    for await (const chunk of request) body += chunk;
    got.push({ method: request.method, path: request.url, headers: request.headers, body });
    answer(response);
  });
  await new Promise<void>((resolve) => http.listen(0, '127.0.0.1', resolve));
  servers.push(
    () =>
      new Promise((resolve) => {
        http.closeAllConnections();
        http.close(() => resolve());
      }),
  );
  return { base: `http://127.0.0.1:${(http.address() as AddressInfo).port}`, got };
}

const json = (status: number, value: unknown) => (response: ServerResponse) =>
  response.writeHead(status, { 'content-type': 'application/json' }).end(JSON.stringify(value));
const FIX = 'To fix: start one (npx svc-sdk emulator) and set SVC_BASE_URL to the URL it prints, or pass --url <receiver> to send straight to a receiver';

describe('svc-sdk trigger <kind> through an emulator', () => {
  it('POSTs the kind and data to the emulator\'s control route with SVC_API_KEY, and lists the deliveries it answers', async () => {
    const deliveries = [
      { webhook_id: 3, delivery_id: 'd-1' },
      { webhook_id: 5, delivery_id: 'd-2' },
    ];
    const emulator = await server(json(202, { data: { deliveries } }));
    const result = await run(['trigger', 'credit.low', '--data', '{"balance":7}'], { SVC_BASE_URL: `${emulator.base}/`, SVC_API_KEY: 'vdr_mine' });
    expect(result).toEqual({
      code: 0,
      stdout: `credit.low → 2 webhooks of the emulator at ${emulator.base}:\n  webhook 3: delivery d-1\n  webhook 5: delivery d-2\n`,
      stderr: '',
    });
    const [request] = emulator.got;
    expect(request).toMatchObject({ method: 'POST', path: '/api/v1/_emulator/events' });
    expect(request!.headers).toMatchObject({ authorization: 'Bearer vdr_mine', 'content-type': 'application/json', 'user-agent': 'svc-sdk-cli' });
    expect(JSON.parse(request!.body)).toEqual({ event: 'credit.low', data: { balance: 7 } });
  });

  it('--emulator wins over SVC_BASE_URL, and without SVC_API_KEY a key of its own is sent', async () => {
    const emulator = await server(json(202, { data: { deliveries: [{ webhook_id: 1, delivery_id: 'd' }] } }));
    const port = await closedPort();
    const result = await run(['trigger', 'ping.test', '--emulator', emulator.base], { SVC_BASE_URL: `http://127.0.0.1:${port}` });
    expect(result).toEqual({ code: 0, stdout: `ping.test → 1 webhook of the emulator at ${emulator.base}:\n  webhook 1: delivery d\n`, stderr: '' });
    expect(emulator.got[0]!.headers.authorization).toBe('Bearer vdr_svc_sdk_cli');
    expect(JSON.parse(emulator.got[0]!.body)).toEqual({ event: 'ping.test', data: sampleEventData('ping.test') });
  });

  it.each([
    ['202 without JSON', (response: ServerResponse) => response.writeHead(202).end('accepted'), '202 Accepted'],
    ['202 without deliveries', json(202, { data: {} }), '202 Accepted'],
    ['200 with deliveries', json(200, { data: { deliveries: [] } }), '200 OK'],
    ['500', json(500, { error: 'boom' }), '500 Internal Server Error'],
  ])('exits 1 naming the fix when the server answers %s', async (_, answer, status) => {
    const other = await server(answer);
    const result = await run(['trigger', 'ping.test', '--emulator', other.base]);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `[svc-sdk] ${other.base} (--emulator) is not an svc-sdk emulator: POST /api/v1/_emulator/events answered ${status}. ${FIX}\n`,
    });
  });

  it('exits 1 naming SVC_API_KEY when the emulator answers 401', async () => {
    const strict = await server(json(401, { error: 'unauthorized' }));
    const result = await run(['trigger', 'ping.test'], { SVC_BASE_URL: strict.base, SVC_API_KEY: 'vdr_wrong' });
    expect(result).toEqual({ code: 1, stdout: '', stderr: `[svc-sdk] the emulator at ${strict.base} refused the API key: set SVC_API_KEY to the key it accepts (svc-sdk emulator prints it)\n` });
  });

  it('exits 1 within --timeout-ms when the emulator never answers', async () => {
    const silent = await server(() => undefined);
    const result = await run(['trigger', 'ping.test', '--emulator', silent.base, '--timeout-ms', '200']);
    expect(result).toEqual({
      code: 1,
      stdout: '',
      stderr: `[svc-sdk] no emulator answers at ${silent.base} (--emulator): could not reach ${silent.base}/api/v1/_emulator/events: timed out: no answer within 200 ms. ${FIX}\n`,
    });
  });

  it('names SVC_BASE_URL when its value is not a URL, and --emulator when that is not', async () => {
    expect(await run(['trigger', 'ping.test'], { SVC_BASE_URL: 'localhost:4010' })).toEqual({
      code: 2,
      stdout: '',
      stderr: '[svc-sdk] SVC_BASE_URL "localhost:4010" has no scheme: write it with http:// or https://, such as http://localhost:4010\n',
    });
    expect((await run(['trigger', 'ping.test', '--emulator', 'ftp://h/'])).stderr).toBe(
      '[svc-sdk] --emulator "ftp://h/" must be an http:// or https:// URL, not ftp://, such as http://127.0.0.1:4010\n',
    );
  });

  it('without --emulator or SVC_BASE_URL, tries http://127.0.0.1:4010 and says it is the default', async (context) => {
    const probe = await fetch('http://127.0.0.1:4010/').then(
      () => true,
      () => false,
    );
    if (probe) context.skip(); // something of another suite listens there
    const result = await run(['trigger', 'ping.test']);
    expect(result.code).toBe(1);
    expect(result.stderr).toMatch(/^\[svc-sdk\] no emulator answers at http:\/\/127\.0\.0\.1:4010 \(the default\): could not reach http:\/\/127\.0\.0\.1:4010\/api\/v1\/_emulator\/events: connection refused/);
  });
});

describe('svc-sdk trigger <kind> --url', () => {
  it('sends the signed event as JSON with its user agent, and prints the status alone when the answer is empty', async () => {
    const receiver = await server((response) => response.writeHead(202).end());
    const result = await run(['trigger', 'ping.test', '--url', `${receiver.base}/hook`], { SVC_WEBHOOK_SECRET: 'whsec_x' });
    expect(result).toEqual({ code: 0, stdout: `ping.test → ${receiver.base}/hook: 202 Accepted\n`, stderr: '' });
    expect(receiver.got[0]).toMatchObject({ method: 'POST', path: '/hook' });
    expect(receiver.got[0]!.headers).toMatchObject({ 'content-type': 'application/json', 'user-agent': 'svc-sdk-cli' });
    expect(receiver.got[0]!.headers['x-svc-signature']).toMatch(/^sha256=[0-9a-f]{64}$/);
  });

  it('does not follow a redirect: prints it and exits 1', async () => {
    const target = await server((response) => response.writeHead(200).end());
    const redirecting = await server((response) => response.writeHead(307, { location: `${target.base}/` }).end());
    const result = await run(['trigger', 'ping.test', '--url', `${redirecting.base}/`], { SVC_WEBHOOK_SECRET: 'whsec_x' });
    expect(result).toEqual({ code: 1, stdout: `ping.test → ${redirecting.base}/: 307 Temporary Redirect\n`, stderr: '' });
    expect(target.got).toEqual([]);
  });

  it.each([
    [['ping.test', '--bogus'], "Unknown option '--bogus' (svc-sdk trigger --help)"],
    [['ping.test', 'a', 'b'], 'trigger takes one event kind, got also: a b'],
    [['ping.test', '--url', 'ftp://h/'], '--url "ftp://h/" must be an http:// or https:// URL, not ftp://, such as http://127.0.0.1:3000/webhooks'],
  ])('%j exits 2: %s', async (args, message) => {
    expect(await run(['trigger', ...args], { SVC_WEBHOOK_SECRET: 's' })).toEqual({ code: 2, stdout: '', stderr: `[svc-sdk] ${message}\n` });
  });

  it.each(['{', 'null', '"text"', '7'])('--data %s is refused: not a JSON object', async (data) => {
    expect(await run(['trigger', 'ping.test', '--url', 'http://127.0.0.1:1/', '--secret', 's', '--data', data])).toEqual({
      code: 2,
      stdout: '',
      stderr: '[svc-sdk] --data must be a JSON object, such as \'{"balance":90}\'\n',
    });
  });
});
