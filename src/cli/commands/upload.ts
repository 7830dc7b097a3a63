// `svc-sdk upload <dir> --room <id>`: documents.uploadMany from the command line, with a progress
// bar on a terminal, plain lines otherwise, a clean stop on Ctrl+C and a summary table.
import { parseArgs } from 'node:util';
import { Client } from '../../client.js';
import { ValidationError } from '../../core/errors.js';
import { useFileSystem } from '../../uploads/file-system.js';
import { nodeFileSystem } from '../../uploads/file-system-node.js';
import type { UploadManyProgress, UploadManyResult } from '../../uploads/upload-many-types.js';
import { UsageError, type CliCommand, type CliIO } from '../command.js';

const HELP = `Usage: svc-sdk upload <dir> --room <id> [--concurrency n] [--manifest file] [--retry-unknown]

Uploads every file below <dir> (recursively, symlinks not followed) to a data room,
<n> at a time (default 4), with SVC_API_KEY and SVC_BASE_URL from the environment.

  --room <id>         The room's id.
  --concurrency <n>   Files sent at once, 1 to 64. Default 4.
  --manifest <file>   A JSON Lines record of the run: a rerun with it skips the files
                      already stored and never resends one whose outcome is unknown.
  --retry-unknown     Resend the files the manifest has as unknown (the body was sent,
                      no answer came: they may be stored already).

Ctrl+C stops cleanly: files being sent end unknown or failed, the manifest is complete.
Exit code 0 when every file is uploaded or skipped, 1 otherwise, 130 when interrupted.`;

/** Redraws of the progress bar at most this often. */
const REDRAW_MS = 100;

/** `svc-sdk upload`. */
export const upload: CliCommand = {
  name: 'upload',
  summary: 'Uploads a folder to a data room: concurrent, resumable with --manifest, never a document twice.',
  help: HELP,
  async run(args, io) {
    // What the node entry registers; the bin does not load that entry (its code stays in the entry's own file).
    useFileSystem(nodeFileSystem);
    const options = parseOptions(args);
    if (options === 'help') {
      io.stdout.write(`${HELP}\n`);
      return 0;
    }
    const client = createClient(io);
    const controller = new AbortController();
    let interrupted = false;
    const onInterrupt = () => {
      if (interrupted) return;
      interrupted = true;
      io.stderr.write('\n[svc-sdk] stopping: waiting for the files being sent (their outcome goes to the manifest)\n');
      controller.abort(new Error('interrupted (Ctrl+C)'));
    };
    process.on('SIGINT', onInterrupt);
    const display = progressDisplay(io);
    if (options.manifest === undefined) io.stderr.write('[svc-sdk] no --manifest: a rerun will send every file again\n');
    let result: UploadManyResult;
    try {
      result = await client.documents.uploadMany(options.room, options.dir, {
        concurrency: options.concurrency,
        manifest: options.manifest,
        retryUnknown: options.retryUnknown,
        signal: controller.signal,
        onProgress: display.update,
      });
    } catch (error) {
      display.end();
      if (error instanceof ValidationError || (error instanceof Error && error.message.startsWith('[svc-sdk] '))) {
        io.stderr.write(`${error.message}\n`);
        return 1;
      }
      throw error;
    } finally {
      process.off('SIGINT', onInterrupt);
    }
    display.end();
    io.stdout.write(summary(result));
    if (interrupted) return 130;
    return result.failed.length === 0 && result.unknown.length === 0 ? 0 : 1;
  },
};

interface UploadArgs {
  dir: string;
  room: number;
  concurrency: number | undefined;
  manifest: string | undefined;
  retryUnknown: boolean;
}

function parseOptions(args: string[]): UploadArgs | 'help' {
  let parsed;
  try {
    parsed = parseArgs({
      args,
      options: {
        room: { type: 'string' },
        concurrency: { type: 'string' },
        manifest: { type: 'string' },
        'retry-unknown': { type: 'boolean' },
        help: { type: 'boolean', short: 'h' },
      },
      allowPositionals: true,
      strict: true,
    });
  } catch (error) {
    throw new UsageError(`${(error as Error).message.replace(/\. To specify.*$/s, '')} (svc-sdk upload --help)`);
  }
  const { values, positionals } = parsed;
  if (values.help) return 'help';
  const [dir, ...extra] = positionals;
  if (dir === undefined) throw new UsageError('upload needs a directory: svc-sdk upload <dir> --room <id>');
  if (extra.length) throw new UsageError(`upload takes one directory, got also: ${extra.join(' ')}`);
  if (values.room === undefined || !/^[1-9][0-9]*$/.test(values.room) || !Number.isSafeInteger(Number(values.room))) {
    throw new UsageError(`--room is required: the room's id, a whole number such as 7${values.room === undefined ? '' : ` (got "${values.room}")`}`);
  }
  const { concurrency } = values;
  if (concurrency !== undefined && !(/^[0-9]+$/.test(concurrency) && Number(concurrency) >= 1 && Number(concurrency) <= 64)) {
    throw new UsageError(`--concurrency must be a whole number from 1 to 64, got "${concurrency}"`);
  }
  if (values.manifest === '') throw new UsageError('--manifest must be a file path');
  return {
    dir,
    room: Number(values.room),
    concurrency: concurrency === undefined ? undefined : Number(concurrency),
    manifest: values.manifest,
    retryUnknown: values['retry-unknown'] === true,
  };
}

