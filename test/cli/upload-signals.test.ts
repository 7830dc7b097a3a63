import { afterEach, describe, expect, it } from 'vitest';
import { signalExitCode, stopInTwoSteps, type TwoStepStop } from '../../packages/cli/src/signals.js';

// The two-step stop of `svc-sdk upload`, with the signals emitted on this process (no real signal is sent:
// the listeners are what a real one reaches).

let stop: TwoStepStop | undefined;
afterEach(() => stop?.dispose());

describe('stopInTwoSteps(first, second)', () => {
  it.each(['SIGINT', 'SIGTERM'] as const)('the first %s calls first, the next signal of either kind second, any later one nothing', (signal) => {
    const calls: string[] = [];
    stop = stopInTwoSteps((got) => calls.push(`first ${got}`), (got) => calls.push(`second ${got}`));
    expect(stop.signal).toBeUndefined();
    process.emit(signal, signal);
    expect(calls).toEqual([`first ${signal}`]);
    expect(stop.signal).toBe(signal);
    process.emit('SIGINT', 'SIGINT');
    process.emit('SIGTERM', 'SIGTERM');
    expect(calls).toEqual([`first ${signal}`, 'second SIGINT']);
    expect(stop.signal).toBe(signal);
  });

  it('dispose() removes its handlers: the signals are the process default again', () => {
    const before = [process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')];
    stop = stopInTwoSteps(() => undefined, () => undefined);
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual([before[0]! + 1, before[1]! + 1]);
    stop.dispose();
    expect([process.listenerCount('SIGINT'), process.listenerCount('SIGTERM')]).toEqual(before);
  });
});

describe('signalExitCode(signal)', () => {
  it.each([
    ['SIGINT', 130],
    ['SIGTERM', 143],
    ['SIGHUP', 129],
  ] as const)('%s: %i, as a shell reports it', (signal, code) => {
    expect(signalExitCode(signal)).toBe(code);
  });
});
