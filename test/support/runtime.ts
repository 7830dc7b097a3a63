import { onTestFinished } from 'vitest';
import { runtime, type Runtime } from '../../src/shared/runtime.js';

/**
 * Makes the current test run as if in another runtime (a browser page, a worker, workerd): the one
 * place tests stub what `src/shared/runtime.ts` found. Restored when the test finishes.
 */
export function useRuntime(pretend: Partial<Runtime>): void {
  const saved = { ...runtime };
  Object.assign(runtime, pretend);
  onTestFinished(() => {
    Object.assign(runtime, saved);
  });
}
