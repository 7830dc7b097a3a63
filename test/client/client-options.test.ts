import { useRuntime } from '../support/runtime.js';
import { afterEach, describe, expect, it, vi } from 'vitest';
import { Client, ValidationError } from '../../src/index.node.js';
import { API_KEY } from '../support/msw.js';

/** A fetch that must never be reached: these options are refused in the constructor. */
const unreachable = vi.fn<typeof fetch>(async () => Response.json({}));

afterEach(() => {
  unreachable.mockClear();
  vi.unstubAllGlobals();
});

function refusedConstruction(options: ConstructorParameters<typeof Client>[0]): ValidationError {
  let error: unknown;
  try {
    new Client({ baseUrl: 'https://svc.test', fetch: unreachable, ...options });
  } catch (thrown) {
    error = thrown;
  }
  expect(error).toBeInstanceOf(ValidationError);
  expect(unreachable).not.toHaveBeenCalled();
  return error as ValidationError;
}

describe('new Client() refuses a malformed API key without echoing it', () => {
  it.each([
    ['a trailing newline', `${API_KEY}\n`],
    ['a leading space', ` ${API_KEY}`],
    ['a trailing space and carriage return', `${API_KEY} \r`],
  ])('an apiKey with %s around it is named as such, not as a wrong prefix', (_, apiKey) => {
    const error = refusedConstruction({ apiKey });
    expect(error.message).toBe('[svc-sdk] new Client(): apiKey has a space or line break before or after it: remove it (the key itself starts with "vdr_"). Nothing was sent.');
    expect(JSON.stringify({ message: error.message, issues: error.issues })).not.toContain('0123456789');
  });

  it.each([
    ['a space inside', 'vdr_test 0123456789abcdef'],
    ['a tab', `vdr_test\t0123456789`],
    ['a NUL byte', `vdr_test\u00000123456789`],
    ['a DEL character', `vdr_test\u007f0123456789`],
  ])('an apiKey with %s', (_, apiKey) => {
    const error = refusedConstruction({ apiKey });
    expect(error.message).toBe(
      '[svc-sdk] new Client(): apiKey contains a space, line break or control character: copy the key again without them. Nothing was sent.',
    );
    expect(error.issues.map((issue) => issue.path)).toEqual([['apiKey']]);
    // Neither the key nor any recognisable part of it is in the message or the issues.
    expect(JSON.stringify({ message: error.message, issues: error.issues })).not.toContain('0123456789');
  });

  it('an apiKey that is only the "vdr_" prefix', () => {
    expect(refusedConstruction({ apiKey: 'vdr_' }).message).toContain('apiKey has nothing after "vdr_"');
  });

  it('accepts a well-formed key', () => {
    expect(() => new Client({ apiKey: API_KEY, baseUrl: 'https://svc.test', fetch: unreachable })).not.toThrow();
  });
});

describe('baseUrl', () => {
  it('loses every trailing slash and keeps the rest', () => {
    const client = new Client({ apiKey: API_KEY, baseUrl: 'https://svc.test/tenant///', fetch: unreachable });
    expect(client.baseUrl).toBe('https://svc.test/tenant');
  });

  it('with a long run of slashes that are not trailing is handled at once (no quadratic scan)', () => {
    // A `/\/+$/` regex retries from every slash of the run: 200 000 slashes cost ~2·10^10 steps,
    // far past the test's timeout; a linear strip is instant.
    const baseUrl = `https://svc.test/${'/'.repeat(200_000)}x`;
    expect(new Client({ apiKey: API_KEY, baseUrl, fetch: unreachable }).baseUrl).toBe(baseUrl);
  });
});

describe('in a browser page', () => {
  function pretendBrowserPage() {
    useRuntime({ browserPage: true, browser: true });
  }

  it('is refused unless dangerouslyAllowBrowser is set, since the page\'s users could read the key', () => {
    pretendBrowserPage();
    const error = refusedConstruction({ apiKey: API_KEY });
    expect(error.issues.map((issue) => issue.path)).toEqual([['dangerouslyAllowBrowser']]);
    expect(error.message).toContain('pass dangerouslyAllowBrowser: true');
  });

  it('is allowed with dangerouslyAllowBrowser: true', () => {
    pretendBrowserPage();
    expect(
      () => new Client({ apiKey: API_KEY, baseUrl: 'https://svc.test', fetch: unreachable, dangerouslyAllowBrowser: true }),
    ).not.toThrow();
  });

  it('a server or worker (no document) needs no flag', () => {
    useRuntime({ browserPage: false });
    expect(() => new Client({ apiKey: API_KEY, baseUrl: 'https://svc.test', fetch: unreachable })).not.toThrow();
  });
});
