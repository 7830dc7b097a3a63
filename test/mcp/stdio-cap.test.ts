// The stdio line cap: a message over it is answered as a protocol error and logged, and the
// server reads on. In process on streams (the cap's code), then the built bin over a real pipe.
import { spawn } from 'node:child_process';
import { PassThrough } from 'node:stream';
import { describe, expect, it } from 'vitest';
import { cappedLines, DEFAULT_MAX_LINE_BYTES } from '../../packages/mcp/src/stdio-cap.js';
import { built, CLI, cliEnv } from '../cli/support.js';
import { tempDir } from './support.js';

function capped(maxBytes: number) {
  const input = new PassThrough();
  const stdout = new PassThrough();
  const logged: string[] = [];
  const passed: string[] = [];
  const answered: string[] = [];
  const output = cappedLines(input, stdout, (line) => logged.push(line), maxBytes);
  output.on('data', (chunk: Buffer) => passed.push(chunk.toString()));
  stdout.on('data', (chunk: Buffer) => answered.push(chunk.toString()));
  const flush = () => new Promise((resolve) => setImmediate(resolve));
  return { input, logged, passed: () => passed.join(''), answered: () => answered.join(''), flush };
}

describe('cappedLines', () => {
  it('passes lines up to the cap whole (newline included), across chunks', async () => {
    const t = capped(10);
    t.input.write('{"a":');
    t.input.write('1}\n{"b":2}\n');
    await t.flush();
    expect(t.passed()).toBe('{"a":1}\n{"b":2}\n');
    t.input.write('123456789\n');
    await t.flush();
    expect(t.passed()).toBe('{"a":1}\n{"b":2}\n123456789\n');
    expect(t.answered()).toBe('');
  });

  it('drops a line over the cap, answers -32600 with its id, logs it, and passes the next line', async () => {
    const t = capped(50);
    t.input.write(`{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"x":"`);
    t.input.write('y'.repeat(100));
    t.input.write('"}}\n{"jsonrpc":"2.0","id":8,"method":"ping"}\n');
    await t.flush();
    expect(t.passed()).toBe('{"jsonrpc":"2.0","id":8,"method":"ping"}\n');
    expect(JSON.parse(t.answered())).toEqual({ jsonrpc: '2.0', id: 7, error: { code: -32600, message: '[svc-sdk] message over 50 bytes, not read: send smaller arguments (the stdio cap)' } });
    expect(t.logged).toEqual(['svc-sdk mcp: [svc-sdk] message over 50 bytes, not read: send smaller arguments (the stdio cap)']);
  });

  it('a string id is kept; without one the answer has id null; a line of exactly the cap plus one is over', async () => {
    const t = capped(20);
    t.input.write(`{"id":"req-1","x":"${'z'.repeat(30)}"}\n`);
    t.input.write(`${'q'.repeat(20)}\n`);
    await t.flush();
    const answers = t.answered().trim().split('\n').map((line) => JSON.parse(line) as { id: unknown });
    expect(answers.map((answer) => answer.id)).toEqual(['req-1', null]);
    expect(t.passed()).toBe('');
  });

  it('an id is read from the line\'s first 512 characters only: a string with an escaped quote, a negative number; one further on is null', async () => {
    const t = capped(30);
    t.input.write(`{"id":"a\\"b","x":"${'z'.repeat(40)}"}\n`);
    t.input.write(`{"id":-12,"x":"${'z'.repeat(40)}"}\n`);
    t.input.write(`{"x":"${'z'.repeat(600)}","id":5}\n`);
    t.input.write(`{"x":"${'z'.repeat(30)}"}\n`);
    await t.flush();
    const ids = t.answered().trim().split('\n').map((line) => (JSON.parse(line) as { id: unknown }).id);
    expect(ids).toEqual(['a"b', -12, null, null]);
  });

  it('the id is the message\'s own: leading blanks and blanks around the colon are read, a nested "id" further on is not, a batch has none', async () => {
    const t = capped(30);
    t.input.write(`  {"id":9,"x":"${'z'.repeat(40)}"}\n`);
    t.input.write(`{ "id" : 10 ,"x":"${'z'.repeat(40)}"}\n`);
    t.input.write(`{"id":11,"params":{"arguments":{"id":99,"x":"${'z'.repeat(40)}"}}}\n`);
    t.input.write(`[{"id":12,"x":"${'z'.repeat(40)}"}]\n`);
    t.input.write(`{"id":"","x":"${'z'.repeat(40)}"}\n`);
    await t.flush();
    const ids = t.answered().trim().split('\n').map((line) => (JSON.parse(line) as { id: unknown }).id);
    expect(ids).toEqual([9, 10, 11, null, '']);
  });

  it('a string id of 200 characters is kept and one of 201 is not; a number of 16 digits is kept whole', async () => {
    const t = capped(30);
    const long = 'i'.repeat(200);
    t.input.write(`{"id":"${long}","x":"${'z'.repeat(40)}"}\n`);
    t.input.write(`{"id":"${long}j","x":"${'z'.repeat(40)}"}\n`);
    t.input.write(`{"id":1234567890123456,"x":"${'z'.repeat(40)}"}\n`);
    await t.flush();
    const ids = t.answered().trim().split('\n').map((line) => (JSON.parse(line) as { id: unknown }).id);
    expect(ids).toEqual([long, null, 1234567890123456]);
  });

  it('the head read for the id is the line\'s first 512 characters even when they come in pieces: an id in a later chunk is not read', async () => {
    const t = capped(30);
    // Exactly 512 characters in the first chunk, then the id: past the head.
    t.input.write(`{"x":"${'z'.repeat(512 - 6)}`);
    t.input.write('","id":5}\n');
    // A short first chunk: the head takes the next chunk too.
    t.input.write('{"x":"ab",');
    t.input.write(`"id":6,"y":"${'z'.repeat(40)}"}\n`);
    await t.flush();
    const ids = t.answered().trim().split('\n').map((line) => (JSON.parse(line) as { id: unknown }).id);
    expect(ids).toEqual([null, 6]);
  });

  it('an over-long line split across many chunks is answered once, and the line after it passes whole', async () => {
    const t = capped(20);
    for (let index = 0; index < 10; index++) t.input.write('{"id":1,"pad":"xxxxxxxx');
    t.input.write('"}\n{"id":2}\n');
    await t.flush();
    expect(t.answered().trim().split('\n')).toHaveLength(1);
    expect(t.passed()).toBe('{"id":2}\n');
    expect(t.logged).toHaveLength(1);
  });

  it('the default cap is the SDK\'s 10 MiB', () => {
    expect(DEFAULT_MAX_LINE_BYTES).toBe(10 * 1024 * 1024);
  });
});

