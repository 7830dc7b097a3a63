// The mutation run of src/actions alone (stryker.actions.config.mjs): the mutation settings
// (vitest.config.ts here) with only the tests that guard the ledger and its stores: the ledger over
// memory and Redis (test/actions, but its scenario and cross-process tests, which run the built
// package and so never see a mutant) and the emulator's side, which records into a ledger.
import { narrowedConfig } from './narrowed-config.js';

export default narrowedConfig(['test/actions/ledger-memory.test.ts', 'test/actions/ledger-redis.test.ts', 'test/actions/ioredis-resubscribe.test.ts', 'test/testing/actions.test.ts']);
