import { spawnSync } from 'node:child_process';
import { fileURLToPath } from 'node:url';
import { beforeAll, describe, expect, test } from 'vitest';

// The harness is run as `npm test` runs it, on a document whose blocks are broken on known lines:
// each problem must be reported at its line of the document, under both module settings.
const root = fileURLToPath(new URL('../../', import.meta.url));

describe('the README harness (test/readme/run.mjs)', () => {
  let result: { status: number | null; stderr: string; stdout: string };

  beforeAll(() => {
    const run = spawnSync(process.execPath, ['test/readme/run.mjs', 'test/readme/fixtures/broken.md'], {
      cwd: root,
      encoding: 'utf8',
      timeout: 170_000,
    });
    result = { status: run.status, stderr: run.stderr, stdout: run.stdout };
  }, 180_000);

  test('fails, and counts what it checked', () => {
    expect(result.status).toBe(1);
    expect(result.stdout).toMatch(
      /5 blocks of test\/readme\/fixtures\/broken\.md type-checked with examples\/ \(nodenext, bundler; @types\/node pinned and latest 2[6-9]\.\d+\.\d+\), 1 run: \d+ type errors, 1 failed runs, 2 broken links/,
    );
    // The document's three type errors, under each setting, with the pinned @types/node and the latest (the
    // total also counts examples/, checked beside the blocks).
    expect(result.stderr.split('\n').filter((line) => /^test\/readme\/fixtures\/broken\.md:\d+:\d+: \[.+\] TS\d+/.test(line))).toHaveLength(12);
  });

  test('reports a type error at its line in the document, once per module setting', () => {
    const lines = result.stderr.split('\n');
    for (const setting of ['nodenext', 'bundler']) {
      expect(lines).toContainEqual(expect.stringMatching(new RegExp(`^test/readme/fixtures/broken\\.md:15:\\d+: \\[${setting}\\] TS2322`)));
    }
  });

  test('reports a type error under the latest @types/node too, labelled with its version', () => {
    expect(result.stderr).toMatch(/^test\/readme\/fixtures\/broken\.md:15:\d+: \[nodenext, @types\/node 2[6-9]\.\d+\.\d+\] TS2322/m);
  });

  test('checks under exactOptionalPropertyTypes, and JavaScript blocks too', () => {
    expect(result.stderr).toMatch(/^test\/readme\/fixtures\/broken\.md:21:\d+: \[nodenext\] TS2375/m);
    expect(result.stderr).toMatch(/^test\/readme\/fixtures\/broken\.md:27:\d+: \[nodenext\] TS2345/m);
  });

  test('passes a correct block', () => {
    expect(result.stderr).not.toMatch(/broken\.md:[3-8]:/);
  });

  test('reports links to headings and files that do not exist, at their line', () => {
    expect(result.stderr).toMatch(/^test\/readme\/fixtures\/broken\.md:40: no heading for the link #no-such-heading$/m);
    expect(result.stderr).toMatch(/^test\/readme\/fixtures\/broken\.md:40: the linked file missing\.md does not exist$/m);
    expect(result.stderr).not.toContain('#a-document-with');
  });

  test('runs a marked block against the emulator and reports its failure at the block', () => {
    expect(result.stderr).toMatch(/^test\/readme\/fixtures\/broken\.md:34: the block exited with code 1:/m);
    expect(result.stderr).toContain('NotFoundError');
    // The stack frame inside the block points at the document's line.
    expect(result.stderr).toContain('test/readme/fixtures/broken.md:37');
  });
});
