// The project's rules for its GitHub Actions workflows, beyond what actionlint checks: what keeps a
// workflow from being hijacked quietly (issue 35). An action moved to another commit under the same tag,
// a job that can write to the repository, a cache another branch wrote, a token a dependency's code can
// mint, a trigger that runs a fork's code with the base repository's rights: each is refused here.
// test/release/workflows.test.ts runs these rules over .github/workflows/ and over hostile variants.
import { isPair, isScalar, isSeq, parseDocument, visit, type Document } from 'yaml';

/** The workflow that publishes to npm, and its one job allowed to mint an OIDC token. */
export const RELEASE = { file: 'release.yml', job: 'publish', environment: 'npm' } as const;

/** One workflow file: its name in .github/workflows/ and its text. */
export interface WorkflowFile {
  name: string;
  text: string;
}

/** `owner/repo[/path]@<40 hex>`: a commit, which no one can move (a tag or a branch can be). */
const PINNED = /^[\w.-]+\/[\w.-]+(?:\/[^@\s]+)?@[0-9a-f]{40}$/;
/** `name[:tag]@sha256:<64 hex>`: an image by its digest, which no one can move (a tag can be). */
const IMAGE_BY_DIGEST = /^[\w./:-]+@sha256:[0-9a-f]{64}$/;
/** The version a pinned SHA stands for, as a trailing comment: `# v7.0.1`. */
const VERSION_COMMENT = /^\s*v\d+(?:\.\d+){0,2}\b/;
/** Scopes a job may read; writing anything but id-token (and that in the release job only) is refused. */
const GRANTS = new Set(['read', 'none']);
/**
 * Triggers that run with the base repository's token and secrets on behalf of a fork's pull request
 * (pull_request_target checks out or runs the fork's code with them; workflow_run inherits them).
 */
const FORBIDDEN_TRIGGERS = ['pull_request_target', 'workflow_run'];

type Json = null | boolean | number | string | Json[] | { [key: string]: Json };

/** A plain object read from YAML, or undefined for anything else. */
function asObject(value: Json | undefined): Record<string, Json> | undefined {
  return value !== null && typeof value === 'object' && !Array.isArray(value) ? value : undefined;
}

/** The names of the events a workflow's `on:` lists (a string, a list or a map). */
function triggers(on: Json | undefined): string[] {
  if (typeof on === 'string') return [on];
  if (Array.isArray(on)) return on.filter((event): event is string => typeof event === 'string');
  return Object.keys(asObject(on) ?? {});
}

/** Every `uses:` of a document with its trailing comment and where it is (jobs.<id>.steps[i] or jobs.<id>). */
function usesOf(doc: Document): { value: string; comment: string | undefined; where: string }[] {
  const found: { value: string; comment: string | undefined; where: string }[] = [];
  visit(doc, {
    Pair(_key, pair, path) {
      if (!isScalar(pair.key) || pair.key.value !== 'uses') return;
      // jobs.<id>.steps[i], from the pairs and lists above this one.
      const chain = [...path, pair];
      const parts: string[] = [];
      chain.forEach((node, index) => {
        if (isPair(node) && node !== pair) parts.push(isScalar(node.key) ? String(node.key.value) : '?');
        if (isSeq(node)) parts.push(`${parts.pop() ?? ''}[${node.items.indexOf(chain[index + 1] as never)}]`);
      });
      const where = parts.join('.');
      const value = isScalar(pair.value) ? String(pair.value.value) : String(pair.value);
      const comment = isScalar(pair.value) ? (pair.value.comment ?? undefined) : undefined;
      found.push({ value, comment, where });
    },
  });
  return found;
}

/** What a job restores from a cache: actions/cache, or setup-node's `cache` / automatic package-manager cache. */
function cacheUses(steps: Json[]): string[] {
  const restores: string[] = [];
  steps.forEach((step, index) => {
    const uses = asObject(step)?.uses;
    if (typeof uses !== 'string') return;
    const action = uses.split('@')[0]!;
    const inputs = asObject(asObject(step)?.with) ?? {};
    if (action.startsWith('actions/cache')) restores.push(`steps[${index}] uses ${action}`);
    if (action === 'actions/setup-node') {
      if (inputs.cache !== undefined && inputs.cache !== '') restores.push(`steps[${index}] sets setup-node's cache: ${String(inputs.cache)}`);
      // setup-node caches by itself when package.json names npm as its packageManager, unless told not to.
      if (inputs['package-manager-cache'] !== false && inputs['package-manager-cache'] !== 'false') {
        restores.push(`steps[${index}] leaves setup-node's package-manager-cache on (set package-manager-cache: false)`);
      }
    }
  });
  return restores;
}

/** The checkouts that leave the job's token in .git/config, where any code the job runs can read it. */
function persistedCredentials(steps: Json[]): string[] {
  const leaks: string[] = [];
  steps.forEach((step, index) => {
    const uses = asObject(step)?.uses;
    if (typeof uses !== 'string' || uses.split('@')[0] !== 'actions/checkout') return;
    const persist = asObject(asObject(step)?.with)?.['persist-credentials'];
    if (persist !== false && persist !== 'false') {
      leaks.push(`steps[${index}] checks out with persist-credentials on: set persist-credentials: false (the token would stay in .git/config for every script the job runs)`);
    }
  });
  return leaks;
}

