// The dispatcher: global flags, the command's own --help, and how a failure becomes an exit code.
import { VERSION } from 'svc-sdk/internal';
import { asksForHelp, UsageError, type CliCommand, type CliIO } from './command.js';
import { println } from './signals.js';
import { didYouMean } from './suggest.js';

/** The global help: every command's name and summary. */
export function globalHelp(commands: readonly CliCommand[]): string {
  const width = Math.max(...commands.map((command) => command.name.length));
  return [
    'Usage: svc-sdk <command> [options]',
    '',
    'Commands:',
    ...commands.map((command) => `  ${command.name.padEnd(width)}  ${command.summary}`),
    '',
    'Options:',
    '  -h, --help     Shows this help; svc-sdk <command> --help shows a command\'s.',
    '  -v, --version  Prints the version.',
    '',
    'Environment: SVC_API_KEY and SVC_BASE_URL (as the Client reads them), SVC_WEBHOOK_SECRET.',
  ].join('\n');
}

/**
 * Runs one command line (the arguments after `svc-sdk`) and resolves with the exit code: 0 done,
 * 1 failed (the message says why), 2 misused (the message says the fix). Never rejects.
 */
export async function runCli(argv: readonly string[], io: CliIO, commands: readonly CliCommand[]): Promise<number> {
  const [name, ...args] = argv;
  const names = commands.map((command) => `"${command.name}"`).join(', ');
  try {
    if (name === undefined) throw new UsageError(`a command is required: ${names} (svc-sdk --help)`);
    if (name === '-h' || name === '--help') return print(io, globalHelp(commands));
    if (name === '-v' || name === '--version') return print(io, VERSION);
    if (name === 'help') {
      const topic = args[0] === undefined ? undefined : commands.find((command) => command.name === args[0]);
      return print(io, topic?.help ?? globalHelp(commands));
    }
    const command = commands.find((candidate) => candidate.name === name);
    if (command === undefined) throw new UsageError(`unknown command "${name}": ${didYouMean(name, commands.map((known) => known.name))}use one of ${names} (svc-sdk --help)`);
    if (asksForHelp(args)) return print(io, command.help);
    return await command.run(args, io);
  } catch (error) {
    if (error instanceof UsageError) {
      println(io.stderr, `[svc-sdk] ${error.message}`);
      return 2;
    }
    if (error instanceof Error && error.message.startsWith('[svc-sdk] ')) {
      // Ours, and it says what to do (a missing peer names the install command): the line alone.
      println(io.stderr, error.message);
      return 1;
    }
    println(io.stderr, error instanceof Error ? (error.stack ?? String(error)) : String(error));
    return 1;
  }
}

function print(io: CliIO, text: string): number {
  println(io.stdout, text);
  return 0;
}
