// Checks the links of a markdown document that stay in the repository: `#anchors` must name a
// heading (GitHub's slugs), relative paths must exist, and `file.md#anchor` a heading of that file.
import { existsSync, readFileSync } from 'node:fs';
import path from 'node:path';

/** GitHub's anchor of a heading: lower case, punctuation dropped, spaces to hyphens, repeats numbered. */
function slugsOf(markdown) {
  const slugs = new Set();
  const seen = new Map();
  let fence;
  for (const line of markdown.split(/\r?\n/)) {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (!fence || marker.startsWith(fence))) fence = fence ? undefined : marker;
    const heading = !fence && /^#{1,6}\s+(.*?)\s*#*\s*$/.exec(line);
    if (!heading) continue;
    const base = heading[1].toLowerCase().replace(/[^\p{L}\p{M}\p{N}\p{Pc} -]/gu, '').replace(/ /g, '-');
    const count = seen.get(base) ?? 0;
    seen.set(base, count + 1);
    slugs.add(count ? `${base}-${count}` : base);
  }
  return slugs;
}

/**
 * Problems with the in-repository links of `markdown` (the file `source`, relative to `root`),
 * each as `source:line: …`. Links to other sites and links inside code blocks are not checked.
 */
export function checkLinks(markdown, source, root) {
  const problems = [];
  const own = slugsOf(markdown);
  const lines = markdown.split(/\r?\n/);
  let fence;
  lines.forEach((line, index) => {
    const marker = /^\s*(`{3,}|~{3,})/.exec(line)?.[1];
    if (marker && (!fence || marker.startsWith(fence))) {
      fence = fence ? undefined : marker;
      return;
    }
    if (fence) return;
    // Inline code may hold bracket-and-parenthesis text that is not a link.
    const text = line.replace(/`[^`]*`/g, '``');
    for (const [, target] of text.matchAll(/\]\(([^)\s]+)\)/g)) {
      if (/^[a-z][a-z0-9+.-]*:/i.test(target)) continue;
      const [file, anchor] = target.split('#');
      const where = `${source}:${index + 1}`;
      if (!file) {
        if (!own.has(anchor)) problems.push(`${where}: no heading for the link #${anchor}`);
        continue;
      }
      const resolved = path.resolve(root, path.dirname(source), file);
      if (!existsSync(resolved)) {
        problems.push(`${where}: the linked file ${file} does not exist`);
      } else if (anchor && resolved.endsWith('.md') && !slugsOf(readFileSync(resolved, 'utf8')).has(anchor)) {
        problems.push(`${where}: ${file} has no heading for #${anchor}`);
      }
    }
  });
  return problems;
}
