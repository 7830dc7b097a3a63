// The Redis URL of the commands that read a shared Redis (`inbox`, `actions`): where it comes from,
// its check, and its password kept out of what they print.
import { redactUrl } from 'svc-sdk/internal';
import { UsageError } from './command.js';
import { escapeControl } from './terminal-text.js';

export const DEFAULT_REDIS = 'redis://127.0.0.1:6379';

/** The flag's value (`--redis` unless `name` says), else the environment variable, else the local Redis; a UsageError unless redis:// or rediss://. */
export function redisUrl(flag: string | undefined, fromEnv: string | undefined, name = '--redis'): string {
  const url = flag ?? fromEnv ?? DEFAULT_REDIS;
  // The URL quoted with its credentials redacted (redis://:***@…): a usage error is printed, and a password is a password.
  if (!/^rediss?:\/\//.test(url)) throw new UsageError(`${name} "${escapeControl(redactUrl(url))}" must be a redis:// or rediss:// URL, such as ${DEFAULT_REDIS}`);
  return url;
}

/** `message` with the URL's password, if any, replaced (a connection error may quote the URL). */
export function withoutPassword(message: string, url: string): string {
  const password = /^rediss?:\/\/[^:@/]*:([^@/]+)@/.exec(url)?.[1];
  return password ? message.split(password).join('***') : message;
}
