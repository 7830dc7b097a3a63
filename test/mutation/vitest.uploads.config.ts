// The mutation run of src/uploads alone (stryker.uploads.config.mjs): the mutation settings
// (vitest.config.ts here) with only test/uploads, whose tests guard that area. A mutant of the
// encoder is reached by most of the suite's 1,700 tests, and each one that survives runs them all:
// at about 20 s a mutant on a shared 2-core machine, the area's 1,900 took hours.
import { narrowedConfig } from './narrowed-config.js';

export default narrowedConfig(['test/uploads/**/*.test.ts'], {
  // Without the kill-and-rerun scenarios too (upload-many-resume: child processes SIGKILLed and SIGTERMed,
  // whose code runs outside the instrumented process): a third of the area's test time, paid by each survivor.
  exclude: ['test/uploads/upload-many-resume.test.ts'],
  // Read by the few tests that only measure scale (a 1,000,000-line manifest): skipped here.
  env: { SVC_MUTATION_RUN: '1' },
});
