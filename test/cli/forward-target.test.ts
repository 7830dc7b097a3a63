// Where `svc-sdk listen` forwards (packages/cli/src/forward-target.ts): the user:password@ of --forward-to
// leaves the URL once, and travels only as a basic-auth header, decoded as the app's server reads it.
import { describe, expect, it } from 'vitest';
import { forwardTarget } from '../../packages/cli/src/forward-target.js';

const basic = (credentials: string) => `Basic ${Buffer.from(credentials).toString('base64')}`;

describe('forwardTarget(url)', () => {
  it('keeps a URL without credentials as it is, with no authorization', () => {
    const url = new URL('http://127.0.0.1:3000/hook?x=1');
    const target = forwardTarget(url);
    expect(target).toEqual({ url, authorization: undefined });
    expect(target.url).toBe(url);
  });

  it.each([
    ['http://alice:pw@h/hook', 'alice:pw'],
    ['http://alice@h/hook', 'alice:'],
    ['http://:pw@h/hook', ':pw'],
    ['http://al%40ce:p%3Ass%20w@h/hook', 'al@ce:p:ss w'],
    // Not valid percent-encoding: sent as written rather than refused.
    ['http://al%zz:p%@h/hook', 'al%zz:p%'],
  ])('%s: the URL without them, and basic auth of %j', (raw, credentials) => {
    const original = new URL(raw);
    const { url, authorization } = forwardTarget(original);
    expect(url.href).toBe('http://h/hook');
    expect(authorization).toBe(basic(credentials));
    // The URL it was given is left as it was.
    expect(original.href).toBe(raw);
  });
});
