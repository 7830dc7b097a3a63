import { ValidationError } from './errors.js';

/** How much the client logs: each level includes the ones after it; `'off'` logs nothing. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

/** Where logs go: anything with console's `debug`/`info`/`warn`/`error` (console, pino, winston). */
export interface Logger {
  /**
   * Each attempt, when the level is `debug`.
   *
   * @param message The line, starting `[svc-sdk] `.
   * @param details The line's fields as one object (method, URL, status, attempt, request id), when it has any.
   */
  debug(message: string, ...details: unknown[]): void;
  /**
   * Why a retry happens, and a retried call that still failed, from level `info`.
   *
   * @param message The line, starting `[svc-sdk] `.
   * @param details The line's fields as one object (method, URL, status, attempt, request id), when it has any.
   */
  info(message: string, ...details: unknown[]): void;
  /**
   * From level `warn` (the default): a callback of the caller's that threw, a bad `SVC_LOG`. Never a
   * failed call: the caller is handed that error, and printing it too would log it twice.
   *
   * @param message The line, starting `[svc-sdk] `.
   * @param details The line's fields as one object (method, URL, status, attempt, request id), when it has any.
   */
  warn(message: string, ...details: unknown[]): void;
  /**
   * Part of console's shape, so console, pino and winston fit; the client itself writes no `error` lines.
   *
   * @param message The line, starting `[svc-sdk] `.
   * @param details The line's fields as one object (method, URL, status, attempt, request id), when it has any.
   */
  error(message: string, ...details: unknown[]): void;
}

/** One log line's writer, or `undefined` when its level is off (so callers skip building the line). */
export type Write = ((message: string, details: Record<string, unknown>) => void) | undefined;

/** The writers the core uses, resolved once per client. Each one is guarded: logging never changes a call's outcome. */
export interface CoreLog {
  /** Each attempt: method, URL, status, duration, attempt number, request id. */
  debug: Write;
  /** Why a retry happens; a call that was retried and still failed. */
  info: Write;
  /** A callback of the caller's that threw (never a failed call: the caller has its error). */
  warn: Write;
}

const LEVELS: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, off: 4 };

/** Whether the bad `SVC_LOG` was warned about already: the environment is the process's, so once per process. */
let warnedAboutEnv = false;

/**
 * The core's writers for a level and a logger. `level` defaults to `SVC_LOG` (any case), then
 * `'warn'`. An unknown `logLevel` is a ValidationError; an unknown `SVC_LOG` is warned about once
 * per process and read as `'warn'`, since a typo in the environment should not stop a deployed
 * service from starting.
 */
export function createCoreLog(level: LogLevel | undefined, logger: Logger | undefined, env: string | undefined): CoreLog {
  const levels = "'debug', 'info', 'warn', 'error' or 'off'";
  if (level !== undefined && !Object.hasOwn(LEVELS, level)) {
    throw new ValidationError('new Client()', [
      { path: ['logLevel'], message: `logLevel must be one of ${levels} (got ${quote(String(level))})` },
    ]);
  }
  if (logger !== undefined && !(['debug', 'info', 'warn', 'error'] as const).every((method) => typeof logger?.[method] === 'function')) {
    throw new ValidationError('new Client()', [
      { path: ['logger'], message: 'logger must have debug, info, warn and error methods, as console does' },
    ]);
  }
  const envName = env?.trim().toLowerCase();
  const envLevel = envName && Object.hasOwn(LEVELS, envName) ? (envName as LogLevel) : undefined;
  const rank = LEVELS[level ?? envLevel ?? 'warn'];
  const target = logger ?? console;
  // Bound lazily per line, not per client: a logger whose methods rely on `this` (pino, winston) keeps it.
  const writer = (method: 'debug' | 'info' | 'warn', minimum: number): Write =>
    rank <= minimum ? (message, details) => safely(target, method, message, details) : undefined;
  if (level === undefined && envName && envLevel === undefined && !warnedAboutEnv) {
    warnedAboutEnv = true;
    safely(target, 'warn', `[svc-sdk] SVC_LOG must be one of ${levels} (got ${quote(env!)}): logging at 'warn'`, undefined);
  }
  return { debug: writer('debug', 0), info: writer('info', 1), warn: writer('warn', 2) };
}

/**
 * Calls the logger and swallows whatever it does wrong (a throw, a rejected promise): a log line
 * must never turn a stored create into an error, nor replace the error the caller should see.
 */
function safely(target: Logger, method: 'debug' | 'info' | 'warn', message: string, details: Record<string, unknown> | undefined): void {
  try {
    // A promise (or any thenable) it returns is settled here, its rejection ignored; anything else passes through.
    void Promise.resolve<unknown>(details === undefined ? target[method](message) : target[method](message, details)).catch(ignore);
  } catch {
    // The logger's own failure is not the call's.
  }
}

function ignore(): void {}

/** A value from outside quoted for a message: at most 20 characters, in single quotes, control characters escaped as JSON escapes them. */
function quote(value: string): string {
  return `'${JSON.stringify(value.slice(0, 20)).slice(1, -1)}'`;
}

// Log lines show a URL by the one redaction rule (shared/redact.ts) that spans and errors use too:
// `user:password@` and the values of query parameters named like a credential (token, key, secret,
// signature, password, auth, jwt, sid, session, code, …) shown as `[redacted]`. Re-exported under the
// name the core's log lines call it by (http.ts, attempt.ts), not wrapped: a wrapper only forwarded.
export { redactUrl as loggedUrl } from '../shared/redact.js';
