// Coarse deadlines: one timer for every pending operation that shares a timeout, not one timer per
// operation. The fetch handler and the Node listener give each body `bodyTimeoutMs` to arrive with
// it, and the receiver gives each dedupe store or inbox call `storeTimeoutMs` to answer (stores.ts).

/** The pending operations of one timeout, and when each must have ended. */
export interface Deadlines {
  /** The timeout, in ms (what a timed-out operation's message names). */
  readonly timeoutMs: number;
  /** Calls `expire` once the timeout has passed (between 1 and 1.1 times it), unless deleted first. */
  add(expire: () => void): Deadline;
  /** Forgets a deadline (its operation ended). */
  delete(deadline: Deadline): void;
}

/** One pending operation's deadline. */
export interface Deadline {
  /** The sweep count at which the operation is given up. */
  at: number;
  expire: () => void;
  /** Its neighbours in the ring of pending deadlines; `undefined` once it left it (deleted or expired). */
  previous?: Deadline | undefined;
  next?: Deadline | undefined;
}

/** Sweeps per timeout: an operation gets between 1 and 1.1 times the timeout. */
const SWEEPS_PER_TIMEOUT = 10;

/**
 * One timer for every operation pending under `timeoutMs`: a timer per request was ~4 % of the
 * listener's CPU under load (node --cpu-prof: getLibuvNow, removeStoresFromResource), and a timer
 * per store call about 0.5 µs of the receiver's ~8 µs per delivery in process. Time is counted in
 * sweeps (every tenth of the timeout), so an operation costs no clock read either. With one
 * timeout, insertion order is deadline order: the pending deadlines are a ring, oldest first after
 * its head, each added at its end and unlinked when its operation ends (no hashing: a Set's adds
 * and deletes were a tenth of the receiver's CPU per delivery at 64 at once), and a sweep stops at
 * the first live one. The timer runs while operations are pending, and stops at the first sweep
 * that finds none.
 */
export function coarseDeadlines(timeoutMs: number): Deadlines {
  // The ring's head: no operation's (never swept nor expired); its next is the oldest pending deadline, its previous the newest.
  const head = {} as Deadline;
  head.previous = head.next = head;
  let sweeper: ReturnType<typeof setInterval> | undefined;
  let sweeps = 0;
  const unlink = (deadline: Deadline) => {
    const { previous, next } = deadline;
    // Left the ring already (deleted twice, or deleted once it expired): nothing to do.
    if (!next) return;
    previous!.next = next;
    next.previous = previous;
    deadline.previous = deadline.next = undefined;
  };
  const sweep = () => {
    sweeps += 1;
    for (let oldest = head.next!; oldest !== head; oldest = head.next!) {
      if (oldest.at > sweeps) return;
      unlink(oldest);
      oldest.expire();
    }
    // Nothing left to watch: stop until the next operation (at most one new timer per sweep period).
    clearInterval(sweeper);
    sweeper = undefined;
  };
  return {
    timeoutMs,
    add(expire) {
      // One sweep more than a full timeout: the next sweep may come at once.
      const newest = head.previous!;
      const deadline: Deadline = { at: sweeps + SWEEPS_PER_TIMEOUT + 1, expire, previous: newest, next: head };
      newest.next = head.previous = deadline;
      if (!sweeper) {
        sweeper = setInterval(sweep, Math.max(1, timeoutMs / SWEEPS_PER_TIMEOUT));
        // Unref'd where timers are objects (Node, Bun): a deadline must not keep a process alive that its server does not.
        (sweeper as { unref?: () => void }).unref?.();
      }
      return deadline;
    },
    delete: unlink,
  };
}
