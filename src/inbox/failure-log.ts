// A worker's log of failures, rate-limited: a handler that fails for every delivery during an
// outage writes one line per interval, not one per delivery (the first at once, then a count of
// those not shown), and never stays silent. Each line is redacted: URLs lose their credentials,
// API keys, signing secrets and signatures are hidden, whatever the handler's error quoted.
import { redactUrlsInText } from '../shared/redact.js';

/** A rate-limited writer of lines. */
export interface FailureLog {
  /** Writes `line` now, or counts it when a line was written less than the interval ago. */
  report(line: string): void;
  /** Writes the count of lines not shown, if any, and stops its timer (on close). */
  flush(): void;
}

/** A log that writes to `warn` at most one line per `intervalMs` (0: every line), redacted. */
export function failureLog(warn: (line: string) => void, intervalMs: number): FailureLog {
  let lastAt = Number.NEGATIVE_INFINITY;
  let suppressed = 0;
  let timer: ReturnType<typeof setTimeout> | undefined;
  const write = (line: string) => {
    try {
      warn(redactUrlsInText(line));
    } catch {
      // A logger that throws must not change a delivery's fate.
    }
  };
  const flush = () => {
    clearTimeout(timer);
    timer = undefined;
    if (suppressed === 0) return;
    write(`[svc-sdk] inbox worker: ${suppressed} more failure${suppressed === 1 ? '' : 's'} in the last ${Math.round(intervalMs / 1000)} s, not shown (failureLogIntervalMs)`);
    suppressed = 0;
    lastAt = Date.now();
  };
  return {
    report(line) {
      const now = Date.now();
      if (now - lastAt >= intervalMs) {
        lastAt = now;
        write(line);
        return;
      }
      suppressed++;
      // The count is told once the interval is over, even if no failure follows: an unref'd timer never keeps the process alive.
      timer ??= setTimeout(flush, lastAt + intervalMs - now);
      timer.unref();
    },
    flush,
  };
}
