import { chmodSync, mkdirSync, readdirSync, readFileSync, rmSync, statSync, symlinkSync, unlinkSync, writeFileSync } from 'node:fs';
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { CommitLedger, contentDigest, keyIdentity, ledgerOf, type TokenBinding } from '../../packages/mcp/src/commit-tokens.js';
import { tempDir } from './support.js';

/** A ledger on a fresh state folder and a clock the test moves. */
function ledgerAt(start = 1_800_000_000_000) {
  const clock = { now: start };
  const dir = tempDir('svc-mcp-ledger-');
  return { clock, dir, ledger: new CommitLedger(dir, () => clock.now) };
}

const at = (tool: string, args: unknown, extra: Partial<TokenBinding> = {}): TokenBinding => ({ tool, args, service: 'https://svc.test', keyId: keyIdentity('vdr_a'), ...extra });

describe('CommitLedger', () => {
  it('binds the exact arguments, whatever their key order, at every depth; undefined fields count as absent', async () => {
    const { ledger } = ledgerAt();
    const args = { name: 'Acme', nested: { b: 1, a: [{ y: 2, x: 1 }] }, gone: undefined };
    const { token } = await ledger.mint(at('deal_create', args));
    expect(await ledger.check(token, at('deal_create', { nested: { a: [{ x: 1, y: 2 }], b: 1 }, name: 'Acme' }))).toBeUndefined();
    expect(await ledger.check(token, at('deal_create', { name: 'Acme', nested: { b: 1, a: [{ x: 1, y: 3 }] } }))).toBe('other-binding');
    expect(await ledger.check(token, at('deal_create', { name: 'Acme', nested: { b: 1, a: [{ x: 1, y: 2 }, 3] } }))).toBe('other-binding');
    expect(await ledger.check(token, at('deal_create', { name: 'Acme', nested: { b: 1, a: [{ x: 1, y: 2 }] }, extra: null }))).toBe('other-binding');
    expect(await ledger.check(token, at('room_create', args))).toBe('other-binding');
    const list = (await ledger.mint(at('t', { ids: [1, 2] }))).token;
    expect(await ledger.check(list, at('t', { ids: [2, 1] }))).toBe('other-binding');
    expect(await ledger.check(list, at('t', { ids: { 0: 1, 1: 2 } }))).toBe('other-binding');
    const text = (await ledger.mint(at('t', { v: '{"a":1}' }))).token;
    expect(await ledger.check(text, at('t', { v: { a: 1 } }))).toBe('other-binding');
  });

  it('binds the service, the API key identity and the content: any other is refused', async () => {
    const { ledger } = ledgerAt();
    const content = contentDigest({ files: [{ path: '/a', sha256: 'x' }] });
    const { token } = await ledger.mint(at('t', { a: 1 }, { content }));
    expect(await ledger.check(token, at('t', { a: 1 }, { content }))).toBeUndefined();
    expect(await ledger.check(token, at('t', { a: 1 }, { content, service: 'https://other.test' }))).toBe('other-binding');
    expect(await ledger.check(token, at('t', { a: 1 }, { content, keyId: keyIdentity('vdr_b') }))).toBe('other-binding');
    expect(await ledger.check(token, at('t', { a: 1 }, { content: contentDigest({ files: [{ path: '/a', sha256: 'y' }] }) }))).toBe('other-binding');
    expect(await ledger.check(token, at('t', { a: 1 }))).toBe('other-binding');
    expect(keyIdentity('vdr_a')).not.toContain('vdr_a');
    expect(keyIdentity('vdr_a')).toMatch(/^[0-9a-f]{32}$/);
  });

  it('expires at its expiry exactly (the millisecond before, it commits)', async () => {
    const { clock, ledger } = ledgerAt();
    const { token, expiresAt } = await ledger.mint(at('t', {}), 1000);
    expect(Date.parse(expiresAt)).toBe(clock.now + 1000);
    clock.now += 999;
    expect(await ledger.check(token, at('t', {}))).toBeUndefined();
    clock.now += 1;
    expect(await ledger.check(token, at('t', {}))).toBe('expired');
    expect(await ledger.spend(token, at('t', {}))).toBe('expired');
  });

  it('spends a token once, also through another ledger on the same folder (another process); markers go once expired', async () => {
    const { clock, dir, ledger } = ledgerAt();
    const other = new CommitLedger(dir, () => clock.now);
    const { token } = await ledger.mint(at('t', { a: 1 }), 1000);
    expect(await other.check(token, at('t', { a: 1 }))).toBeUndefined();
    expect(await other.spend(token, at('t', { a: 1 }))).toBeUndefined();
    expect(await ledger.check(token, at('t', { a: 1 }))).toBe('replayed');
    expect(await ledger.spend(token, at('t', { a: 1 }))).toBe('replayed');
    expect(readdirSync(join(dir, 'commit-tokens', 'spent'))).toHaveLength(1);
    clock.now += 999;
    await other.mint(at('t', {}), 1000);
    expect(readdirSync(join(dir, 'commit-tokens', 'spent'))).toHaveLength(1);
    clock.now += 1;
    await other.mint(at('t', {}), 1000); // minting forgets what has expired
    expect(readdirSync(join(dir, 'commit-tokens', 'spent'))).toEqual([]);
    expect(await ledger.check(token, at('t', { a: 1 }))).toBe('expired');
  });

  it("a ledger sweeps the markers another process left within a minute, not on every mint", async () => {
    const { clock, dir, ledger } = ledgerAt();
    const other = new CommitLedger(dir, () => clock.now);
    await ledger.mint(at('t', {}));
    const { token } = await other.mint(at('t', {}), 1000);
    expect(await other.spend(token, at('t', {}))).toBeUndefined();
    const spent = () => readdirSync(join(dir, 'commit-tokens', 'spent'));
    clock.now += 1000;
    await ledger.mint(at('t', {}));
    expect(spent()).toHaveLength(1);
    clock.now += 58_999;
    await ledger.mint(at('t', {}));
    expect(spent()).toHaveLength(1);
    clock.now += 1;
    await ledger.mint(at('t', {}));
    expect(spent()).toEqual([]);
  });

  it('of many spends of one token at once, exactly one wins', async () => {
    const { dir, ledger } = ledgerAt(Date.now());
    const { token } = await ledger.mint(at('t', {}));
    const ledgers = Array.from({ length: 8 }, () => new CommitLedger(dir));
    const outcomes = await Promise.all(ledgers.map((each) => each.spend(token, at('t', {}))));
    expect(outcomes.filter((outcome) => outcome === undefined)).toHaveLength(1);
    expect(outcomes.filter((outcome) => outcome === 'replayed')).toHaveLength(7);
  });

  it('keeps its key in the state folder, 0600, made once and shared; another folder\'s key mints tokens this one calls forged', async () => {
    const { dir, ledger } = ledgerAt();
    const { token } = await ledger.mint(at('t', {}));
    const keyFile = join(dir, 'commit-key');
    expect(statSync(keyFile).mode & 0o777).toBe(0o600);
    const key = readFileSync(keyFile, 'utf8');
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(await new CommitLedger(dir, () => 1_800_000_000_000).check(token, at('t', {}))).toBeUndefined();
    expect(readFileSync(keyFile, 'utf8')).toBe(key);
    expect(await ledgerAt().ledger.check(token, at('t', {}))).toBe('forged');
    expect(readdirSync(dir).filter((name) => name.endsWith('.tmp'))).toEqual([]);
  });

  it('refuses a key file readable by others, or a link, naming the file', async () => {
    const { dir, ledger } = ledgerAt();
    await ledger.mint(at('t', {}));
    chmodSync(join(dir, 'commit-key'), 0o644);
    await expect(new CommitLedger(dir).mint(at('t', {}))).rejects.toThrow(/\[svc-sdk\] the commit key .*commit-key is a link or readable by others/);
    const planted = ledgerAt();
    writeFileSync(join(planted.dir, 'elsewhere'), 'ab'.repeat(32), { mode: 0o600 });
    symlinkSync(join(planted.dir, 'elsewhere'), join(planted.dir, 'commit-key'));
    await expect(planted.ledger.mint(at('t', {}))).rejects.toThrow(/is a link or readable by others/);
    unlinkSync(join(planted.dir, 'commit-key'));
    await expect(planted.ledger.mint(at('t', {}))).resolves.toMatchObject({ token: expect.stringMatching(/^v2\./) });
  });

  it('a marker this ledger wrote is swept as soon as it expires, even after a sweep pushed the next one a minute out', async () => {
    const { clock, dir, ledger } = ledgerAt();
    await ledger.mint(at('t', {})); // a sweep: the next is due within a minute
    const { token } = await ledger.mint(at('t', {}), 1000);
    expect(await ledger.spend(token, at('t', {}))).toBeUndefined();
    clock.now += 1000;
    await ledger.mint(at('t', {}));
    expect(readdirSync(join(dir, 'commit-tokens', 'spent'))).toEqual([]);
  });

  it('a damaged key file is refused, naming the fix', async () => {
    const { dir, ledger } = ledgerAt();
    writeFileSync(join(dir, 'commit-key'), 'abcd\n', { mode: 0o600 });
    await expect(ledger.mint(at('t', {}))).rejects.toThrow(/\[svc-sdk\] the commit key .*commit-key is damaged: remove it/);
  });

  it('contentDigest is a SHA-256 in hex of the record in canonical form', () => {
    expect(contentDigest({ b: [1, { d: 1, c: 2 }], a: 'x' })).toMatch(/^[0-9a-f]{64}$/);
    expect(contentDigest({ b: [1, { d: 1, c: 2 }], a: 'x' })).toBe(contentDigest({ a: 'x', b: [1, { c: 2, d: 1 }] }));
    expect(contentDigest({ a: 'x' })).not.toBe(contentDigest({ a: 'y' }));
  });

  it('keeps a preview record under the token until it expires', async () => {
    const { clock, dir, ledger } = ledgerAt();
    const { token } = await ledger.mint(at('t', {}), 1000, { files: ['a'] });
    expect(await ledger.record(token)).toEqual({ files: ['a'] });
    expect(await ledger.record('junk')).toBeUndefined();
    expect(statSync(join(dir, 'commit-tokens', 'previews', readdirSync(join(dir, 'commit-tokens', 'previews'))[0]!)).mode & 0o777).toBe(0o600);
    clock.now += 1000;
    await ledger.mint(at('t', {}));
    expect(await ledger.record(token)).toBeUndefined();
  });

  it.each([
    ['', 'malformed'],
    ['v1', 'malformed'],
    [`v1.${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.1800000001000.${'a'.repeat(64)}`, 'malformed'],
    [`v2.${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.1800000001000.${'a'.repeat(16)}.${'a'.repeat(63)}`, 'malformed'],
    [`v2.${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.1800000001000.${'A'.repeat(16)}.${'a'.repeat(64)}`, 'malformed'],
    [`v2.${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.1800000001000.${'a'.repeat(16)}.${'a'.repeat(64)} `, 'malformed'],
    [`v2.${'0'.repeat(8)}-0000-0000-0000-${'0'.repeat(12)}.1800000001000.${'a'.repeat(16)}.${'a'.repeat(64)}`, 'forged'],
  ])('refuses %j as %s, never throwing', async (token, refusal) => {
    expect(await ledgerAt().ledger.check(token, at('t', {}))).toBe(refusal);
  });

  it('a token with its MAC of the binding altered (the stamp kept) is other-binding, with its stamp altered forged', async () => {
    const { ledger } = ledgerAt();
    const { token } = await ledger.mint(at('t', {}));
    const flip = (hex: string) => (hex === '0' ? '1' : '0');
    expect(await ledger.check(token.replace(/.$/, flip), at('t', {}))).toBe('other-binding');
    expect(await ledger.check(token.replace(/\.([0-9a-f])([0-9a-f]{15})\./, (_all, first: string, rest: string) => `.${flip(first)}${rest}.`), at('t', {}))).toBe('forged');
  });

  it('confirmationState is bound to the token', async () => {
    const { ledger } = ledgerAt();
    const a = (await ledger.mint(at('t', {}))).token;
    const b = (await ledger.mint(at('t', {}))).token;
    expect(await ledger.confirmationState(a)).toBe(await ledger.confirmationState(a));
    expect(await ledger.confirmationState(a)).not.toBe(await ledger.confirmationState(b));
    expect(await ledger.confirmationState(a)).toMatch(/^[\w-]{43}$/);
  });
  it('a sweep comes back at the earliest expiry of the files other processes left, not a minute later', async () => {
    const { clock, dir, ledger } = ledgerAt();
    const other = new CommitLedger(dir, () => clock.now);
    for (const ttl of [5000, 1000, 3000]) {
      const { token } = await other.mint(at('t', { ttl }), ttl);
      expect(await other.spend(token, at('t', { ttl }))).toBeUndefined();
    }
    const spent = () => readdirSync(join(dir, 'commit-tokens', 'spent')).length;
    await ledger.mint(at('t', {})); // this ledger's first sweep reads the three markers
    clock.now += 999;
    await ledger.mint(at('t', {}));
    expect(spent()).toBe(3);
    clock.now += 1;
    await ledger.mint(at('t', {}));
    expect(spent()).toBe(2);
    clock.now += 2000;
    await ledger.mint(at('t', {}));
    expect(spent()).toBe(1);
  });

  it('a spent-token folder swapped for a file (planted in the state folder) makes the spend throw: never "replayed", never a commit', async () => {
    const { dir, ledger } = ledgerAt(Date.now());
    const first = await ledger.mint(at('t', { n: 1 }));
    expect(await ledger.spend(first.token, at('t', { n: 1 }))).toBeUndefined();
    rmSync(join(dir, 'commit-tokens', 'spent'), { recursive: true });
    writeFileSync(join(dir, 'commit-tokens', 'spent'), '');
    const second = await ledger.mint(at('t', { n: 2 }));
    await expect(ledger.spend(second.token, at('t', { n: 2 }))).rejects.toMatchObject({ code: 'ENOTDIR' });
  });

  it('a folder planted where the key goes is refused, naming the file', async () => {
    const { dir, ledger } = ledgerAt();
    mkdirSync(join(dir, 'commit-key'), { mode: 0o700 });
    await expect(ledger.mint(at('t', {}))).rejects.toThrow(/\[svc-sdk\] the commit key .*commit-key is a link or readable by others/);
    expect(readdirSync(dir)).toEqual(['commit-key']);
  });

  it('ledgerOf keeps one ledger per state folder in a process (its sweep schedule with it)', () => {
    const dir = tempDir('svc-mcp-ledger-');
    expect(ledgerOf(dir)).toBe(ledgerOf(dir));
    expect(ledgerOf(dir)).toBeInstanceOf(CommitLedger);
    expect(ledgerOf(tempDir('svc-mcp-ledger-'))).not.toBe(ledgerOf(dir));
  });
});
