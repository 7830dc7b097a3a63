import { describe, expect, it } from 'vitest';
import { escapeControl } from '../../packages/cli/src/terminal-text.js';

describe('escapeControl', () => {
  it.each([
    ['\u001b]0;pwned\u0007title', '\\x1b]0;pwned\\x07title'],
    ['clear\u001b[2J\u001b[H', 'clear\\x1b[2J\\x1b[H'],
    ['line\nfake: uploaded\r', 'line\\nfake: uploaded\\r'],
    ['tab\there', 'tab\\there'],
    ['del\u007f c1\u009b', 'del\\x7f c1\\x9b'],
    ['rtl\u202efdp.exe sep\u2028', 'rtl\\u202efdp.exe sep\\u2028'],
  ])('escapes %j', (raw, shown) => {
    expect(escapeControl(raw)).toBe(shown);
  });

  it('leaves printable text, accents and emoji as they are', () => {
    const text = 'Rapport é 2026 — 📄 data/ä.pdf';
    expect(escapeControl(text)).toBe(text);
  });
});
