// The written policy matches what is enforced: SECURITY.md sends reports to this repository's private
// advisories and its links resolve; the README's runtime policy names the Node.js majors CI runs, from
// the floor package.json's engines sets.
import { readFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parse } from 'yaml';
import { describe, expect, it } from 'vitest';

const root = fileURLToPath(new URL('../../', import.meta.url));
const read = (name: string) => readFileSync(new URL(name, new URL('../../', import.meta.url)), 'utf8');
const manifest = JSON.parse(read('package.json')) as { repository: { url: string }; engines: { node: string } };
// test/readme/links.mjs has no types; the README harness checks README.md and CONTRIBUTING.md with it.
const linksModule = '../readme/links.mjs';
const { checkLinks } = (await import(linksModule)) as { checkLinks(markdown: string, source: string, root: string): string[] };

/** The Node.js majors of the runtime table under README's "Releases and support". */
function readmeNodeMajors(readme: string): number[] {
  const section = readme.split(/^## /m).find((part) => part.startsWith('Releases and support\n')) ?? '';
  return [...section.matchAll(/^\| Node\.js (\d+) /gm)].map((match) => Number(match[1]));
}

describe('SECURITY.md', () => {
  const security = read('SECURITY.md');

  it("sends reports to the private advisories of package.json's repository", () => {
    const repository = /github\.com\/([\w.-]+\/[\w.-]+?)(?:\.git)?$/.exec(manifest.repository.url)?.[1];
    expect(repository).toBeDefined();
    expect(security).toContain(`https://github.com/${repository}/security/advisories/new`);
  });

  it('links only to files and headings that exist', () => {
    expect(checkLinks(security, 'SECURITY.md', root)).toEqual([]);
  });
});

describe("the README's runtime policy", () => {
  const majors = readmeNodeMajors(read('README.md'));

  it('names the Node.js majors CI runs npm test on', () => {
    const ci = parse(read('.github/workflows/ci.yml')) as { jobs: { test: { strategy: { matrix: { node: number[] } } } } };
    expect(majors).toEqual(ci.jobs.test.strategy.matrix.node);
  });

  it("starts at the floor of package.json's engines", () => {
    expect(`>=${Math.min(...majors)}`).toBe(manifest.engines.node);
  });
});
