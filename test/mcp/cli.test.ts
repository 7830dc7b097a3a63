import { describe, expect, it } from 'vitest';
import { built, run } from '../cli/support.js';

describe.skipIf(!built)('svc-sdk mcp refuses a bad command line, naming the fix, before serving', () => {
  it.each([
    [['--allow-destructive'], /--allow-destructive needs --allow-writes as well/],
    [['--emulator', '--tool', 'deal_delete'], /--tool: no tool is named "deal_delete": choose from deal_room_find/],
    [['--emulator', '--tool', 'deal_create'], /--tool: deal_create changes state: add --allow-writes to list it/],
    [['--emulator', '--allow-writes', '--tool', 'webhook_delete'], /webhook_delete is destructive: add --allow-writes --allow-destructive/],
    [['--emulator', '--no-tool', 'nope'], /--no-tool: no tool is named "nope"/],
    [['--emulator', '--tool', 'action_wait'], /--tool: action_wait reads an action ledger: add --actions-redis <url>/],
    [['--emulator', '--actions-prefix', 'x:'], /--actions-prefix is for --actions-redis: add --actions-redis <url> or leave it out/],
    [['--emulator', '--actions-redis', 'http://x'], /--actions-redis "http:\/\/x" must be a redis:\/\/ or rediss:\/\/ URL/],
    [['--port', '4000'], /--port is for --http: add --http or leave it out/],
    [['--http', '--port', 'x'], /--port must be a whole number from 0 to 65535/],
    [['--frobnicate'], /Unknown option '--frobnicate' \(svc-sdk mcp --help\)/],
    [[], /apiKey is missing: pass it or set SVC_API_KEY.* Or pass --emulator to rehearse/],
  ])('svc-sdk mcp %j', async (args, message) => {
    const result = await run(['mcp', ...args]);
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(message);
    expect(result.stdout).toBe('');
  });

  it('--help names every flag', async () => {
    const result = await run(['mcp', '--help']);
    expect(result.code).toBe(0);
    for (const flag of ['--http', '--port', '--allow-writes', '--allow-destructive', '--tool', '--no-tool', '--emulator', '--allowed-host', '--max-body-bytes', '--actions-redis', '--actions-prefix']) expect(result.stdout).toContain(flag);
  });
});
