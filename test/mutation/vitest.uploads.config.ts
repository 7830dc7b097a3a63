// The mutation run of src/uploads alone (stryker.uploads.config.mjs): the mutation settings
// (vitest.config.ts here) with only test/uploads, whose tests guard that area. A mutant of the
// encoder is reached by most of the suite's 1,700 tests, and each one that survives runs them all:
// at about 20 s a mutant on a shared 2-core machine, the area's 1,900 took hours.
import { mergeConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import base from './vitest.config.js';

/**
 * The quickest test files first (vitest's own order is the slowest first, which suits parallel
 * workers): a mutant runs with bail, so the first failing test ends it, and a mutant caught by a
 * quick file no longer waits for the child-process and million-line tests.
 */
class QuickestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return (await super.sort(files)).reverse();
  }
}

// Not merged: mergeConfig would add to the base's include rather than replace it.
const config = mergeConfig(base, {});
// Without the kill-and-rerun scenarios too (upload-many-resume: child processes SIGKILLed and SIGTERMed,
// whose code runs outside the instrumented process): a third of the area's test time, paid by each survivor.
config.test = {
  ...config.test,
  include: ['test/uploads/**/*.test.ts'],
  exclude: [...(config.test?.exclude ?? []), 'test/uploads/upload-many-resume.test.ts'],
  sequence: { ...config.test?.sequence, sequencer: QuickestFirst },
  // Read by the few tests that only measure scale (a 1,000,000-line manifest): skipped here.
  env: { ...config.test?.env, SVC_MUTATION_RUN: '1' },
};
export default config;
