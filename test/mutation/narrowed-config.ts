// The mutation settings (vitest.config.ts here) narrowed to the tests of one area, for the runs of
// one area alone (vitest.uploads.config.ts, vitest.webhooks.config.ts): a mutant reached by much of
// the suite would otherwise, each time it survives, run it all on a shared 2-core machine.
import type { ViteUserConfig } from 'vitest/config';
import { mergeConfig } from 'vitest/config';
import { BaseSequencer, type TestSpecification } from 'vitest/node';
import base from './vitest.config.js';

/**
 * The quickest test files first (vitest's own order is the slowest first, which suits parallel
 * workers): a mutant runs with bail, so the first failing test ends it, and a mutant caught by a
 * quick file no longer waits for the child-process and real-Redis tests.
 */
class QuickestFirst extends BaseSequencer {
  override async sort(files: TestSpecification[]): Promise<TestSpecification[]> {
    return (await super.sort(files)).reverse();
  }
}

/** The mutation settings with only `include` (minus `exclude`) run, quickest first, and `env` added. */
export function narrowedConfig(include: string[], { exclude = [], env = {} }: { exclude?: string[]; env?: Record<string, string> } = {}): ViteUserConfig {
  // Not merged: mergeConfig would add to the base's include rather than replace it.
  const config = mergeConfig(base, {});
  config.test = {
    ...config.test,
    include,
    exclude: [...(config.test?.exclude ?? []), ...exclude],
    sequence: { ...config.test?.sequence, sequencer: QuickestFirst },
    env: { ...config.test?.env, ...env },
  };
  return config;
}
