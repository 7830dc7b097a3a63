// Reading a command line (packages/cli/src/args.ts): parseArgs' errors as one line naming the fix, with
// the nearest flag when an unknown one is a typo of it; whole numbers in a range; absolute http(s) URLs,
// a password in one never quoted.
import { describe, expect, it } from 'vitest';
import { httpUrlFlag, integerFlag, parseCommandArgs, stringFlag } from '../../packages/cli/src/args.js';
import { UsageError } from '../../packages/cli/src/command.js';

const OPTIONS = { port: { type: 'string' }, 'dry-run': { type: 'boolean' } } as const;

/** The UsageError `read` throws, as its message. */
function misuse(read: () => unknown): string {
  try {
    read();
  } catch (error) {
    expect(error).toBeInstanceOf(UsageError);
    return (error as Error).message;
  }
  throw new Error('no UsageError');
}

describe('parseCommandArgs(command, args, options, allowPositionals)', () => {
  it('reads flags and, when allowed, positionals', () => {
    const parsed = parseCommandArgs('x', ['a', '--port', '1', '--dry-run', 'b'], OPTIONS, true);
    expect(parsed).toEqual({ values: { port: '1', 'dry-run': true }, positionals: ['a', 'b'] });
    expect(stringFlag(parsed, 'port')).toBe('1');
    expect(stringFlag(parsed, 'nope')).toBeUndefined();
  });

  it.each([
    [['--prot', '1'], false, "Unknown option '--prot': did you mean \"--port\"? (svc-sdk x --help)"],
    // With positionals allowed, node adds a hint about '--' that points at no fix of ours: cut.
    [['--prot', '1'], true, "Unknown option '--prot': did you mean \"--port\"? (svc-sdk x --help)"],
    [['--verbose'], true, "Unknown option '--verbose' (svc-sdk x --help)"],
    [['-p'], true, "Unknown option '-p' (svc-sdk x --help)"],
    [['--port'], false, "Option '--port <value>' argument missing (svc-sdk x --help)"],
    // Not an unknown flag: no "did you mean" of the flag itself.
    [['--dry-run=yes'], false, "Option '--dry-run' does not take an argument (svc-sdk x --help)"],
    [['a'], false, "Unexpected argument 'a'. This command does not take positional arguments (svc-sdk x --help)"],
  ])('%j (positionals %s) is a UsageError: %s', (args, positionals, message) => {
    expect(misuse(() => parseCommandArgs('x', args, OPTIONS, positionals))).toBe(message);
  });
});

describe('integerFlag(raw, flag, min, max)', () => {
  it('takes a whole number from min to max, both included', () => {
    expect(integerFlag('3', '--n', 3, 5)).toBe(3);
    expect(integerFlag('5', '--n', 3, 5)).toBe(5);
    expect(integerFlag('007', '--n', 3, 10)).toBe(7);
  });

  it.each(['2', '6', '4.5', '-4', '4x', 'x4', '', ' 4', '1e0'])('refuses %j naming the flag and the range', (raw) => {
    expect(misuse(() => integerFlag(raw, '--n', 3, 5))).toBe(`--n must be a whole number from 3 to 5, got "${raw}"`);
  });

  it('quotes a refused value with its control characters escaped', () => {
    expect(misuse(() => integerFlag('\u001b[2J4\n', '--n', 3, 5))).toBe('--n must be a whole number from 3 to 5, got "\\x1b[2J4\\n"');
  });
});

describe('httpUrlFlag(value, flag, example)', () => {
  it('takes an absolute http or https URL, in any case of scheme', () => {
    expect(httpUrlFlag('http://127.0.0.1:3000/hook', '--u', 'E').href).toBe('http://127.0.0.1:3000/hook');
    expect(httpUrlFlag('HTTPS://Example.com', '--u', 'E').href).toBe('https://example.com/');
  });

  it.each([
    [undefined, '--u is required: pass an absolute URL such as http://e.example/'],
    ['', '--u is required: pass an absolute URL such as http://e.example/'],
    ['localhost:3000', '--u "localhost:3000" has no scheme: write it with http:// or https://, such as http://localhost:3000'],
    ['//host/x', '--u "//host/x" has no scheme: write it with http:// or https://, such as http://host/x'],
    ['x http://h/', '--u "x http://h/" has no scheme: write it with http:// or https://, such as http://x http://h/'],
    ['ftp://h/x', '--u "ftp://h/x" must be an http:// or https:// URL, not ftp://, such as http://e.example/'],
    ['http://[nope', '--u "http://[nope" is not a valid URL: pass an absolute URL such as http://e.example/'],
  ])('%j: %s', (value, message) => {
    expect(misuse(() => httpUrlFlag(value, '--u', 'http://e.example/'))).toBe(message);
  });

  it.each([
    ['ftp://al:s3cret@h/', '--u "ftp://***@h/" must be'],
    ['al:s3cret@h:3000/', '--u "***@h:3000/" has no scheme'],
    ['//al:s3cret@h/', '--u "//***@h/" has no scheme'],
    ['http://al:s3cret@[::1/', '--u "http://***@[::1/" is not a valid URL'],
    ['git+ssh://al:s3cret@h/', '--u "git+ssh://***@h/" must be'],
    ['h2o://al:s3cret@h/', '--u "h2o://***@h/" must be'],
  ])('quotes %j without its user and password', (value, start) => {
    const message = misuse(() => httpUrlFlag(value, '--u', 'http://e.example/'));
    expect(message.startsWith(start)).toBe(true);
    expect(message).not.toMatch(/al:|s3cret/);
  });

  it('quotes an @ after the host as it is: it is not user info', () => {
    expect(misuse(() => httpUrlFlag('ftp://h/a@b', '--u', 'http://e.example/'))).toBe('--u "ftp://h/a@b" must be an http:// or https:// URL, not ftp://, such as http://e.example/');
  });
});
