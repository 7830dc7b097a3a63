// The ledger over the in-memory store: one store object per data set, shared by the ledgers of a test
// as processes share a Redis.
import { describe } from 'vitest';
import { createMemoryLedgerStore, type LedgerStore } from '../../src/actions/index.js';
import { ledgerSuite } from './ledger-suite.js';

const stores = new Map<string, LedgerStore>();

describe('createActionLedger({ store: createMemoryLedgerStore() })', () => {
  ledgerSuite((name) => {
    let store = stores.get(name);
    if (!store) stores.set(name, (store = createMemoryLedgerStore()));
    return store;
  });
});
