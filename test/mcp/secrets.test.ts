import { readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it, vi } from 'vitest';
import { API_KEY, connected, structured, text } from './support.js';

/** Every value a model could read: each result in full, and every line written to the console. */
function transcript() {
  const results: unknown[] = [];
  const logged: string[] = [];
  for (const method of ['log', 'info', 'warn', 'error', 'debug'] as const) {
    vi.spyOn(console, method).mockImplementation((...args: unknown[]) => void logged.push(args.map(String).join(' ')));
  }
  const stderr = vi.spyOn(process.stderr, 'write').mockImplementation((chunk: string | Uint8Array) => (logged.push(String(chunk)), true));
  return { results, logged, restore: () => (vi.restoreAllMocks(), stderr.mockRestore()) };
}

describe('secrets never reach the model', () => {
  it('webhook_create writes the one-time secret to a 0600 file and returns its path; rotation the same; no result, log or error carries a secret or the key', async () => {
    const seen = transcript();
    const t = await connected({ allowWrites: true, allowDestructive: true, redact: [API_KEY] });
    const call = async (name: string, args: Record<string, unknown>) => {
      const result = await t.mcp.callTool({ name, arguments: args });
      seen.results.push(result);
      return result;
    };
    const commit = async (name: string, args: Record<string, unknown>) => call(name, { ...args, commit_token: structured(await call(name, args))?.commit_token ?? 'none' });

    const created = await commit('webhook_create', { url: 'http://127.0.0.1:9/hook', name: 'uploads', event_types: ['document.uploaded'] });
    const { webhook, secret_file } = structured(created).result;
    expect(secret_file.startsWith(join(t.stateDir, 'webhook-secrets'))).toBe(true);
    expect(statSync(secret_file).mode & 0o777).toBe(0o600);
    expect(statSync(join(t.stateDir, 'webhook-secrets')).mode & 0o777).toBe(0o700);
    const secret = readFileSync(secret_file, 'utf8').trim();
    expect(secret).toMatch(/^whsec_[0-9a-f]{64}$/);
    expect(text(created)).toContain(secret_file);

    const rotated = await commit('webhook_rotate_secret', { webhook_id: webhook.id });
    const rotatedSecret = readFileSync(structured(rotated).result.secret_file, 'utf8').trim();
    expect(rotatedSecret).not.toBe(secret);
    expect(statSync(structured(rotated).result.secret_file).mode & 0o777).toBe(0o600);

    await call('webhook_list', {});
    await commit('webhook_ping', { webhook_id: webhook.id });
    // Errors too: an unknown endpoint, a receiver the service refuses, a bad argument.
    await call('webhook_ping', { webhook_id: 999 });
    await commit('webhook_create', { url: 'http://example.com/not-loopback', name: 'x', event_types: [] });
    await call('webhook_delete', { webhook_id: -1 }).catch((error: Error) => seen.results.push(error.message));
    await commit('webhook_delete', { webhook_id: webhook.id });

    seen.restore();
    const everything = JSON.stringify(seen.results) + seen.logged.join('\n');
    for (const value of [secret, rotatedSecret, API_KEY]) expect(everything).not.toContain(value);
    expect(everything).not.toMatch(/whsec_[0-9a-f]{8}/);
    expect(seen.results.filter((result) => (result as { isError?: boolean }).isError).length).toBeGreaterThanOrEqual(2);
    expect(readdirSync(join(t.stateDir, 'webhook-secrets'))).toHaveLength(2);
    await t.close();
  });

  it('an error quoting the API key, a secret or a value given to redact comes out redacted', async () => {
    const t = await connected({ redact: [API_KEY, 'proxy-token-7f3a9c'] });
    // A service answering with the caller's key and a secret in its error body (as a misbehaving proxy might).
    t.client.webhooks.list = (() => Promise.reject(new Error(`upstream said: bad key ${API_KEY}, whsec_${'ab'.repeat(32)}, proxy-token-7f3a9c`))) as never;
    const result = await t.mcp.callTool({ name: 'webhook_list', arguments: {} });
    expect(result.isError).toBe(true);
    expect(text(result)).toContain('[redacted]');
    expect(text(result)).not.toContain(API_KEY);
    expect(text(result)).not.toContain('ab'.repeat(32));
    expect(text(result)).not.toContain('proxy-token-7f3a9c');
    await t.close();
  });
});
