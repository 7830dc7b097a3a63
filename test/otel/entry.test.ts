import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Zero cost when unused: only `svc-sdk/otel` loads @opentelemetry/api, an optional peer. Checked in
// the sources, in the built package (npm test builds it before vitest runs), and in a Node process
// that imports every other entry.
const root = new URL('../../', import.meta.url);
const pkg = JSON.parse(readFileSync(new URL('package.json', root), 'utf8')) as {
  exports: Record<string, unknown>;
  peerDependencies: Record<string, string>;
  peerDependenciesMeta: Record<string, { optional?: boolean }>;
};

function filesUnder(directory: URL): string[] {
  return readdirSync(directory, { recursive: true, withFileTypes: true })
    .filter((entry) => entry.isFile())
    .map((entry) => `${entry.parentPath.replace(/\/?$/, '/')}${entry.name}`);
}

describe('svc-sdk/otel is the only entry that loads OpenTelemetry', () => {
  it('no source outside src/otel imports @opentelemetry', () => {
    const importers = filesUnder(new URL('src/', root)).filter((file) => !file.includes('/src/otel/') && readFileSync(file, 'utf8').includes('@opentelemetry'));
    expect(importers).toEqual([]);
  });

  it('no built chunk but otel.* mentions @opentelemetry', () => {
    const built = readdirSync(new URL('dist/', root)).filter((name) => /\.(c?js)$/.test(name));
    expect(built).toContain('otel.js');
    const mentioning = built.filter((name) => readFileSync(new URL(`dist/${name}`, root), 'utf8').includes('@opentelemetry'));
    expect(mentioning.sort()).toEqual(['otel.cjs', 'otel.js']);
  });

  it('importing every other entry loads no @opentelemetry module', () => {
    const script = `
      const { registerHooks } = await import('node:module');
      const loaded = [];
      registerHooks({ resolve(specifier, context, next) { const result = next(specifier, context); loaded.push(result.url); return result; } });
      await import('svc-sdk'); await import('svc-sdk/webhooks'); await import('svc-sdk/testing');
      const before = loaded.filter((url) => url.includes('@opentelemetry')).length;
      await import('svc-sdk/otel');
      const after = loaded.filter((url) => url.includes('@opentelemetry')).length;
      console.log(JSON.stringify({ before, after }));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: new URL('.', root), encoding: 'utf8' });
    expect(run.stderr).toBe('');
    const { before, after } = JSON.parse(run.stdout) as { before: number; after: number };
    expect(before).toBe(0);
    // The hook sees modules load: svc-sdk/otel does load the API.
    expect(after).toBeGreaterThan(0);
  });

  it('package.json: the ./otel export, and @opentelemetry/api an optional peer', () => {
    expect(pkg.exports['./otel']).toEqual({
      import: { types: './dist/otel.d.ts', default: './dist/otel.js' },
      require: { types: './dist/otel.d.cts', default: './dist/otel.cjs' },
    });
    expect(pkg.peerDependencies['@opentelemetry/api']).toBe('^1.3.0');
    expect(pkg.peerDependenciesMeta['@opentelemetry/api']).toEqual({ optional: true });
  });
});
