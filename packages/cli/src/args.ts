// Reading a command's arguments: node:util parseArgs, strict, with messages that name the fix.
import { parseArgs, type ParseArgsOptionsConfig } from 'node:util';
import { parseUrl } from 'svc-sdk/internal';
import { UsageError } from './command.js';
import { didYouMean } from './suggest.js';
import { escapeControl } from './terminal-text.js';

/** The flags and positionals of one command line. */
export interface ParsedArgs {
  values: Record<string, string | boolean | undefined>;
  positionals: string[];
}

/** Parses `args` of `command` strictly; an unknown or malformed option is a UsageError pointing at the command's help. */
export function parseCommandArgs(command: string, args: string[], options: ParseArgsOptionsConfig, allowPositionals = false): ParsedArgs {
  try {
    const parsed = parseArgs({ args, options, allowPositionals, strict: true });
    return { values: parsed.values as ParsedArgs['values'], positionals: parsed.positionals };
  } catch (error) {
    const message = (error as Error).message.replace(/\. To specify.*$/s, '');
    // An unknown --flag: the command's own flag nearest to it, when it is a typo of one.
    const unknown = (error as { code?: string }).code === 'ERR_PARSE_ARGS_UNKNOWN_OPTION' ? /'(--?[^'=]+)/.exec(message)?.[1] : undefined;
    const hint = unknown === undefined ? '' : didYouMean(unknown, Object.keys(options).map((name) => `--${name}`));
    throw new UsageError(`${message}${hint ? `: ${hint.trimEnd()}` : ''} (svc-sdk ${command} --help)`);
  }
}

/** A string flag's value (parseArgs typed it as a string). */
export function stringFlag(parsed: ParsedArgs, name: string): string | undefined {
  return parsed.values[name] as string | undefined;
}

/** A whole number from `min` to `max`, or a UsageError naming the flag and the range (the value quoted with its control characters escaped). */
export function integerFlag(raw: string, flag: string, min: number, max: number): number {
  const value = Number(raw);
  if (!/^\d+$/.test(raw) || value < min || value > max) throw new UsageError(`${flag} must be a whole number from ${min} to ${max}, got "${escapeControl(raw)}"`);
  return value;
}

/**
 * An absolute http(s) URL given as `flag`, or a UsageError saying what is wrong with it: missing,
 * without a scheme (`localhost:3000`, which URL parsers read as the scheme `localhost:`), another
 * scheme, or not a URL at all. `example` shows a good value.
 */
export function httpUrlFlag(value: string | undefined, flag: string, example: string): URL {
  if (value === undefined || value === '') throw new UsageError(`${flag} is required: pass an absolute URL such as ${example}`);
  const raw = withoutUserInfo(value);
  if (!/^[a-z][a-z\d+.-]*:\/\//i.test(raw)) {
    throw new UsageError(`${flag} "${raw}" has no scheme: write it with http:// or https://, such as http://${raw.replace(/^\/+/, '')}`);
  }
  const url = parseUrl(value);
  if (url === undefined) throw new UsageError(`${flag} "${raw}" is not a valid URL: pass an absolute URL such as ${example}`);
  if (url.protocol !== 'http:' && url.protocol !== 'https:') {
    throw new UsageError(`${flag} "${raw}" must be an http:// or https:// URL, not ${url.protocol}//, such as ${example}`);
  }
  return url;
}

/**
 * A URL flag's value as messages quote it: a `user:password@` before the host (which may be a
 * password, even in a value that is not a valid URL) as `***@`.
 */
function withoutUserInfo(value: string): string {
  return value.replace(/^((?:[a-z][a-z\d+.-]*:)?\/\/|)[^/?#]*@/i, '$1***@');
}
