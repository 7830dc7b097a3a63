// The mutation run of src/webhooks alone (stryker.webhooks.config.mjs): the mutation settings
// (vitest.config.ts here) with only the tests that guard the webhook receiver: test/webhooks, the
// inbox stage's receivers (test/inbox/receiver.test.ts, test/inbox/bullmq.test.ts) and the
// receiver's telemetry (test/otel). A mutant of the receiver is reached by much of the suite.
import { narrowedConfig } from './narrowed-config.js';

export default narrowedConfig(['test/webhooks/**/*.test.ts', 'test/inbox/receiver.test.ts', 'test/inbox/bullmq.test.ts', 'test/otel/**/*.test.ts']);
