import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';

// Zero cost when unused: only `svc-sdk/otel` loads @opentelemetry/api, an optional peer. Checked here
// in the sources and package.json; test/build/otel-entry.test.ts checks the built package.
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

  it('package.json: the ./otel export, and @opentelemetry/api an optional peer', () => {
    expect(pkg.exports['./otel']).toEqual({
      import: { types: './dist/otel.d.ts', default: './dist/otel.js' },
      require: { types: './dist/otel.d.cts', default: './dist/otel.cjs' },
    });
    expect(pkg.peerDependencies['@opentelemetry/api']).toBe('^1.3.0');
    expect(pkg.peerDependenciesMeta['@opentelemetry/api']).toEqual({ optional: true });
  });
});
