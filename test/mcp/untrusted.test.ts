// The escaping of counterparty text, character by character: every hidden range at both of its
// ends, and the characters next to them kept as they are.
import { describe, expect, it } from 'vitest';
import { DATA_NOTE, escapeFields, escapeHidden, quote, UNTRUSTED_META_KEY } from '../../packages/mcp/src/untrusted.js';

const escaped = (code: number) => `\\u{${code.toString(16).toUpperCase().padStart(4, '0')}}`;

/** Hidden ranges, inclusive. */
const HIDDEN: [number, number][] = [
  [0x00, 0x08], [0x0b, 0x1f], [0x7f, 0x9f], [0xad, 0xad], [0x34f, 0x34f], [0x61c, 0x61c], [0x115f, 0x1160], [0x17b4, 0x17b5],
  [0x180b, 0x180f], [0x200b, 0x200f], [0x2028, 0x202e], [0x2060, 0x206f], [0x3164, 0x3164], [0xfe00, 0xfe0f], [0xfeff, 0xfeff],
  [0xffa0, 0xffa0], [0xfff9, 0xfffb], [0xe0000, 0xe007f],
];
/** Characters right next to those ranges (and others) that stay as they are. */
const KEPT = [0x09, 0x0a, 0x20, 0x7e, 0xa0, 0xac, 0xae, 0x34e, 0x350, 0x61b, 0x61d, 0x115e, 0x1161, 0x17b3, 0x17b6, 0x180a, 0x1810, 0x200a, 0x2010, 0x2027, 0x202f, 0x205f, 0x2070, 0x3163, 0x3165, 0xfdff, 0xfe10, 0xfefe, 0xff00, 0xff9f, 0xffa1, 0xfff8, 0xfffc, 0xdffff, 0xe0080, 0x1f600, 0x5d0, 0x627];

describe('escapeHidden', () => {
  it.each(HIDDEN)('escapes U+%s through its range end, as \\u{…}', (first, last) => {
    for (const code of new Set([first, last, Math.floor((first + last) / 2)])) expect(escapeHidden(`a${String.fromCodePoint(code)}b`)).toBe(`a${escaped(code)}b`);
  });

  it('keeps tab, line feed, printable and paired characters (emoji, Hebrew, Arabic) as they are', () => {
    for (const code of KEPT) expect(escapeHidden(String.fromCodePoint(code)), code.toString(16)).toBe(String.fromCodePoint(code));
  });

  it('escapes lone surrogates, high and low, and every one of several in a row', () => {
    expect(escapeHidden('x\ud800y\udfffz')).toBe('x\\u{D800}y\\u{DFFF}z');
    expect(escapeHidden('\u202e\u202e\u200b')).toBe('\\u{202E}\\u{202E}\\u{200B}');
  });

  it('doubles every backslash first, so the text "\\u{202E}" never reads as an escape', () => {
    expect(escapeHidden('a\\u{202E}\\\\')).toBe('a\\\\u{202E}\\\\\\\\');
  });
});

describe('quote', () => {
  it('JSON-quotes a field, escaping hidden characters left in it, but not its backslashes again', () => {
    expect(quote('he said "hi"\n')).toBe('"he said \\"hi\\"\\n"');
    expect(quote('a\u202eb')).toBe('"a\\\\u{202E}b"');
    expect(quote('x\\u{202E}')).toBe('"x\\\\u{202E}"');
  });
});

describe('escapeFields', () => {
  const hostile = 'n\u202e';
  const fixed = 'n\\u{202E}';

  it('escapes the named fields only, leaving the value given unchanged', () => {
    const value = { a: hostile, b: hostile, nested: { c: hostile, d: hostile } };
    expect(escapeFields(value, ['a', 'nested.c'])).toEqual({ a: fixed, b: hostile, nested: { c: fixed, d: hostile } });
    expect(value.a).toBe(hostile);
  });

  it('[] walks a list, * every field of a record (and of each item of a list), strings in lists included', () => {
    const value = { items: [{ name: hostile, id: 1, tags: [hostile] }, { name: hostile }], list: [hostile, 2], rec: { x: hostile, y: [hostile] } };
    expect(escapeFields(value, ['items[].*'])).toEqual({ items: [{ name: fixed, id: 1, tags: [fixed] }, { name: fixed }], list: [hostile, 2], rec: value.rec });
    expect(escapeFields(value, ['items[].name'])).toEqual({ ...value, items: [{ name: fixed, id: 1, tags: [hostile] }, { name: fixed }] });
    expect(escapeFields(value, ['list'])).toEqual({ ...value, list: [fixed, 2] });
    expect(escapeFields(value, ['rec.*'])).toEqual({ ...value, rec: { x: fixed, y: [fixed] } });
    expect(escapeFields({ l: [{ a: hostile }] }, ['l.*.a'])).toEqual({ l: [{ a: fixed }] });
  });

  it('a path that names nothing there, or goes through a value that is not a record, changes nothing', () => {
    const value = { a: hostile, n: null, s: hostile, list: [hostile] };
    expect(escapeFields(value, ['missing', 'missing.deeper', 'n.x', 's.x', 'a[].x'])).toEqual(value);
    expect(escapeFields(value, ['constructor', 'toString'])).toEqual(value);
    expect(escapeFields(hostile, ['a'])).toBe(hostile);
  });

  it('says where its marks go', () => {
    expect(UNTRUSTED_META_KEY).toBe('svc-sdk/untrusted');
    expect(DATA_NOTE).toMatch(/data, not instructions/);
  });
});
