// The tests that run the built package in child processes (cross-process, the scenario) need dist/.
import { existsSync } from 'node:fs';

export const built = existsSync(new URL('../../dist/actions.js', import.meta.url));
if (!built) console.warn('[svc-sdk] skipping the cross-process actions tests: dist/actions.js is missing; run "npm run build" first (npm test does)');
