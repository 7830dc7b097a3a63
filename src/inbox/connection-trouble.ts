// What an operator sees when the inbox's Redis is not there: every operation of the inbox that a
// person runs (stats, ls, show, replay) ends within its deadline, and its error says in one line
// what went wrong and the fix (Redis unreachable, a wrong or missing password, a peer that is not
// Redis), naming the address with every credential hidden. BullMQ itself waits forever in each of
// these cases (it reconnects and queues the command), so the last connection error is kept to say why.
import type { ConnectionOptions } from 'bullmq';
import { redactUrl, redactUrlsInText } from '../shared/redact.js';

/** The inbox's Redis as a message names it: its URL redacted, or `host:port`, or "the client you passed". */
export function describeConnection(connection: ConnectionOptions): string {
  const options = connection as { url?: unknown; host?: unknown; port?: unknown; connect?: unknown };
  if (typeof options.url === 'string') return redactUrl(options.url);
  if (typeof options.connect === 'function') return 'the Redis client passed as connection';
  const host = typeof options.host === 'string' ? options.host : '127.0.0.1';
  return `${host}:${typeof options.port === 'number' ? options.port : 6379}`;
}

/** The password written in the connection (its options or its URL), to scrub from any message that quotes it. */
function passwordOf(connection: ConnectionOptions): string | undefined {
  const options = connection as { url?: unknown; password?: unknown };
  if (typeof options.password === 'string' && options.password) return options.password;
  try {
    const password = decodeURIComponent(new URL(options.url as string).password);
    return password || undefined;
  } catch {
    // No URL (`new URL(undefined)` throws as well), or one that does not parse: no password in it.
  }
}

/** `text` with every URL's credentials and the connection's password hidden. */
export function scrub(text: string, connection: ConnectionOptions): string {
  const password = passwordOf(connection);
  const redacted = redactUrlsInText(text);
  return password ? redacted.split(password).join('[redacted]') : redacted;
}

/** The connection errors that say nothing listens there (or the name does not resolve). */
const UNREACHABLE = new Set(['ECONNREFUSED', 'ENOTFOUND', 'EAI_AGAIN', 'EHOSTUNREACH']);

/** A Redis trouble in one line, with its fix; `undefined` when `error` is none of the known ones. */
export function explainTrouble(error: unknown, where: string): string | undefined {
  const message = error instanceof Error ? error.message : String(error);
  const code = (error as { code?: unknown } | null)?.code;
  if (/WRONGPASS|invalid password|invalid username-password/i.test(message)) {
    return `[svc-sdk] inbox: Redis at ${where} refused the password (WRONGPASS): pass the right one in the connection (redis://:<password>@host:port, or --redis)`;
  }
  if (/NOAUTH/.test(message)) {
    return `[svc-sdk] inbox: Redis at ${where} needs a password (NOAUTH): pass it in the connection (redis://:<password>@host:port, or --redis)`;
  }
  const why = (UNREACHABLE.has(code as string) ? (code as string) : undefined) ?? /ECONNREFUSED|ENOTFOUND/.exec(message)?.[0];
  if (why !== undefined) {
    return `[svc-sdk] inbox: cannot reach Redis at ${where} (${why}): start it (redis-server) or pass its address (connection, or --redis redis://host:port)`;
  }
  return undefined;
}

/** Remembers the last connection error a BullMQ object reported, to explain a deadline that passed. */
export interface TroubleWatch {
  /** Listener for BullMQ's `error` events. */
  readonly hear: (error: unknown) => void;
  /** Runs `operation`, rejecting with a one-line error once `timeoutMs` passed or with Redis's trouble explained. */
  bounded<T>(what: string, operation: () => Promise<T>): Promise<T>;
}

/**
 * A watch over the connection `connection`, whose operations end within `timeoutMs`, or as soon as
 * the connection fails in a way that waiting cannot mend for a person at a terminal (refused,
 * unknown host, a wrong or missing password): BullMQ would retry it for ever.
 */
export function watchTrouble(connection: ConnectionOptions, timeoutMs: number): TroubleWatch {
  const where = describeConnection(connection);
  let last: unknown;
  const waiting = new Set<(error: Error) => void>();
  const explained = (error: unknown) => {
    const line = explainTrouble(error, where);
    return line === undefined ? undefined : new Error(line, { cause: error });
  };
  return {
    hear: (error) => {
      last = error;
      const known = explained(error);
      if (known) for (const fail of waiting) fail(known);
    },
    bounded: async (what, operation) => {
      let timer: ReturnType<typeof setTimeout> | undefined;
      let fail!: (error: Error) => void;
      const deadline = new Promise<never>((_resolve, reject) => {
        fail = reject;
        timer = setTimeout(() => {
          reject(
            explained(last) ??
              new Error(
                `[svc-sdk] inbox ${what}: Redis at ${where} did not answer within ${timeoutMs} ms (timeoutMs)` +
                  (last === undefined ? ': is it a Redis? check the address (connection, or --redis)' : ` (last error: ${scrub(messageOf(last), connection)})`),
              ),
          );
        }, timeoutMs);
      });
      waiting.add(fail);
      try {
        return await Promise.race([operation(), deadline]);
      } catch (error) {
        // Ours already say what they mean, naming the address redacted.
        if (error instanceof Error && error.message.startsWith('[svc-sdk] ')) throw error;
        throw explained(error) ?? explained(last) ?? new Error(`[svc-sdk] inbox ${what}: ${scrub(messageOf(error), connection)}`, { cause: error });
      } finally {
        waiting.delete(fail);
        clearTimeout(timer);
      }
    },
  };
}

/** An error's message, or what was thrown as text. */
export function messageOf(error: unknown): string {
  return error instanceof Error ? error.message : String(error);
}
