import { fork } from 'node:child_process';
import { fileURLToPath } from 'node:url';

/** Starts the loopback server in a child process; resolves with its base URL and a stop function. */
export function startLoopbackServer() {
  const child = fork(fileURLToPath(new URL('./loopback-server.mjs', import.meta.url)), { stdio: 'inherit' });
  return new Promise((resolve, reject) => {
    child.once('error', reject);
    child.once('message', ({ port }) =>
      resolve({ url: `http://127.0.0.1:${port}`, stop: () => child.kill() }),
    );
  });
}
