// The mutation run of src/inbox alone (`npm run test:mutation -- --mutate 'src/inbox/**/*.ts'
// --vitest.configFile test/mutation/vitest.inbox.config.ts`): the mutation settings (vitest.config.ts
// here) with only the tests that run the inbox's source: its parts alone, its operations and
// receivers on a real redis-server, and the Cloudflare consumer; INBOX_MUTATION=all adds the
// workers' and the dashboard's (seconds each, run again for every surviving mutant). The crash,
// quick-start and no-loss scenarios run the built package in child processes, which no mutant of src reaches.
import { narrowedConfig } from './narrowed-config.js';

const slow = process.env.INBOX_MUTATION === 'all' ? [] : ['test/inbox/worker.test.ts', 'test/inbox/dashboard.test.ts'];
export default narrowedConfig(['test/inbox/**/*.test.ts'], { exclude: ['test/inbox/no-loss.test.ts', 'test/inbox/crash.test.ts', 'test/inbox/quickstart.test.ts', ...slow] });
