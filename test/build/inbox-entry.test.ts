import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Zero cost when unused, in the built package (npm test builds it before vitest runs): only the
// node build of `svc-sdk/inbox` mentions bullmq; its build for other runtimes (Workers) does not;
// a Node process that imports every other entry loads none of it.
const root = new URL('../../', import.meta.url);

describe('the built svc-sdk/inbox is the only entry that loads BullMQ', () => {
  it('no built chunk but inbox.node.* mentions bullmq', () => {
    const built = readdirSync(new URL('dist/', root)).filter((name) => /\.(c?js)$/.test(name));
    expect(built).toEqual(expect.arrayContaining(['inbox.js', 'inbox.node.js']));
    const mentioning = built.filter((name) => /["']bullmq["']/.test(readFileSync(new URL(`dist/${name}`, root), 'utf8')));
    expect(mentioning.sort()).toEqual(['inbox.node.cjs', 'inbox.node.js']);
  });

  it('importing every other entry loads no bullmq module; svc-sdk/inbox under node does', () => {
    const script = `
      const { registerHooks } = await import('node:module');
      const loaded = [];
      registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); loaded.push(result.url); return result; } });
      await import('svc-sdk'); await import('svc-sdk/webhooks'); await import('svc-sdk/testing'); await import('svc-sdk/otel');
      const before = loaded.filter((url) => url.includes('/bullmq/')).length;
      const inbox = await import('svc-sdk/inbox');
      const after = loaded.filter((url) => url.includes('/bullmq/')).length;
      console.log(JSON.stringify({ before, after, exports: Object.keys(inbox).sort() }));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: new URL('.', root), encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const { before, after, exports } = JSON.parse(run.stdout) as { before: number; after: number; exports: string[] };
    expect(before).toBe(0);
    expect(after).toBeGreaterThan(0);
    expect(exports).toEqual(['bullmqInbox', 'cloudflareQueueInbox', 'processQueueBatch']);
  });

  it('the build for other runtimes has the Cloudflare inbox, and a bullmqInbox that says it needs Node', async () => {
    const edge = (await import(new URL('dist/inbox.js', root).href)) as typeof import('../../src/inbox/edge.js');
    expect(Object.keys(edge).sort()).toEqual(['bullmqInbox', 'cloudflareQueueInbox', 'processQueueBatch']);
    expect(() => edge.bullmqInbox({ connection: {} })).toThrow(/bullmqInbox needs Node, Bun or Deno.*cloudflareQueueInbox/);
  });
});
