import { constants } from 'node:os';

/** Resolves with the first SIGINT (Ctrl+C) or SIGTERM, which then no longer ends the process by itself. */
export function untilStopped(): Promise<NodeJS.Signals> {
  return new Promise((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      resolve(signal);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
  });
}

/** A stop in two steps, by SIGINT (Ctrl+C) or SIGTERM (docker stop, a CI cancel), handled alike. */
export interface TwoStepStop {
  /** The first stop signal received, if any. */
  readonly signal: NodeJS.Signals | undefined;
  /** Removes the handlers: the signals end the process by themselves again. */
  dispose(): void;
}

/**
 * Handles SIGINT and SIGTERM while a run lasts: the first calls `first` (stop starting work), the
 * second `second` (abort the work in flight); later ones are ignored, so the run can still record
 * what it aborted and print its summary.
 */
export function stopInTwoSteps(first: (signal: NodeJS.Signals) => void, second: (signal: NodeJS.Signals) => void): TwoStepStop {
  let received: NodeJS.Signals | undefined;
  let count = 0;
  const handle = (signal: NodeJS.Signals) => {
    count += 1;
    if (count === 1) {
      received = signal;
      first(signal);
    } else if (count === 2) {
      second(signal);
    }
  };
  process.on('SIGINT', handle);
  process.on('SIGTERM', handle);
  return {
    get signal() {
      return received;
    },
    dispose() {
      process.off('SIGINT', handle);
      process.off('SIGTERM', handle);
    },
  };
}

/** The exit code of a run ended by `signal`, as a shell reports one: 128 + its number (130 for SIGINT, 143 for SIGTERM). */
export function signalExitCode(signal: NodeJS.Signals): number {
  return 128 + (constants.signals[signal] ?? 0);
}

/** Writes one line to `stream`. */
export function println(stream: NodeJS.WritableStream, line: string): void {
  stream.write(`${line}\n`);
}
