// Coarse deadlines: one timer for every pending operation that shares a timeout, not one timer per
// operation. The fetch handler and the Node listener give each body `bodyTimeoutMs` to arrive with
// it, and the receiver gives each dedupe store or inbox call `storeTimeoutMs` to answer (stores.ts).

/** The pending operations of one timeout, and when each must have ended. */
export interface Deadlines {
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
  /** Its neighbours in the list of pending deadlines (`undefined` at either end, or once deleted). */
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
 * timeout, insertion order is deadline order: the pending deadlines are a list, oldest first, each
 * added at its end and unlinked when its operation ends (no hashing, as a Set did: ~1 µs per
 * delivery in process at 64 at once), and a sweep stops at the first live one. The timer runs while
 * operations are pending, and stops at the first sweep that finds none.
 */
export function coarseDeadlines(timeoutMs: number): Deadlines {
  let first: Deadline | undefined;
  let last: Deadline | undefined;
  let sweeper: ReturnType<typeof setInterval> | undefined;
  let sweeps = 0;
  const unlink = (deadline: Deadline) => {
    const { previous, next } = deadline;
    if (previous) previous.next = next;
    else if (first === deadline) first = next;
    else return; // not pending (deleted or expired already)
    if (next) next.previous = previous;
    else last = previous;
    deadline.previous = deadline.next = undefined;
  };
  const sweep = () => {
    sweeps += 1;
    while (first) {
      if (first.at > sweeps) return;
      const deadline = first;
      unlink(deadline);
      deadline.expire();
    }
    // Nothing left to watch: stop until the next operation (at most one new timer per sweep period).
    clearInterval(sweeper);
    sweeper = undefined;
  };
  return {
    add(expire) {
      // One sweep more than a full timeout: the next sweep may come at once.
      const deadline: Deadline = { at: sweeps + SWEEPS_PER_TIMEOUT + 1, expire, previous: last, next: undefined };
      if (last) last.next = deadline;
      else first = deadline;
      last = deadline;
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
