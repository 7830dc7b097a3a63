// `svc-sdk upload <dir> --room <id>`: documents.uploadMany from the command line, with a progress
// bar on a terminal, plain lines otherwise, a stop in two steps on Ctrl+C or SIGTERM and a summary.
// Every run has a manifest (the user's, or one the CLI keeps in the state directory), so the advice to
// run the same command again never sends a stored document twice.
import { Client, ValidationError } from 'svc-sdk';
import { DEFAULT_UPLOAD_CONCURRENCY, MAX_UPLOAD_CONCURRENCY } from 'svc-sdk/internal';
import type { UploadManyResult } from 'svc-sdk';
import { integerFlag, parseCommandArgs, stringFlag } from '../args.js';
import { UsageError, type CliCommand, type CliIO } from '../command.js';
import { signalExitCode, stopInTwoSteps } from '../signals.js';
import { escapeControl } from '../terminal-text.js';
import { progressDisplay, summary } from '../upload-display.js';
import { createUploadStateDirectory, folderKey, uploadStatePath } from '../upload-state.js';

const HELP = `Usage: svc-sdk upload <dir> --room <id> [--concurrency n] [--manifest file] [--retry-unknown]

Uploads every file below <dir> (recursively, symlinks not followed) to a data room,
<n> at a time (default ${DEFAULT_UPLOAD_CONCURRENCY}), with SVC_API_KEY and SVC_BASE_URL from the environment.

Options:
  --room <id>         The room's id.
  --concurrency <n>   Files sent at once, 1 to ${MAX_UPLOAD_CONCURRENCY}. Default ${DEFAULT_UPLOAD_CONCURRENCY}.
  --manifest <file>   The JSON Lines record of the run: a rerun with it skips the files
                      already stored and never resends one whose outcome is unknown.
                      Default: one kept per service, room and folder in
                      $XDG_STATE_HOME/svc-sdk/uploads (~/.local/state/svc-sdk/uploads;
                      %LOCALAPPDATA%\\svc-sdk\\uploads on Windows); the run prints its path.
  --retry-unknown     Resend the files the manifest has as unknown (the body was sent,
                      no answer came: they may be stored already).
  -h, --help          Shows this help.

A 401, 403 or 404 for the room stops the run at once; the summary says why in one line.
Ctrl+C (or SIGTERM) stops starting files and lets the ones being sent finish, their outcome
recorded; a second one aborts them. Running the same command again is always safe.
Exit code 0 when every file is uploaded or skipped, 1 otherwise, 130 after Ctrl+C (143 after SIGTERM).`;

/** `svc-sdk upload`. */
export const upload: CliCommand = {
  name: 'upload',
  summary: 'Uploads a folder to a data room: concurrent, resumable, never a document twice.',
  help: HELP,
  async run(args, io) {
    const options = parseOptions(args);
    const client = createClient(io);
    // Two steps: the first signal stops new files (those being sent finish, their outcome recorded), the second aborts them.
    // Handled from before the manifest line is printed: a stop at any point after it gets the summary.
    const stopStarting = new AbortController();
    const abortSending = new AbortController();
    const display = progressDisplay(io);
    const stop = stopInTwoSteps(
      (signal) => {
        display.freeze();
        io.stderr.write(`\n[svc-sdk] ${signal}: no new file starts; the files being sent finish (${signal === 'SIGINT' ? 'Ctrl+C' : signal} again aborts them)\n`);
        stopStarting.abort(new Error(`stopped by ${signal}`));
      },
      (signal) => {
        io.stderr.write(`\n[svc-sdk] ${signal} again: aborting the files being sent (their outcome goes to the manifest)\n`);
        abortSending.abort(new Error(`aborted by a second ${signal}`));
      },
    );
    let result: UploadManyResult;
    try {
      const manifest = options.manifest ?? stateManifest(io, client, options);
      result = await client.documents.uploadMany(options.room, options.dir, {
        concurrency: options.concurrency,
        manifest,
        retryUnknown: options.retryUnknown,
        stopSignal: stopStarting.signal,
        signal: abortSending.signal,
        onProgress: display.update,
      });
    } catch (error) {
      display.end();
      if (error instanceof ValidationError || (error instanceof Error && error.message.startsWith('[svc-sdk] '))) {
        io.stderr.write(`${escapeControl(error.message)}\n`);
        return stop.signal ? signalExitCode(stop.signal) : 1;
      }
      throw error;
    } finally {
      stop.dispose();
    }
    display.end(result);
    io.stdout.write(summary(result, { roomId: options.room, origin: new URL(client.baseUrl).origin, signal: stop.signal, aborted: abortSending.signal.aborted }));
    if (stop.signal) return signalExitCode(stop.signal);
    const complete = result.failed.length === 0 && result.unknown.length === 0 && result.notStarted.length === 0 && result.stopped === undefined;
    return complete ? 0 : 1;
  },
};

/**
 * The manifest the CLI keeps when none is given, in the user's state directory, and a line saying
 * where. `undefined` when the folder cannot be read: uploadMany then says why, and no file is made.
 */
function stateManifest(io: CliIO, client: Client, options: UploadArgs): string | undefined {
  const folder = folderKey(options.dir);
  if (folder === undefined) return undefined;
  const path = uploadStatePath(io.env, { origin: new URL(client.baseUrl).origin, roomId: options.room, folder });
  createUploadStateDirectory(path);
  io.stderr.write(`[svc-sdk] manifest: ${escapeControl(path)} (kept for this service, room and folder; a rerun skips what is stored)\n`);
  return path;
}

interface UploadArgs {
  dir: string;
  room: number;
  concurrency: number | undefined;
  manifest: string | undefined;
  retryUnknown: boolean;
}

function parseOptions(args: string[]): UploadArgs {
  const parsed = parseCommandArgs('upload', args, { room: { type: 'string' }, concurrency: { type: 'string' }, manifest: { type: 'string' }, 'retry-unknown': { type: 'boolean' } }, true);
  const [dir, ...extra] = parsed.positionals;
  if (dir === undefined) throw new UsageError('upload needs a directory: svc-sdk upload <dir> --room <id>');
  if (extra.length) throw new UsageError(`upload takes one directory, got also: ${extra.map(escapeControl).join(' ')}`);
  const room = stringFlag(parsed, 'room');
  if (room === undefined || !/^[1-9][0-9]*$/.test(room) || !Number.isSafeInteger(Number(room))) {
    throw new UsageError(`--room is required: the room's id, a whole number such as 7${room === undefined ? '' : ` (got "${escapeControl(room)}")`}`);
  }
  const concurrency = stringFlag(parsed, 'concurrency');
  const manifest = stringFlag(parsed, 'manifest');
  if (manifest === '') throw new UsageError('--manifest must be a file path');
  return {
    dir,
    room: Number(room),
    concurrency: concurrency === undefined ? undefined : integerFlag(concurrency, '--concurrency', 1, MAX_UPLOAD_CONCURRENCY),
    manifest,
    retryUnknown: parsed.values['retry-unknown'] === true,
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
