// One argument reader and one --help for every command (issue 46): each command's flags go through
// args.ts's parseCommandArgs (strict, the nearest flag offered for a typo) and its help is answered by the
// dispatcher, in one shape. Run through runCli with the bin's commands, and the upload typo also through the built bin.
import { readdirSync, readFileSync } from 'node:fs';
import { describe, expect, it } from 'vitest';
import { COMMANDS } from '../../packages/cli/src/commands/index.js';
import { built, run, runBin } from './support.js';

describe('every command', () => {
  it.each(COMMANDS.map((command) => [command.name, command.help] as const))('%s --help and -h print its help in the common shape, and exit 0', async (name, help) => {
    expect(await run([name, '--help'])).toEqual({ code: 0, stdout: `${help}\n`, stderr: '' });
    expect(await run([name, '-h'])).toEqual({ code: 0, stdout: `${help}\n`, stderr: '' });
    // The shape: a usage line naming the command, an Options: section, and -h, --help in it.
    expect(help).toMatch(new RegExp(`^Usage: svc-sdk ${name}\\b`));
    expect(help).toMatch(/\n\nOptions:\n( {2}-.*\n|  {2,}.*\n)*? {2}-h, --help +Shows this help\.(\n|$)/);
  });

  // A typo of one of the command's own flags: the same message, naming the flag meant, on every command.
  it.each([
    [['upload', 'd', '--room', '1', '--concurency', '2'], '--concurency', '--concurrency', 'upload'],
    [['upload', 'd', '--rom', '1'], '--rom', '--room', 'upload'],
    [['upload', 'd', '--room', '1', '--retry-unknwn'], '--retry-unknwn', '--retry-unknown', 'upload'],
    [['emulator', '--prot', '4010'], '--prot', '--port', 'emulator'],
    [['listen', '--forward-too', 'http://127.0.0.1:1/'], '--forward-too', '--forward-to', 'listen'],
    [['doctor', '--timout', '5'], '--timout', '--timeout', 'doctor'],
    [['mcp', '--prot', '1'], '--prot', '--port', 'mcp'],
  ])('%j exits 2: did you mean the flag', async (args, typo, meant, command) => {
    expect(await run(args)).toEqual({
      code: 2,
      stdout: '',
      stderr: `[svc-sdk] Unknown option '${typo}': did you mean "${meant}"? (svc-sdk ${command} --help)\n`,
    });
  });

  it('upload reads its flags as the others do: a value quoted with its controls escaped, --help after -- an operand', async () => {
    expect((await run(['upload', 'd', '--room', '1', '--concurrency', '\u001b[2J9'])).stderr).toBe('[svc-sdk] --concurrency must be a whole number from 1 to 64, got "\\x1b[2J9"\n');
    expect(await run(['upload', 'd', '--room', '1', '--', '--help'])).toEqual({ code: 2, stdout: '', stderr: '[svc-sdk] upload takes one directory, got also: --help\n' });
    expect((await run(['upload', 'd', '--room=1', '--concurrency=3', '--retry-unknown'], { SVC_BASE_URL: 'http://127.0.0.1:9' })).stderr).toBe(
      '[svc-sdk] apiKey is missing: set SVC_API_KEY (the emulator prints both: svc-sdk emulator)\n',
    );
  });

  it.skipIf(!built)('the built bin: upload with a mistyped flag says which one was meant', async () => {
    expect(await runBin(['upload', 'd', '--room', '1', '--concurency', '2'])).toEqual({
      code: 2,
      stdout: '',
      stderr: `[svc-sdk] Unknown option '--concurency': did you mean "--concurrency"? (svc-sdk upload --help)\n`,
    });
  });
});

describe('the CLI sources', () => {
  const root = new URL('../../packages/cli/src/', import.meta.url);
  const sources = readdirSync(root, { recursive: true, encoding: 'utf8' })
    .filter((file) => file.endsWith('.ts'))
    .map((file) => [file.replaceAll('\\', '/'), readFileSync(new URL(file, root), 'utf8')] as const);

  it('read arguments in one place (args.ts) and answer --help in one (command.ts)', () => {
    expect(sources.filter(([, text]) => /\bparseArgs\b/.test(text)).map(([file]) => file)).toEqual(['args.ts']);
    expect(sources.filter(([, text]) => /=== '(--help|-h)'/.test(text)).map(([file]) => file).sort()).toEqual(['command.ts', 'run.ts']);
  });
});
