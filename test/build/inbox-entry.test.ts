import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Zero cost when unused, in the built package (npm test builds it before vitest runs): only the
// node build of `svc-sdk/inbox` mentions bullmq; its build for other runtimes (Workers) does not;
// a Node process that imports every other entry loads none of it.
const root = new URL('../../', import.meta.url);

describe('the built svc-sdk/inbox is the only entry that loads BullMQ', () => {
  it('of the built entries, only inbox.node reaches bullmq by static imports; the CLI loads svc-sdk/inbox by a lazy import() in its inbox command', () => {
    const dist = new URL('dist/', root);
    const files = readdirSync(dist).filter((name) => /\.(c?js)$/.test(name));
    const text = new Map(files.map((name) => [name, readFileSync(new URL(name, dist), 'utf8')]));
    /** The chunks a file imports statically (ESM `import … from`, `import '…'`; CJS `require(…)`), not by `import()`. */
    const staticImports = (name: string) =>
      [...(text.get(name) ?? '').matchAll(/(?:\bfrom\s*|^import\s*|\brequire\()["']\.\/([^"']+)["']/gm)].map((match) => match[1] as string);
    const reachesBullmq = (name: string, seen = new Set<string>()): boolean => {
      if (seen.has(name)) return false;
      seen.add(name);
      if (/(?:from\s*|require\()["']bullmq["']/.test(text.get(name) ?? '')) return true;
      return staticImports(name).some((chunk) => reachesBullmq(chunk, seen));
    };
    const entries = files.filter((name) => !/^(chunk|bullmq)-/.test(name));
    expect(entries).toEqual(expect.arrayContaining(['inbox.js', 'inbox.node.js', 'internal.js', 'index.js']));
    expect(entries.filter((name) => reachesBullmq(name)).sort()).toEqual(['inbox.node.cjs', 'inbox.node.js']);
    // @svc-sdk/cli's bin: svc-sdk/inbox (and so bullmq) only by import(), for `svc-sdk inbox` alone.
    const cli = readFileSync(new URL('packages/cli/dist/cli.js', root), 'utf8');
    expect(cli).toMatch(/import\(["']svc-sdk\/inbox["']\)/);
    expect(cli).not.toMatch(/(?:from\s*|^import\s*)["'](?:svc-sdk\/inbox|bullmq)["']/m);
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
    expect(exports).toEqual(['bullmqInbox', 'cloudflareQueueInbox', 'createInboxDashboard', 'processQueueBatch', 'serveInboxDashboard']);
  });

  it('the build for other runtimes has the Cloudflare inbox, and a bullmqInbox that says it needs Node', async () => {
    const edge = (await import(new URL('dist/inbox.js', root).href)) as typeof import('../../src/inbox/edge.js');
    expect(Object.keys(edge).sort()).toEqual(['bullmqInbox', 'cloudflareQueueInbox', 'createInboxDashboard', 'processQueueBatch', 'serveInboxDashboard']);
    expect(() => edge.bullmqInbox({ connection: {} })).toThrow(/bullmqInbox needs Node, Bun or Deno.*cloudflareQueueInbox/);
    // The same names as under Node, so code type-checked for a bundler compiles; the dashboard itself needs Node.
    await expect(edge.createInboxDashboard({} as never, { framework: 'hono', credential: 'x'.repeat(32) })).rejects.toThrow(/createInboxDashboard needs Node/);
    await expect(edge.serveInboxDashboard({} as never, { credential: 'x'.repeat(32) })).rejects.toThrow(/serveInboxDashboard needs Node/);
  });
});
