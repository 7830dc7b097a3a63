// Finds the code blocks of a markdown document that the README harness checks: TypeScript and
// JavaScript fences, each with the line it starts on, so an error can point at the document.

/** Fence languages that are checked, and the file extension each block is written with. */
const EXTENSIONS = {
  ts: '.ts',
  typescript: '.ts',
  js: '.mjs',
  javascript: '.mjs',
  mjs: '.mjs',
};

/** The marker, on the last non-blank line before a fence, that makes the harness run the block. */
const RUN_MARKER = '<!-- run -->';

/**
 * The checked code blocks of `markdown`: `{ source, line, lang, extension, code, run }`, where
 * `line` is the 1-based line of the block's first code line in the document.
 *
 * @param {string} markdown
 * @param {string} source the document's name, used in messages (e.g. `README.md`)
 */
export function extractBlocks(markdown, source) {
  const lines = markdown.split(/\r?\n/);
  const blocks = [];
  for (let index = 0; index < lines.length; index++) {
    const open = /^(\s*)(`{3,}|~{3,})\s*([\w-]*)/.exec(lines[index]);
    if (!open) continue;
    const [, indent, fence, info] = open;
    const closing = new RegExp(`^\\s*${fence[0] === '`' ? '`' : '~'}{${fence.length},}\\s*$`);
    let end = index + 1;
    while (end < lines.length && !closing.test(lines[end])) end++;
    if (end === lines.length) throw new Error(`${source}:${index + 1}: the code block opened here is never closed`);
    const lang = info.toLowerCase();
    const extension = EXTENSIONS[lang];
    if (extension) {
      const body = lines.slice(index + 1, end).map((line) => (line.startsWith(indent) ? line.slice(indent.length) : line));
      let before = index - 1;
      while (before >= 0 && lines[before].trim() === '') before--;
      const run = before >= 0 && lines[before].trim() === RUN_MARKER;
      // A JavaScript block that only `require`s is CommonJS; every other one is an ES module.
      const commonjs = extension === '.mjs' && /\brequire\(/.test(body.join('\n')) && !/^\s*import\b/m.test(body.join('\n'));
      blocks.push({ source, line: index + 2, lang, extension: commonjs ? '.cjs' : extension, code: `${body.join('\n')}\n`, run });
    }
    index = end;
  }
  return blocks;
}
