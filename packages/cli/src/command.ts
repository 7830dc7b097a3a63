// src/cli/command.ts
/** Where a command writes and what it reads: the process's by default, replaced in tests. */
export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
  /**
   * For a host that runs commands in its own process (a test, an embedding tool): aborted with a
   * signal's name (`controller.abort('SIGINT')`), it stops a long-running command (emulator,
   * listen) as that signal does. The bin leaves it out: its commands stop on the process's signals.
   */
  stop?: AbortSignal;
}
/** One `svc-sdk` command: its name, a line for the global help, its own --help text, and its run. */
export interface CliCommand {
  name: string;
  summary: string;
  help: string;
  /**
   * Runs with the arguments after the command's name; resolves with the exit code. Throws UsageError (exit 2) on misuse.
   * Never sees a request for help: the dispatcher answers `--help` and `-h` (see asksForHelp) with `help`,
   * so every command answers it alike; a command reads its flags with args.ts's parseCommandArgs.
   */
  run(args: string[], io: CliIO): Promise<number>;
}
/** A misuse of the command line: printed as `[svc-sdk] …` with the fix, exit code 2. */
export class UsageError extends Error {}

/**
 * Whether a command's `args` ask for its help: `--help` or `-h` anywhere before a `--` (after which
 * everything is an operand). The one rule for every command, applied before its flags are read.
 */
export function asksForHelp(args: readonly string[]): boolean {
  const end = args.indexOf('--');
  return (end === -1 ? args : args.slice(0, end)).some((arg) => arg === '--help' || arg === '-h');
}
