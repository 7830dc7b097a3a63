// The dispatcher (packages/cli/src/run.ts) with commands of the test's own: the global help's layout,
// `help <command>`, a command's --help before `--` only, and how each kind of failure becomes an exit code.
import { describe, expect, it } from 'vitest';
import { UsageError, type CliCommand } from '../../packages/cli/src/command.js';
import { globalHelp, runCli } from '../../packages/cli/src/run.js';
import { memoryIO } from '../uploads/upload-many-support.js';

/** A command that records its arguments and then does `then` (resolve with a code, or throw). */
function command(name: string, then: () => number | never = () => 0): CliCommand & { calls: string[][] } {
  const calls: string[][] = [];
  return {
    name,
    summary: `the ${name} summary`,
    help: `Usage: svc-sdk ${name} (its own help)`,
    calls,
    async run(args) {
      calls.push(args);
      return then();
    },
  };
}

async function dispatch(argv: string[], commands: CliCommand[]) {
  const memory = memoryIO({});
  const code = await runCli(argv, memory.io, commands);
  await new Promise((resolve) => setImmediate(resolve));
  return { code, stdout: memory.out(), stderr: memory.err() };
}

describe('runCli(argv, io, commands)', () => {
  it('lays the global help out with every summary aligned after the longest name', () => {
    expect(globalHelp([command('a'), command('longer')])).toBe(
      [
        'Usage: svc-sdk <command> [options]',
        '',
        'Commands:',
        '  a       the a summary',
        '  longer  the longer summary',
        '',
        'Options:',
        "  -h, --help     Shows this help; svc-sdk <command> --help shows a command's.",
        '  -v, --version  Prints the version.',
        '',
        'Environment: SVC_API_KEY and SVC_BASE_URL (as the Client reads them), SVC_WEBHOOK_SECRET.',
      ].join('\n'),
    );
  });

  it.each([['-h'], ['--help'], ['help'], ['help', 'nope']])('%j prints the global help on stdout and exits 0', async (...argv) => {
    const commands = [command('one'), command('two')];
    expect(await dispatch(argv, commands)).toEqual({ code: 0, stdout: `${globalHelp(commands)}\n`, stderr: '' });
  });

  it('`help <command>` prints that command\'s own help, without running it', async () => {
    const one = command('one');
    const two = command('two');
    expect(await dispatch(['help', 'two'], [one, two])).toEqual({ code: 0, stdout: 'Usage: svc-sdk two (its own help)\n', stderr: '' });
    expect(two.calls).toEqual([]);
  });

  it.each([[['--help']], [['-h']], [['x', '--help', '--', 'y']]])('a command with %j prints its help and does not run', async (args) => {
    const one = command('one');
    expect(await dispatch(['one', ...args], [one])).toEqual({ code: 0, stdout: 'Usage: svc-sdk one (its own help)\n', stderr: '' });
    expect(one.calls).toEqual([]);
  });

  it('runs the command with the arguments after its name, --help after `--` included, and exits with its code', async () => {
    const one = command('one', () => 7);
    const two = command('two');
    expect(await dispatch(['two', 'a'], [one, two])).toEqual({ code: 0, stdout: '', stderr: '' });
    expect(await dispatch(['one', 'x', '--', '--help', '-h'], [one, two])).toEqual({ code: 7, stdout: '', stderr: '' });
    expect(one.calls).toEqual([['x', '--', '--help', '-h']]);
    expect(two.calls).toEqual([['a']]);
  });

  it('exits 2 on a misuse (UsageError), with the message after "[svc-sdk] "', async () => {
    const one = command('one', () => {
      throw new UsageError('--x is wrong: pass --y');
    });
    expect(await dispatch(['one'], [one])).toEqual({ code: 2, stdout: '', stderr: '[svc-sdk] --x is wrong: pass --y\n' });
    expect(await dispatch([], [one, command('two')])).toEqual({ code: 2, stdout: '', stderr: '[svc-sdk] a command is required: "one", "two" (svc-sdk --help)\n' });
    expect(await dispatch(['twp'], [one, command('two')])).toEqual({
      code: 2,
      stdout: '',
      stderr: '[svc-sdk] unknown command "twp": did you mean "two"? use one of "one", "two" (svc-sdk --help)\n',
    });
  });

  it('exits 1 on an error of its own with that line alone, and on any other with its stack', async () => {
    const ours = command('ours', () => {
      throw new Error('[svc-sdk] the peer "msw" is missing: npm install msw');
    });
    expect(await dispatch(['ours'], [ours])).toEqual({ code: 1, stdout: '', stderr: '[svc-sdk] the peer "msw" is missing: npm install msw\n' });

    const bug = new TypeError('x is not a function');
    const crash = command('crash', () => {
      throw bug;
    });
    expect(await dispatch(['crash'], [crash])).toEqual({ code: 1, stdout: '', stderr: `${bug.stack}\n` });
    expect(bug.stack).toMatch(/^TypeError: x is not a function\n {4}at /);

    const stackless = Object.assign(new Error('no stack'), { stack: undefined });
    expect((await dispatch(['bare'], [command('bare', () => { throw stackless; })])).stderr).toBe('Error: no stack\n');
    expect(await dispatch(['odd'], [command('odd', () => { throw 'a string'; })])).toEqual({ code: 1, stdout: '', stderr: 'a string\n' });
  });
});
