import { describe, expect, it } from 'vitest';
import { CommitLedger, confirmationState } from '../../packages/mcp/src/commit-tokens.js';

/** A ledger on a clock the test moves. */
function ledgerAt(start = 1_800_000_000_000) {
  const clock = { now: start };
  return { clock, ledger: new CommitLedger(() => clock.now) };
}

describe('CommitLedger', () => {
  it('binds the exact arguments, whatever their key order, at every depth; undefined fields count as absent', () => {
    const { ledger } = ledgerAt();
    const args = { name: 'Acme', nested: { b: 1, a: [{ y: 2, x: 1 }] }, gone: undefined };
    const { token } = ledger.mint('deal_create', args);
    expect(ledger.check(token, 'deal_create', { nested: { a: [{ x: 1, y: 2 }], b: 1 }, name: 'Acme' })).toBeUndefined();
    expect(ledger.check(token, 'deal_create', { name: 'Acme', nested: { b: 1, a: [{ x: 1, y: 3 }] } })).toBe('other-arguments');
    expect(ledger.check(token, 'deal_create', { name: 'Acme', nested: { b: 1, a: [{ x: 1, y: 2 }, 3] } })).toBe('other-arguments');
    expect(ledger.check(token, 'deal_create', { name: 'Acme', nested: { b: 1, a: [{ x: 1, y: 2 }] }, extra: null })).toBe('other-arguments');
    expect(ledger.check(token, 'room_create', args)).toBe('other-arguments');
    // Arrays keep their order: [1, 2] is not [2, 1].
    const list = ledger.mint('t', { ids: [1, 2] }).token;
    expect(ledger.check(list, 't', { ids: [2, 1] })).toBe('other-arguments');
    // A list is not the object with its indices as keys.
    expect(ledger.check(list, 't', { ids: { 0: 1, 1: 2 } })).toBe('other-arguments');
    // A string is not the object it spells.
    const text = ledger.mint('t', { v: '{"a":1}' }).token;
    expect(ledger.check(text, 't', { v: { a: 1 } })).toBe('other-arguments');
  });

  it('expires at its expiry exactly (the millisecond before, it commits)', () => {
    const { clock, ledger } = ledgerAt();
    const { token, expiresAt } = ledger.mint('t', {}, 1000);
    expect(Date.parse(expiresAt)).toBe(clock.now + 1000);
    clock.now += 999;
    expect(ledger.check(token, 't', {})).toBeUndefined();
    clock.now += 1;
    expect(ledger.check(token, 't', {})).toBe('expired');
    expect(ledger.spend(token, 't', {})).toBe('expired');
  });

  it('spends a token once; a spent token stays refused as replayed (as expired once forgotten)', () => {
    const { clock, ledger } = ledgerAt();
    const { token } = ledger.mint('t', { a: 1 }, 1000);
    expect(ledger.spend(token, 't', { a: 1 })).toBeUndefined();
    expect(ledger.check(token, 't', { a: 1 })).toBe('replayed');
    expect(ledger.spend(token, 't', { a: 1 })).toBe('replayed');
    expect(ledger.check(token, 't', { a: 2 })).toBe('other-arguments');
    clock.now += 1000;
    expect(ledger.check(token, 't', { a: 1 })).toBe('replayed');
  });

  it('forgets tokens once expired (memory stays bounded): an expired, forgotten token with other arguments reads as forged', () => {
    const { clock, ledger } = ledgerAt();
    const old = ledger.mint('t', { a: 1 }, 1000).token;
    const spent = ledger.mint('t', { a: 3 }, 1000).token;
    expect(ledger.spend(spent, 't', { a: 3 })).toBeUndefined();
    expect(ledger.check(old, 't', { a: 2 })).toBe('other-arguments');
    clock.now += 999;
    ledger.mint('t', {}, 1000); // not expired yet: nothing forgotten
    expect(ledger.check(old, 't', { a: 2 })).toBe('other-arguments');
    expect(ledger.check(spent, 't', { a: 3 })).toBe('replayed');
    clock.now += 1;
    ledger.mint('t', {}, 1000); // minting forgets what has expired
    expect(ledger.check(old, 't', { a: 2 })).toBe('forged');
    expect(ledger.check(spent, 't', { a: 3 })).toBe('expired');
    // Spending forgets too.
    const { clock: clock2, ledger: ledger2 } = ledgerAt();
    const first = ledger2.mint('t', { a: 1 }, 10).token;
    const second = ledger2.mint('t', { b: 1 }, 1000).token;
    clock2.now += 10;
    expect(ledger2.spend(second, 't', { b: 1 })).toBeUndefined();
    expect(ledger2.check(first, 't', { a: 2 })).toBe('forged');
  });

  it.each([
    ['', 'malformed'],
    ['v1', 'malformed'],
    [`v2.${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.1800000001000.${'a'.repeat(64)}`, 'malformed'],
    [`v1.${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.1800000001000.${'a'.repeat(63)}`, 'malformed'],
    [`v1.${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.1800000001000.${'A'.repeat(64)}`, 'malformed'],
    [`v1.${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.1800000001000.${'a'.repeat(64)} `, 'malformed'],
    [`v1.${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.1800000001000.${'a'.repeat(64)}`, 'forged'],
  ])('refuses %j as %s, never throwing', (token, refusal) => {
    expect(ledgerAt().ledger.check(token, 't', {})).toBe(refusal);
  });

  it('confirmationState is bound to the token', () => {
    const { ledger } = ledgerAt();
    const a = ledger.mint('t', {}).token;
    const b = ledger.mint('t', {}).token;
    expect(confirmationState(a)).toBe(confirmationState(a));
    expect(confirmationState(a)).not.toBe(confirmationState(b));
    expect(confirmationState(a)).toMatch(/^[\w-]{43}$/);
  });
});
