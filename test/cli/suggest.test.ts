import { describe, expect, it } from 'vitest';
import { didYouMean, nearest } from '../../packages/cli/src/suggest.js';

describe('nearest(input, candidates): a typo of a known name, never another word', () => {
  it.each([
    ['emultor', ['emulator', 'trigger', 'listen'], 'emulator'],
    ['--prot', ['--port', '--api-key'], '--port'],
    ['credit.lo', ['credit.low', 'credit.exhausted'], 'credit.low'],
    ['document.upload', ['document.uploaded', 'ping.test'], 'document.uploaded'],
    ['lsten', ['listen', 'upload'], 'listen'],
    ['serve', ['emulator', 'trigger', 'listen', 'upload', 'inbox', 'mcp'], undefined],
    ['--verbose', ['--port', '--api-key', '--page-size'], undefined],
    ['x', ['mcp'], undefined],
    ['mcp', [], undefined],
    ['', ['mcp'], undefined],
  ])('%s among %j is %s', (input, candidates, expected) => {
    expect(nearest(input, candidates)).toBe(expected);
  });

  it('allows one edit per three characters of the candidate, between one and three', () => {
    expect(nearest('mcq', ['mcp'])).toBe('mcp');
    expect(nearest('mqq', ['mcp'])).toBeUndefined();
    expect(nearest('trgger', ['trigger'])).toBe('trigger');
    expect(nearest('tgger', ['trigger'])).toBe('trigger');
    expect(nearest('document.uplaod', ['document.uploaded'])).toBe('document.uploaded');
    expect(nearest('dcmnt.uplod', ['document.uploaded'])).toBeUndefined();
  });

  it('didYouMean words it for a message, or says nothing', () => {
    expect(didYouMean('emultor', ['emulator'])).toBe('did you mean "emulator"? ');
    expect(didYouMean('zzz', ['emulator'])).toBe('');
  });
});