describe.skipIf(!built)('svc-sdk mcp over stdio with a message over 10 MiB', () => {
  it('answers it as a protocol error, logs it on stderr, and answers the next request', async () => {
    const child = spawn(process.execPath, [CLI, 'mcp', '--emulator', '--state-dir', tempDir()], { env: cliEnv(), stdio: ['pipe', 'pipe', 'pipe'] });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (chunk) => (stdout += chunk));
    child.stderr.on('data', (chunk) => (stderr += chunk));
    const init = { jsonrpc: '2.0', id: 1, method: 'initialize', params: { protocolVersion: '2025-06-18', capabilities: {}, clientInfo: { name: 'raw', version: '1' } } };
    child.stdin.write(`${JSON.stringify(init)}\n`);
    child.stdin.write(`{"jsonrpc":"2.0","id":2,"method":"tools/call","params":{"name":"room_ask","arguments":{"room_id":1,"question":"${'x'.repeat(DEFAULT_MAX_LINE_BYTES)}"}}}\n`);
    child.stdin.write(`${JSON.stringify({ jsonrpc: '2.0', id: 3, method: 'ping' })}\n`);
    await expect.poll(() => stdout, { timeout: 20_000 }).toMatch(/"id":3/);
    const answers = stdout.trim().split('\n').map((line) => JSON.parse(line) as { id: number; error?: { code: number; message: string } });
    expect(answers.find((answer) => answer.id === 2)?.error).toMatchObject({ code: -32600, message: expect.stringMatching(/message over 10485760 bytes/) });
    expect(answers.find((answer) => answer.id === 3)).toMatchObject({ result: {} });
    expect(stderr).toMatch(/svc-sdk mcp: \[svc-sdk\] message over 10485760 bytes/);
    expect(child.exitCode).toBeNull();
    child.stdin.end();
    await new Promise((resolve) => child.on('close', resolve));
  }, 40_000);
});
