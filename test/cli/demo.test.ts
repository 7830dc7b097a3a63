import { spawn } from 'node:child_process';
import { existsSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { expect, it } from 'vitest';

const ROOT = fileURLToPath(new URL('../../', import.meta.url));
const built = existsSync(`${ROOT}dist/testing.js`) && existsSync(`${ROOT}dist/index.node.js`);
if (!built) console.warn('[svc-sdk] skipping the demo test: dist/ is missing; run "npm run build" first (npm test does)');

it.skipIf(!built)('examples/typical-flow.mjs runs the typical flow against the emulator and exits 0', async () => {
  // Without SVC_BASE_URL/SVC_API_KEY the demo uses its own emulator, whatever the shell has set.
  const env = { ...process.env, SVC_BASE_URL: '', SVC_API_KEY: '' };
  const child = spawn(process.execPath, ['examples/typical-flow.mjs'], { cwd: ROOT, env, stdio: ['ignore', 'pipe', 'pipe'] });
  let stdout = '';
  let stderr = '';
  child.stdout.on('data', (chunk) => (stdout += chunk));
  child.stderr.on('data', (chunk) => (stderr += chunk));
  const code = await new Promise((resolve) => child.on('close', resolve));
  expect(stderr).toBe('');
  expect(code).toBe(0);
  expect(stdout).toMatch(/✓ received document\.uploaded \(delivery [0-9a-f-]{36}\), signature verified/);
  expect(stdout).toMatch(/✓ cited acme-memo\.txt \(document 1\): ".*customer concentration/);
  expect(stdout).toContain('Done: the typical flow ran end to end.');
});
