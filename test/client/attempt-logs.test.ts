import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { Client, type Logger } from '../../src/index.node.js';
import { API_KEY, BASE_URL, useMockService } from '../support/msw.js';

// What the debug and info lines say about an attempt that failed (how long it took, which attempt it
// was, why it is retried): edges of the core that mutation testing found unguarded.

const server = useMockService();

/** A logger that keeps every line: level, message and details. */
function recorder() {
  const lines: Array<{ level: keyof Logger; message: string; details: Record<string, unknown> }> = [];
  const record = (level: keyof Logger) => (message: string, details?: unknown) => void lines.push({ level, message, details: (details ?? {}) as Record<string, unknown> });
  const logger: Logger = { debug: record('debug'), info: record('info'), warn: record('warn'), error: record('error') };
  return { logger, lines };
}

describe('debug and info lines of a failed attempt', () => {
  it('a failed connection: debug says how long the attempt took and which it was, info says why it is retried', async () => {
    const { logger, lines } = recorder();
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, () => HttpResponse.error()));
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 1, logLevel: 'debug', logger });
    const before = performance.now();
    await expect(client.transactions.list({ deal_id: 1 })).rejects.toThrow();
    const elapsed = performance.now() - before;
    const url = `${BASE_URL}/api/v1/svc/transactions?deal_id=1`;
    const failed = lines.filter((line) => line.level === 'debug');
    expect(failed.map((line) => line.details.attempt)).toEqual([1, 2]);
    for (const line of failed) {
      expect(line.message).toMatch(new RegExp(`^\\[svc-sdk\\] GET ${url.replace(/[?.]/g, '\\$&')} failed in \\d+ ms \\(attempt \\d\\): .+`));
      expect(line.details).toMatchObject({ method: 'GET', url, error: expect.any(String) });
      const duration = line.details.durationMs as number;
      expect(duration).toBeGreaterThanOrEqual(0);
      expect(duration).toBeLessThanOrEqual(Math.ceil(elapsed));
    }
    const retry = lines.find((line) => line.level === 'info')!;
    expect(retry.message).toMatch(new RegExp(`^\\[svc-sdk\\] GET ${url.replace(/[?.]/g, '\\$&')}: attempt 2, because the connection failed \\(.+\\)$`));
    expect(retry.details).toMatchObject({ method: 'GET', url, attempt: 2, reason: expect.stringMatching(/^the connection failed \(.+\)$/) });
  });

  it('an attempt that timed out is retried "because it timed out"', async () => {
    const { logger, lines } = recorder();
    let calls = 0;
    server.use(
      http.get(`${BASE_URL}/api/v1/svc/transactions`, async () => {
        if (++calls === 1) await new Promise((resolve) => setTimeout(resolve, 1_000));
        return HttpResponse.json({ success: true, data: [] });
      }),
    );
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 1, timeout: 200, logLevel: 'info', logger });
    expect(await client.transactions.list({ deal_id: 1 })).toEqual([]);
    expect(lines).toEqual([
      {
        level: 'info',
        message: `[svc-sdk] GET ${BASE_URL}/api/v1/svc/transactions?deal_id=1: attempt 2, because it timed out`,
        details: { method: 'GET', url: `${BASE_URL}/api/v1/svc/transactions?deal_id=1`, attempt: 2, reason: 'it timed out' },
      },
    ]);
  });

  it('a successful attempt\'s duration is no longer than the call took', async () => {
    const { logger, lines } = recorder();
    server.use(http.get(`${BASE_URL}/api/v1/svc/transactions`, () => HttpResponse.json({ success: true, data: [] })));
    const client = new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0, logLevel: 'debug', logger });
    const before = performance.now();
    await client.transactions.list({ deal_id: 1 });
    const elapsed = performance.now() - before;
    expect(lines).toHaveLength(1);
    const duration = lines[0]!.details.durationMs as number;
    expect(duration).toBeGreaterThanOrEqual(0);
    expect(duration).toBeLessThanOrEqual(Math.ceil(elapsed));
  });
});
