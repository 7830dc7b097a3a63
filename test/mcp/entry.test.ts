import { spawnSync } from 'node:child_process';
import { existsSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// The MCP server is a package of its own (packages/mcp, @svc-sdk/mcp), built by npm test before
// vitest runs: no entry of the library loads the MCP SDK, and the package exports the server
// through its ESM and CJS builds.
const root = new URL('../../', import.meta.url);
const built = existsSync(new URL('packages/mcp/dist/index.js', root));

describe.skipIf(!built)('the built @svc-sdk/mcp, beside the library', () => {
  it('importing every entry of svc-sdk loads no @modelcontextprotocol module; @svc-sdk/mcp does, and exports the server', () => {
    const script = `
      const { registerHooks } = await import('node:module');
      const loaded = [];
      registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); loaded.push(result.url); return result; } });
      await import('svc-sdk'); await import('svc-sdk/webhooks'); await import('svc-sdk/testing'); await import('svc-sdk/otel'); await import('svc-sdk/inbox');
      const before = loaded.filter((url) => url.includes('@modelcontextprotocol')).length;
      const mcp = await import('@svc-sdk/mcp');
      const after = loaded.filter((url) => url.includes('@modelcontextprotocol')).length;
      console.log(JSON.stringify({ before, after, exports: Object.keys(mcp).sort() }));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: new URL('.', root), encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const { before, after, exports } = JSON.parse(run.stdout) as { before: number; after: number; exports: string[] };
    expect(before).toBe(0);
    expect(after).toBeGreaterThan(0);
    expect(exports).toEqual(['TOOL_NAMES', 'createMcpHttpHandler', 'createMcpServer', 'listenMcp']);
  });

  it('svc-sdk/mcp is gone from the library: its export map no longer has it', () => {
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', "import('svc-sdk/mcp').then(() => console.log('found'), (error) => console.log(error.code))"], { cwd: new URL('.', root), encoding: 'utf8' });
    expect(run.stdout.trim()).toBe('ERR_PACKAGE_PATH_NOT_EXPORTED');
  });

  it('require("@svc-sdk/mcp") works through the CJS build', () => {
    const run = spawnSync(process.execPath, ['-e', `console.log(typeof require('@svc-sdk/mcp').createMcpServer)`], { cwd: new URL('.', root), encoding: 'utf8' });
    expect(run.stderr).toBe('');
    expect(run.stdout.trim()).toBe('function');
  });
});
