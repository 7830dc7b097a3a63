import { request as httpRequest } from 'node:http';
import { describe, expect, it, onTestFinished } from 'vitest';
import { APITimeoutError, Client, InternalServerError } from '../../src/index.node.js';
import { createEmulator, type EmulatorOptions } from '../../src/testing/index.js';

const API_KEY = 'vdr_faults_test';

async function served(options: EmulatorOptions = {}) {
  const emulator = createEmulator(options);
  const server = await emulator.listen();
  onTestFinished(() => emulator.close());
  return { emulator, server, client: new Client({ apiKey: API_KEY, baseUrl: server.url, maxRetries: 0 }) };
}

const room = { name: 'Faults', room_type: 'company_investment' };

/** POSTs `bytes` bytes of JSON-ish body on a socket of its own; resolves with the status or the socket's error code. */
function post(url: string, bytes: number): Promise<{ status?: number; code?: string; body?: string }> {
  return new Promise((resolve) => {
    const request = httpRequest(`${url}/api/v1/rooms`, {
      method: 'POST',
      headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json', 'content-length': String(bytes) },
    });
    request.on('response', (response) => {
      let body = '';
      response.on('data', (chunk: Buffer) => (body += chunk));
      response.on('end', () => resolve({ status: response.statusCode!, body }));
    });
    request.on('error', (error: NodeJS.ErrnoException) => resolve({ code: error.code! }));
    const base = JSON.stringify({ ...room, pad: '' }).length;
    request.end(JSON.stringify({ ...room, pad: 'x'.repeat(bytes - base) }));
  });
}

