// What `svc-sdk upload` prints: the progress (a bar redrawn in place on a terminal, a line per settled
// file otherwise) and the summary of the run. Every file name and service message goes through
// escapeControl: a hostile name or answer cannot move the cursor, clear the screen or forge a line.
import { APIConnectionError, APIError, APITimeoutError, AuthenticationError, NotFoundError, PermissionDeniedError } from 'svc-sdk';
import type { UploadManyFile, UploadManyProgress, UploadManyResult } from 'svc-sdk';
import type { CliIO } from './command.js';
import { escapeControl } from './terminal-text.js';

/** Redraws of the progress bar at most this often. */
const REDRAW_MS = 100;
/** Files named on the line of a reason shared by several files; the rest are a count. */
const NAMED_PER_REASON = 3;

/** The progress of a run as it goes, and its last bar drawn from the outcome. */
export interface ProgressDisplay {
  /** `onProgress` of uploadMany. */
  update(progress: UploadManyProgress): void;
  /**
   * Stops drawing from progress (after Ctrl+C): what is reported next may count files that end
   * unsent as done, so the bar waits for `end` and the outcome.
   */
  freeze(): void;
  /** Ends the display: on a terminal the bar is drawn once more from what was stored, never from what was only attempted. */
  end(result?: UploadManyResult): void;
}

