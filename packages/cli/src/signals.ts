import { constants } from 'node:os';

/**
 * Resolves with the first SIGINT (Ctrl+C) or SIGTERM, which then no longer ends the process by itself,
 * or with the signal's name `abort` is aborted with (CliIO's `stop`), whichever comes first.
 *
 * @param abort The host's stop (CliIO's `stop`), if any.
 */
export function untilStopped(abort?: AbortSignal): Promise<NodeJS.Signals> {
  return watchStop(abort).stopped;
}

/** A wait for a stop that may end without one (`dispose`): a command whose work can finish first. */
export interface StopWatch {
  /** Resolves with the first SIGINT or SIGTERM, or the name the host's stop is aborted with. */
  readonly stopped: Promise<NodeJS.Signals>;
  /** Removes the handlers (the signals end the process by themselves again); `stopped` then never resolves. */
  dispose(): void;
}

/**
 * `untilStopped` that can be given up: for a command that ends on its own when its work is done and
 * must leave no signal handler behind then (an in-process host runs many commands).
 *
 * @param abort The host's stop (CliIO's `stop`), if any.
 */
export function watchStop(abort?: AbortSignal): StopWatch {
  let dispose!: () => void;
  const stopped = new Promise<NodeJS.Signals>((resolve) => {
    const stop = (signal: NodeJS.Signals) => {
      dispose();
      resolve(signal);
    };
    const aborted = () => stop(abort!.reason as NodeJS.Signals);
    dispose = () => {
      process.off('SIGINT', stop);
      process.off('SIGTERM', stop);
      abort?.removeEventListener('abort', aborted);
    };
    process.on('SIGINT', stop);
    process.on('SIGTERM', stop);
    if (abort?.aborted) aborted();
    else abort?.addEventListener('abort', aborted);
  });
  return { stopped, dispose };
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
