// The mutation run of src/inbox alone (`npm run test:mutation -- --mutate 'src/inbox/**/*.ts'
// --vitest.configFile test/mutation/vitest.inbox.config.ts`): the mutation settings (vitest.config.ts
// here) with only the tests that run the inbox's source: its workers, operations and receivers on a
// real redis-server, and the Cloudflare consumer. The crash and no-loss scenarios run the built
// package in child processes, which no mutant of src reaches.
import { narrowedConfig } from './narrowed-config.js';

export default narrowedConfig(['test/inbox/**/*.test.ts'], { exclude: ['test/inbox/no-loss.test.ts', 'test/inbox/crash.test.ts'] });