describe('emulator faults', () => {
  it('unavailableRate answers that share of requests 503, evenly: 0.25 is the 4th and the 8th, which store nothing', async () => {
    const { client } = await served({ faults: { unavailableRate: 0.25 } });
    const outcomes: Array<number | string> = [];
    for (let index = 0; index < 8; index++) {
      try {
        outcomes.push((await client.rooms.create(room)).id);
      } catch (error) {
        expect(error).toBeInstanceOf(InternalServerError);
        expect((error as InternalServerError).status).toBe(503);
        expect((error as InternalServerError).body).toEqual({ error: "service unavailable: the emulator's unavailableRate fault answered this request" });
        outcomes.push('503');
      }
    }
    expect(outcomes).toEqual([1, 2, 3, '503', 4, 5, 6, '503']);
  });

  it("a fault's 503 carries an x-request-id like every answer, over HTTP and in process", async () => {
    const { server, emulator } = await served({ faults: { unavailableRate: 1 } });
    const headers = { authorization: `Bearer ${API_KEY}` };
    const overHttp = await fetch(`${server.url}/api/v1/rooms`, { headers });
    expect(overHttp.status).toBe(503);
    expect(overHttp.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
    const inProcess = await emulator.fetch('http://emulator.test/api/v1/rooms', { headers });
    expect(inProcess.status).toBe(503);
    expect(inProcess.headers.get('x-request-id')).toMatch(/^req_[0-9a-f]{32}$/);
  });

  it('unavailableRate 1 answers every request 503, 0 none; a change to emulator.faults applies to the next request', async () => {
    const { client, emulator } = await served({ faults: { unavailableRate: 1 } });
    await expect(client.rooms.create(room)).rejects.toThrow(InternalServerError);
    emulator.faults.unavailableRate = 0;
    await expect(client.rooms.create(room)).resolves.toMatchObject({ id: 1 });
  });

  it('latencyMs holds every answer back: a client timeout shorter than it fails, and the request was handled', async () => {
    const { emulator, server } = await served({ faults: { latencyMs: 2_000 } });
    const impatient = new Client({ apiKey: API_KEY, baseUrl: server.url, maxRetries: 0, timeout: 300 });
    await expect(impatient.rooms.create(room)).rejects.toThrow(APITimeoutError);
    emulator.faults.latencyMs = 0;
    // The first room was stored: the delay comes after the handler.
    await expect(impatient.rooms.create(room)).resolves.toMatchObject({ id: 2 });
  });

  it('resetAfterBytes resets the connection once that many body bytes arrived; a shorter body is answered; nothing is stored by a reset request', async () => {
    const { emulator, server, client } = await served({ faults: { resetAfterBytes: 10_000 } });
    expect(await post(server.url, 50_000)).toEqual({ code: 'ECONNRESET' });
    const answered = await post(server.url, 9_999);
    expect(answered.status).toBe(201);
    expect(JSON.parse(answered.body!)).toMatchObject({ success: true, data: { id: 1 } });
    expect(await post(server.url, 10_000)).toEqual({ code: 'ECONNRESET' });
    emulator.faults.resetAfterBytes = undefined;
    await expect(client.rooms.create(room)).resolves.toMatchObject({ id: 2 });
  });

  it('resetAfterBytes through emulator.fetch (no socket) rejects like a reset fetch, and stores nothing', async () => {
    const emulator = createEmulator({ faults: { resetAfterBytes: 100 } });
    onTestFinished(() => emulator.close());
    const send = (name: string) =>
      emulator.fetch('https://svc.test/api/v1/rooms', {
        method: 'POST',
        headers: { authorization: `Bearer ${API_KEY}`, 'content-type': 'application/json' },
        body: JSON.stringify({ ...room, name }),
      });
    const error = await send('x'.repeat(200)).catch((caught: unknown) => caught);
    expect(error).toBeInstanceOf(TypeError);
    expect((error as TypeError).message).toBe('fetch failed');
    expect(((error as TypeError).cause as NodeJS.ErrnoException).code).toBe('ECONNRESET');
    const response = await send('short');
    expect(response.status).toBe(201);
    expect(((await response.json()) as { data: { id: number } }).data.id).toBe(1);
  });

  it.each([
    [{ latencyMs: -1 }, '[svc-sdk] emulator faults: latencyMs must be a number of milliseconds from 0 to 600000, or undefined for none'],
    [{ latencyMs: Number.NaN }, '[svc-sdk] emulator faults: latencyMs must be a number of milliseconds from 0 to 600000, or undefined for none'],
    [{ latencyMs: 600_001 }, '[svc-sdk] emulator faults: latencyMs must be a number of milliseconds from 0 to 600000, or undefined for none'],
    [{ unavailableRate: 1.01 }, '[svc-sdk] emulator faults: unavailableRate must be a share of requests from 0 to 1, or undefined for none'],
    [{ unavailableRate: -0.1 }, '[svc-sdk] emulator faults: unavailableRate must be a share of requests from 0 to 1, or undefined for none'],
    [{ resetAfterBytes: 0 }, '[svc-sdk] emulator faults: resetAfterBytes must be a whole number of bytes, 1 or more, or undefined for none'],
    [{ resetAfterBytes: 1.5 }, '[svc-sdk] emulator faults: resetAfterBytes must be a whole number of bytes, 1 or more, or undefined for none'],
    [{ latency: 20 }, '[svc-sdk] createEmulator: unknown fault "latency": use latencyMs, unavailableRate, resetAfterBytes, rateLimitPerSecond, deliveryJitterMs or duplicateRate'],
  ])('createEmulator({ faults: %j }) throws, naming the fault and its range', (faults, message) => {
    expect(() => createEmulator({ faults: faults as never })).toThrow(new TypeError(message));
  });

  it('a bad value set on emulator.faults throws and leaves the fault as it was', () => {
    const emulator = createEmulator({ faults: { unavailableRate: 0.5 } });
    expect(() => {
      emulator.faults.unavailableRate = 2;
    }).toThrow('[svc-sdk] emulator faults: unavailableRate must be a share of requests from 0 to 1, or undefined for none');
    expect(emulator.faults).toEqual({ latencyMs: undefined, unavailableRate: 0.5, resetAfterBytes: undefined });
  });
});