/**
 * Checks one workflow against the project's rules and returns what breaks them, one message a rule
 * broken, each naming the file, the place and the fix; an empty list when it keeps them all.
 * @example checkWorkflow({ name: 'ci.yml', text }) // []
 */
export function checkWorkflow(file: WorkflowFile): string[] {
  const problems: string[] = [];
  const say = (message: string) => problems.push(`[svc-sdk] .github/workflows/${file.name}: ${message}`);
  const doc = parseDocument(file.text);
  if (doc.errors.length > 0) {
    say(`is not valid YAML: ${doc.errors[0]!.message}`);
    return problems;
  }
  const workflow = asObject(doc.toJS() as Json);
  if (!workflow) {
    say('is not a workflow (a mapping with on: and jobs:)');
    return problems;
  }
  const isRelease = file.name === RELEASE.file;

  for (const { value, comment, where } of usesOf(doc)) {
    // A local action or reusable workflow of this repository is pinned by the commit that runs it.
    if (value.startsWith('./')) continue;
    if (!PINNED.test(value)) {
      say(`${where} uses ${value}, which is not pinned: use the action's full 40-hex commit SHA with its version in a comment (uses: owner/repo@<sha> # v1.2.3)`);
    } else if (comment === undefined || !VERSION_COMMENT.test(comment)) {
      say(`${where} uses ${value} without its version in a comment: add the tag the SHA stands for (uses: ${value} # v1.2.3)`);
    }
  }

  for (const event of triggers(workflow.on)) {
    if (FORBIDDEN_TRIGGERS.includes(event)) {
      say(`is triggered by ${event}, which runs with the base repository's token and secrets on behalf of a fork: use pull_request (read-only, no secrets)`);
    }
  }
  if (isRelease) {
    const on = asObject(workflow.on);
    const events = triggers(workflow.on);
    const tags = asObject(on?.push)?.tags;
    if (events.length !== 1 || events[0] !== 'push' || !Array.isArray(tags) || asObject(on?.push)?.branches !== undefined) {
      say(`is triggered by ${events.join(', ') || 'nothing'}: a release runs on a version tag only (on: push: tags: ['v*.*.*'])`);
    }
    if (/\$\{\{\s*secrets\./.test(file.text) || /NPM_TOKEN|NODE_AUTH_TOKEN/.test(file.text)) {
      say('reads a stored secret or npm token: publish through npm trusted publishing (id-token: write), with no long-lived token');
    }
  }

  const top = workflow.permissions;
  if (asObject(top) === undefined || Object.keys(asObject(top)!).length > 0) {
    say(`has top-level permissions ${JSON.stringify(top ?? 'unset (the repository default, possibly write-all)')}: set permissions: {} and grant each job what it needs`);
  }

  const jobs = asObject(workflow.jobs) ?? {};
  for (const [id, jobValue] of Object.entries(jobs)) {
    const job = asObject(jobValue) ?? {};
    const grants = job.permissions;
    const isReleaseJob = isRelease && id === RELEASE.job;
    if (asObject(grants) === undefined) {
      say(`jobs.${id} has permissions ${JSON.stringify(grants ?? 'unset')}: grant the job its scopes one by one (permissions: { contents: read })`);
    } else {
      for (const [scope, level] of Object.entries(asObject(grants)!)) {
        if (scope === 'id-token' && level === 'write') {
          if (!isReleaseJob) {
            say(`jobs.${id} is granted id-token: write: only jobs.${RELEASE.job} of ${RELEASE.file} (environment ${RELEASE.environment}) may mint an OIDC token; remove it`);
          } else if (job.environment !== RELEASE.environment && asObject(job.environment)?.name !== RELEASE.environment) {
            say(`jobs.${id} is granted id-token: write outside the protected environment: add environment: ${RELEASE.environment}`);
          }
        } else if (typeof level !== 'string' || !GRANTS.has(level)) {
          say(`jobs.${id} is granted ${scope}: ${String(level)}: a job reads at most (${scope}: read); nothing here writes to the repository`);
        }
      }
    }
    if (isRelease) {
      const steps = Array.isArray(job.steps) ? job.steps : [];
      for (const restore of cacheUses(steps)) {
        say(`jobs.${id}.${restore}: a release restores no cache (another branch's run may have written it); remove it`);
      }
    }
    for (const leak of persistedCredentials(Array.isArray(job.steps) ? job.steps : [])) say(`jobs.${id}.${leak}`);
    // The build environment, like an action: a tag (debian:bookworm) can be moved to other bytes.
    const container = job.container;
    const image = typeof container === 'string' ? container : asObject(container)?.image;
    if (image !== undefined && (typeof image !== 'string' || !IMAGE_BY_DIGEST.test(image))) {
      say(`jobs.${id} runs in the container image ${String(image)}, named by tag: pin it by digest (image: debian:bookworm@sha256:<64 hex>)`);
    }
  }
  if (isRelease && asObject(jobs[RELEASE.job]) === undefined) {
    say(`has no jobs.${RELEASE.job}: the job that publishes (environment ${RELEASE.environment}, id-token: write)`);
  }
  return problems;
}
