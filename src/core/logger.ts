import { ValidationError } from './errors.js';

/** How much the client logs: each level includes the ones after it; `'off'` logs nothing. */
export type LogLevel = 'debug' | 'info' | 'warn' | 'error' | 'off';

/** Where logs go: anything with console's `debug`/`info`/`warn`/`error` (console, pino, winston). */
export interface Logger {
  /** Each attempt, when the level is `debug`. */
  debug(message: string, ...details: unknown[]): void;
  /** Why a retry happens, from level `info`. */
  info(message: string, ...details: unknown[]): void;
  /** A call that was retried and still failed, from level `warn` (the default). */
  warn(message: string, ...details: unknown[]): void;
  /** Part of console's shape, so console, pino and winston fit; the client itself writes no `error` lines. */
  error(message: string, ...details: unknown[]): void;
}

/** One log line's writer, or `undefined` when its level is off (so callers skip building the line). */
type Write = ((message: string, details: Record<string, unknown>) => void) | undefined;

/** The writers the core uses, resolved once per client. */
export interface CoreLog {
  /** Each attempt: method, URL, status, duration, attempt number, request id. */
  debug: Write;
  /** Why a retry happens. */
  info: Write;
  /** A call that was retried and still failed. */
  warn: Write;
}

const LEVELS: Record<LogLevel, number> = { debug: 0, info: 1, warn: 2, error: 3, off: 4 };

/**
 * The core's writers for a level and a logger. `level` defaults to `SVC_LOG`, then `'warn'`. An
 * unknown `logLevel` is a ValidationError; an unknown `SVC_LOG` is warned about and read as `'warn'`,
 * since a typo in the environment should not stop a deployed service from starting.
 */
export function createCoreLog(level: LogLevel | undefined, logger: Logger | undefined, env: string | undefined): CoreLog {
  const levels = "'debug', 'info', 'warn', 'error' or 'off'";
  if (level !== undefined && !Object.hasOwn(LEVELS, level)) {
    throw new ValidationError('new Client()', [
      { path: ['logLevel'], message: `logLevel must be one of ${levels} (got '${String(level).slice(0, 20)}')` },
    ]);
  }
  if (logger !== undefined && !(['debug', 'info', 'warn', 'error'] as const).every((method) => typeof logger?.[method] === 'function')) {
    throw new ValidationError('new Client()', [
      { path: ['logger'], message: 'logger must have debug, info, warn and error methods, as console does' },
    ]);
  }
  const envLevel = env === undefined || env === '' || Object.hasOwn(LEVELS, env) ? (env || undefined) as LogLevel | undefined : undefined;
  const rank = LEVELS[level ?? envLevel ?? 'warn'];
  const target = logger ?? console;
  // Bound lazily per line, not per client: a logger whose methods rely on `this` (pino, winston) keeps it.
  const writer = (method: 'debug' | 'info' | 'warn', minimum: number): Write =>
    rank <= minimum ? (message, details) => target[method](message, details) : undefined;
  if (level === undefined && env && envLevel === undefined) {
    target.warn(`[svc-sdk] SVC_LOG must be one of ${levels} (got '${env.slice(0, 20)}'): logging at 'warn'`);
  }
  return { debug: writer('debug', 0), info: writer('info', 1), warn: writer('warn', 2) };
}
