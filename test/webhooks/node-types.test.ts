// The Node adapter's request and response types against @types/node 22, 24 and the latest (26, what
// `npm i -D @types/node` installs today: its IncomingMessage.on is overloaded through an event map,
// which a structural `on(event: string, ...)` does not accept). Each major is installed in its own
// folder (test/webhooks/node-types/vNN, on demand, like test:deps), and node-types/listener.ts is
// compiled against it with tsc.
import { spawnSync } from 'node:child_process';
import { join } from 'node:path';
import { fileURLToPath } from 'node:url';
import { describe, expect, test } from 'vitest';

const ROOT = fileURLToPath(new URL('../..', import.meta.url));
const TSC = join(ROOT, 'node_modules', 'typescript', 'bin', 'tsc');

describe('toNodeListener takes node:http IncomingMessage and ServerResponse', () => {
  test.each(['22', '24', '26'])('from @types/node %s', (major) => {
    const folder = `test/webhooks/node-types/v${major}`;
    const install = spawnSync(process.execPath, ['scripts/install-deps.mjs', folder], { cwd: ROOT, encoding: 'utf8' });
    expect(install.status, install.stderr).toBe(0);
    const compile = spawnSync(process.execPath, [TSC, '-p', join(folder, 'tsconfig.json')], { cwd: ROOT, encoding: 'utf8' });
    expect(compile.stdout + compile.stderr).toBe('');
    expect(compile.status).toBe(0);
  }, 120_000);
});