/** A bar redrawn in place on a terminal; a line per settled file count otherwise. */
export function progressDisplay(io: CliIO): ProgressDisplay {
  const tty = io.stdout.isTTY === true;
  let lastDraw = 0;
  let lastFiles = 0;
  let drawn = false;
  let frozen = false;
  let latest: UploadManyProgress | undefined;
  // A report held back by the redraw limit is drawn when the limit allows: the bar never lags for long.
  let pending: ReturnType<typeof setTimeout> | undefined;
  const drawBar = (share: number, text: string) => {
    const width = Math.max(10, Math.min(30, (io.stdout.columns ?? 80) - 60));
    const filled = Math.min(width, Math.max(0, Math.floor(share * width)));
    io.stdout.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${text}\u001b[K`);
    drawn = true;
  };
  const draw = (progress: UploadManyProgress) => {
    // Sent plus skipped (stored by an earlier run): the bar fills only with work that is done.
    const done = progress.bytesDone + progress.bytesSkipped;
    const share = progress.bytesTotal ? done / progress.bytesTotal : progress.filesTotal ? progress.filesDone / progress.filesTotal : 0;
    drawBar(share, describe(progress));
  };
  return {
    update(progress) {
      if (frozen) return;
      latest = progress;
      if (tty) {
        const now = progress.elapsedMs;
        if (now - lastDraw < REDRAW_MS && progress.filesDone !== progress.filesTotal) {
          pending ??= setTimeout(() => {
            pending = undefined;
            if (frozen || !latest) return;
            lastDraw = latest.elapsedMs;
            draw(latest);
          }, REDRAW_MS - (now - lastDraw));
          pending.unref?.();
          return;
        }
        lastDraw = now;
        draw(progress);
      } else if (progress.filesDone !== lastFiles) {
        lastFiles = progress.filesDone;
        io.stdout.write(`${describe(progress)}\n`);
      }
    },
    freeze() {
      frozen = true;
    },
    end(result) {
      frozen = true;
      clearTimeout(pending);
      if (tty && result) {
        // Stored (uploaded or skipped) over all: failed, unknown and never-started files do not fill the bar.
        const all = [...result.uploaded, ...result.skipped, ...result.failed, ...result.unknown, ...result.notStarted];
        const stored = [...result.uploaded, ...result.skipped];
        const total = bytesOf(all);
        const share = total > 0 ? bytesOf(stored) / total : all.length ? stored.length / all.length : 1;
        drawBar(share, `${stored.length}/${all.length} files stored  ${formatBytes(bytesOf(stored))}/${formatBytes(total)}`);
      } else if (tty && latest) {
        draw(latest);
      }
      if (drawn) io.stdout.write('\n');
    },
  };
}

function describe(progress: UploadManyProgress): string {
  const { filesDone, filesTotal, bytesTotal, bytesPerSecond } = progress;
  const done = progress.bytesDone + progress.bytesSkipped;
  const parts = [`${filesDone}/${filesTotal ?? '?'} files`, `${formatBytes(done)}/${bytesTotal === undefined ? '?' : formatBytes(bytesTotal)}`, `${formatBytes(bytesPerSecond)}/s`];
  if (bytesTotal !== undefined && bytesPerSecond > 0 && done < bytesTotal) parts.push(`ETA ${formatDuration((bytesTotal - done) / bytesPerSecond)}`);
  return parts.join('  ');
}

/** Bytes for people: B, KiB, MiB, GiB with one decimal above bytes. */
export function formatBytes(bytes: number): string {
  const units = ['B', 'KiB', 'MiB', 'GiB', 'TiB'];
  let value = bytes;
  let unit = 0;
  while (value >= 1024 && unit < units.length - 1) {
    value /= 1024;
    unit += 1;
  }
  return unit === 0 ? `${Math.round(value)} B` : `${value.toFixed(1)} ${units[unit]}`;
}

function formatDuration(seconds: number): string {
  const whole = Math.ceil(seconds);
  if (whole < 60) return `${whole}s`;
  if (whole < 3600) return `${Math.floor(whole / 60)}m${String(whole % 60).padStart(2, '0')}s`;
  return `${Math.floor(whole / 3600)}h${String(Math.floor((whole % 3600) / 60)).padStart(2, '0')}m`;
}

const bytesOf = (files: readonly UploadManyFile[]) => files.reduce((sum, file) => sum + (file.size ?? 0), 0);

/** What the summary needs besides the result: the options a fix names, and the signal that stopped the run. */
export interface SummaryContext {
  roomId: number;
  /** The service's origin, named when it could not be reached. */
  origin: string;
  /** The first SIGINT or SIGTERM, when one stopped the run. */
  signal: NodeJS.Signals | undefined;
  /** Whether a second signal aborted the files being sent. */
  aborted?: boolean | undefined;
}

/**
 * The summary: a table of the five states, why the run stopped (one line), the run's notes, each failed and unknown
 * file with its reason (files sharing a reason on one line), and what to do next. The advice is
 * always safe to follow: the run always has a manifest, so a rerun skips what is stored.
 */
export function summary(result: UploadManyResult, context: SummaryContext): string {
  const rows: Array<[string, readonly UploadManyFile[]]> = [
    ['uploaded', result.uploaded],
    ['skipped', result.skipped],
    ['failed', result.failed],
    ['unknown', result.unknown],
    ['not started', result.notStarted],
  ];
  const lines = ['state        files  bytes'];
  for (const [state, files] of rows) lines.push(`${state.padEnd(11)}  ${String(files.length).padStart(5)}  ${formatBytes(bytesOf(files))}`);
  const { stopped } = result;
  const fatal = stopped?.reason === 'fatal' ? stopped : undefined;
  if (stopped) lines.push(stopLine(stopped, context));
  for (const note of result.notes) lines.push(`note: ${reason(note)}`);
  // Files refused for the reason that stopped the run are a count on its line's heels, not a line each.
  const refused = new Set(fatal ? result.failed.filter((file) => sameCause(file.error, fatal.error, fatal.message)) : []);
  if (refused.size) lines.push(`failed   ${refused.size} ${refused.size === 1 ? 'file' : 'files'} refused for that reason: ${namedFew([...refused])}`);
  lines.push(...byReason('failed ', result.failed.filter((file) => !refused.has(file)), (file) => reason(file.error) + unreachable(file.error, context)));
  lines.push(...byReason('unknown', result.unknown, (file) => (file.error === undefined ? 'left unknown by an earlier run' : reason(file.error) + unreachable(file.error, context))));
  if (fatal) {
    lines.push('No file started after it. Fix the cause, then run the same command again: files already stored are skipped.');
  } else if (result.failed.length || result.notStarted.length) {
    lines.push(`${result.failed.length ? 'Failed' : 'Not started'} files were not stored: run the same command again to send them (files already stored are skipped).`);
  }
  if (result.unknown.length) {
    lines.push('Unknown files were sent but no answer came: they may be stored. Check the room, then add --retry-unknown to send them again.');
  }
  return `${lines.join('\n')}\n`;
}

function stopLine(stopped: NonNullable<UploadManyResult['stopped']>, context: SummaryContext): string {
  const signal = context.signal ?? 'a signal';
  // A second signal aborts the files a first one let finish: the run still stopped at the first.
  if (stopped.reason === 'aborted' || (stopped.reason === 'stopSignal' && context.aborted)) return `stopped: ${signal} received twice, the files being sent were aborted`;
  if (stopped.reason === 'stopSignal') return `stopped: ${signal} received, no file started after it; the files being sent finished`;
  const hint = stopped.reason === 'fatal' ? fix(stopped.error, context) : '';
  // With a fix to name, the service's own answer says why better than the library's sentence around it.
  return `stopped: ${hint ? reason(stopped.error) : reason(stopped.message)}${hint}`;
}

/** The fix for files that failed because the service could not be reached (it is down, or SVC_BASE_URL is wrong). */
function unreachable(error: unknown, context: SummaryContext): string {
  return error instanceof APIConnectionError && !(error instanceof APITimeoutError) ? fix(error, context) : '';
}

/** What to check after a fatal answer: the key, the room or the service's address. */
function fix(error: unknown, context: SummaryContext): string {
  if (error instanceof AuthenticationError || error instanceof PermissionDeniedError) return ' (check SVC_API_KEY: the service refused this key)';
  if (error instanceof NotFoundError) return ` (check --room ${context.roomId}: the service has no such room for this key)`;
  if (error instanceof APIConnectionError && !(error instanceof APITimeoutError)) return ` (check SVC_BASE_URL: is the service at ${escapeControl(context.origin)} running?)`;
  return '';
}

function sameCause(error: unknown, fatal: unknown, message: string): boolean {
  if (fatal !== undefined && error === fatal) return true;
  if (error instanceof APIError && fatal instanceof APIError) return error.status === fatal.status;
  if (error instanceof APIConnectionError && fatal instanceof APIConnectionError) return true;
  return reason(error) === escapeControl(message.replace(/^\[svc-sdk\] /, ''));
}

/** One line per distinct reason, naming its file, or its first few and a count of the rest. */
function byReason<T extends UploadManyFile>(label: string, files: readonly T[], reasonOf: (file: T) => string): string[] {
  const groups = new Map<string, T[]>();
  for (const file of files) {
    const key = reasonOf(file);
    const group = groups.get(key);
    if (group) group.push(file);
    else groups.set(key, [file]);
  }
  return [...groups].map(([why, group]) => `${label}  ${namedFew(group)}: ${why}`);
}

function namedFew(files: readonly UploadManyFile[]): string {
  const named = files.slice(0, NAMED_PER_REASON).map((file) => escapeControl(file.path));
  const rest = files.length - named.length;
  return rest > 0 ? `${named.join(', ')} and ${rest} more` : named.join(', ');
}

/** An error's message for the summary, without the package prefix, control characters escaped. */
export function reason(error: unknown): string {
  return escapeControl((error instanceof Error ? error.message : String(error)).replace(/^\[svc-sdk\] /, ''));
}