function createClient(io: CliIO): Client {
  try {
    // maxRetries 0: an upload is never retried anyway; this keeps other calls as plain as the uploads.
    return new Client({ apiKey: io.env['SVC_API_KEY'], baseUrl: io.env['SVC_BASE_URL'], maxRetries: 0 });
  } catch (error) {
    if (!(error instanceof ValidationError)) throw error;
    const missing = error.issues.map((issue) => issue.message.replace(/: pass it or set (\w+)$/, ': set $1'));
    throw new UsageError(`${missing.join('; ')} (the emulator prints both: svc-sdk emulator)`);
  }
}

/** A bar redrawn in place on a terminal; a line per settled file count otherwise. */
function progressDisplay(io: CliIO) {
  const tty = io.stdout.isTTY === true;
  let lastDraw = 0;
  let lastFiles = 0;
  let drawn = false;
  let latest: UploadManyProgress | undefined;
  const draw = (progress: UploadManyProgress) => {
    const width = Math.max(10, Math.min(30, (io.stdout.columns ?? 80) - 60));
    const share = progress.bytesTotal ? progress.bytesDone / progress.bytesTotal : progress.filesTotal ? progress.filesDone / progress.filesTotal : 0;
    const filled = Math.round(share * width);
    io.stdout.write(`\r[${'#'.repeat(filled)}${'-'.repeat(width - filled)}] ${describe(progress)}\u001b[K`);
    drawn = true;
  };
  return {
    update(progress: UploadManyProgress) {
      latest = progress;
      if (tty) {
        const now = progress.elapsedMs;
        if (now - lastDraw < REDRAW_MS && progress.filesDone !== progress.filesTotal) return;
        lastDraw = now;
        draw(progress);
      } else if (progress.filesDone !== lastFiles) {
        lastFiles = progress.filesDone;
        io.stdout.write(`${describe(progress)}\n`);
      }
    },
    end() {
      if (tty && latest) draw(latest);
      if (drawn) io.stdout.write('\n');
    },
  };
}

function describe(progress: UploadManyProgress): string {
  const { filesDone, filesTotal, bytesDone, bytesTotal, bytesPerSecond } = progress;
  const parts = [`${filesDone}/${filesTotal ?? '?'} files`, `${formatBytes(bytesDone)}/${bytesTotal === undefined ? '?' : formatBytes(bytesTotal)}`, `${formatBytes(bytesPerSecond)}/s`];
  if (bytesTotal !== undefined && bytesPerSecond > 0 && bytesDone < bytesTotal) parts.push(`ETA ${formatDuration((bytesTotal - bytesDone) / bytesPerSecond)}`);
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

/** The table of states, then each failed and unknown file with its reason. */
function summary(result: UploadManyResult): string {
  const rows: Array<[string, ReadonlyArray<{ size: number | undefined }>]> = [
    ['uploaded', result.uploaded],
    ['skipped', result.skipped],
    ['failed', result.failed],
    ['unknown', result.unknown],
  ];
  const lines = ['state     files  bytes'];
  for (const [state, files] of rows) {
    const bytes = files.reduce((sum, file) => sum + (file.size ?? 0), 0);
    lines.push(`${state.padEnd(8)}  ${String(files.length).padStart(5)}  ${formatBytes(bytes)}`);
  }
  for (const file of result.failed) lines.push(`failed   ${file.path}: ${reason(file.error)}`);
  for (const file of result.unknown) lines.push(`unknown  ${file.path}: ${file.error === undefined ? 'left unknown by an earlier run' : reason(file.error)}`);
  if (result.failed.length) lines.push('Failed files were not stored: run the same command again to send them.');
  if (result.unknown.length) {
    lines.push('Unknown files were sent but no answer came: they may be stored. Check the room, then add --retry-unknown to send them again.');
  }
  return `${lines.join('\n')}\n`;
}

function reason(error: unknown): string {
  return error instanceof Error ? error.message.replace(/^\[svc-sdk\] /, '') : String(error);
}
