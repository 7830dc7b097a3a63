// The mutation run of src/webhooks alone (stryker.webhooks.config.mjs): the mutation settings
// (vitest.config.ts here) with only the tests that guard the webhook receiver: test/webhooks, the
// inbox stage's receivers (test/inbox/receiver.test.ts, test/inbox/bullmq.test.ts) and the
// receiver's telemetry (test/otel). A mutant of the receiver is reached by much of the suite, and
// each one that survives would otherwise run it all on a shared 2-core machine.
import { mergeConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import base from './vitest.config.js';

/**
 * The quickest test files first (vitest's own order is the slowest first, which suits parallel
 * workers): a mutant runs with bail, so the first failing test ends it, and a mutant caught by a
 * quick file no longer waits for the real-Redis and child-process tests.
 */
class QuickestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return (await super.sort(files)).reverse();
  }
}

// Not merged: mergeConfig would add to the base's include rather than replace it.
const config = mergeConfig(base, {});
config.test = {
  ...config.test,
  include: ['test/webhooks/**/*.test.ts', 'test/inbox/receiver.test.ts', 'test/inbox/bullmq.test.ts', 'test/otel/**/*.test.ts'],
  sequence: { ...config.test?.sequence, sequencer: QuickestFirst },
};
export default config;
