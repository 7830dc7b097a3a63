// How the inbox commands print a queue's counts: one home for `inbox stats` and `inbox demo`.
import type { InboxStats } from 'svc-sdk/inbox';

/**
 * One line per state, `waiting   3`, each ending in a newline.
 *
 * @param stats The counts `inbox.stats()` resolved with.
 */
export function statsText(stats: InboxStats): string {
  return Object.entries(stats)
    .map(([name, count]) => `${name.padEnd(10)}${count}\n`)
    .join('');
}
