// src/cli/command.ts
/** Where a command writes and what it reads: the process's by default, replaced in tests. */
export interface CliIO {
  stdout: NodeJS.WritableStream & { isTTY?: boolean; columns?: number };
  stderr: NodeJS.WritableStream;
  env: NodeJS.ProcessEnv;
}
/** One `svc-sdk` command: its name, a line for the global help, its own --help text, and its run. */
export interface CliCommand {
  name: string;
  summary: string;
  help: string;
  /** Runs with the arguments after the command's name; resolves with the exit code. Throws UsageError (exit 2) on misuse. */
  run(args: string[], io: CliIO): Promise<number>;
}
/** A misuse of the command line: printed as `[svc-sdk] …` with the fix, exit code 2. */
export class UsageError extends Error {}
