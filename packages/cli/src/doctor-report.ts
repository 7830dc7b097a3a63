// How `svc-sdk doctor` prints its checks: one line each, `✓`/`✗` in colour on a terminal and
// `ok`/`fail` otherwise (a log, a CI job), every failure ending with its fix.
import { escapeControl } from './terminal-text.js';

/** One check's outcome: passed, failed (with the fix), or skipped (an earlier step failed, or nothing to check). */
export interface Check {
  readonly name: string;
  readonly status: 'ok' | 'fail' | 'skip';
  /** What was found; text from the network in it is escaped when printed. */
  readonly text: string;
  /** What to do about a failure. */
  readonly fix?: string | undefined;
}

/** A passed check. */
export const pass = (name: string, text: string): Check => ({ name, status: 'ok', text });
/** A failed check and its fix. */
export const fail = (name: string, text: string, fix: string): Check => ({ name, status: 'fail', text, fix });
/** A check not run, and why. */
export const skip = (name: string, text: string): Check => ({ name, status: 'skip', text });

const PLAIN = { ok: 'ok  ', fail: 'fail', skip: 'skip' } as const;
const MARKS = { ok: '\x1b[32m✓\x1b[0m', fail: '\x1b[31m✗\x1b[0m', skip: '\x1b[2m–\x1b[0m' } as const;

/** The line of one check: marked for a terminal (`colour`) or in plain words. */
export function checkLine(check: Check, colour: boolean): string {
  const fix = check.fix === undefined ? '' : `; fix: ${check.fix}`;
  return `${colour ? MARKS[check.status] : PLAIN[check.status]} ${check.name.padEnd(8)} ${escapeControl(check.text + fix)}`;
}

/** `12 h`, `5 min`, `10 min 3 s`, `0.4 s`: a duration as the clock line says it (its sign dropped). */
export function duration(ms: number): string {
  const seconds = Math.abs(ms) / 1000;
  if (seconds < 10) return `${Number(seconds.toFixed(1))} s`;
  const whole = Math.round(seconds);
  if (whole % 3600 === 0) return `${whole / 3600} h`;
  return whole < 60 ? `${whole} s` : `${Math.floor(whole / 60)} min${whole % 60 ? ` ${whole % 60} s` : ''}`;
}
