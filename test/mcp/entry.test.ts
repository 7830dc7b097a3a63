import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Zero cost when unused, in the built package (npm test builds it first): a Node process that
// imports every other entry loads no @modelcontextprotocol module; svc-sdk/mcp does.
const root = new URL('../../', import.meta.url);
const built = existsSync(new URL('dist/mcp.js', root));

describe.skipIf(!built)('the built svc-sdk/mcp is the only entry that loads the MCP SDK', () => {
  it('importing every other entry loads no @modelcontextprotocol module; svc-sdk/mcp does, and exports createMcpServer', () => {
    const script = `
      const { registerHooks } = await import('node:module');
      const loaded = [];
      registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); loaded.push(result.url); return result; } });
      await import('svc-sdk'); await import('svc-sdk/webhooks'); await import('svc-sdk/testing'); await import('svc-sdk/otel');
      const before = loaded.filter((url) => url.includes('@modelcontextprotocol')).length;
      const mcp = await import('svc-sdk/mcp');
      const after = loaded.filter((url) => url.includes('@modelcontextprotocol')).length;
      console.log(JSON.stringify({ before, after, exports: Object.keys(mcp).sort() }));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: new URL('.', root), encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const { before, after, exports } = JSON.parse(run.stdout) as { before: number; after: number; exports: string[] };
    expect(before).toBe(0);
    expect(after).toBeGreaterThan(0);
    expect(exports).toEqual(['TOOL_NAMES', 'createMcpHttpHandler', 'createMcpServer']);
  });

  it('require("svc-sdk/mcp") works through the CJS build', () => {
    const run = spawnSync(process.execPath, ['-e', `console.log(typeof require('svc-sdk/mcp').createMcpServer)`], { cwd: new URL('.', root), encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('function');
  });
});
