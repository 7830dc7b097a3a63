import { spawnSync } from 'node:child_process';
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Zero cost when unused, in the built package (npm test builds it before vitest runs): only the
// chunks of `svc-sdk/otel` mention @opentelemetry, and a Node process that imports every other entry
// loads none of it.
const root = new URL('../../', import.meta.url);

describe('the built svc-sdk/otel is the only entry that loads OpenTelemetry', () => {
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
});
