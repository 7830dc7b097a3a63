// The one rule for the release's version (issue 35): package.json's version (what npm publishes), the
// newest dated section of CHANGELOG.md (what integrators read), package-lock.json's own record of it, and
// the SDK's VERSION (what every request says in `User-Agent: svc-sdk/<version>`) are the same string.
// test/release/versions.test.ts reads each from where it lives, the SDK's from the wire.

/** A released section's heading, as Keep a Changelog writes it: `## [1.2.3] - 2026-11-26`. */
const RELEASE_HEADING = /^## \[(\d+\.\d+\.\d+(?:-[0-9A-Za-z.-]+)?)\] - (\d{4}-\d{2}-\d{2})$/;

/** The newest released section of a changelog, or a message saying why there is none. */
export function newestRelease(changelog: string): { version: string; date: string } | { problem: string } {
  for (const line of changelog.split(/\r?\n/)) {
    if (!line.startsWith('## ') || line === '## [Unreleased]') continue;
    const match = RELEASE_HEADING.exec(line);
    if (!match) return { problem: `CHANGELOG.md's section "${line}" is not a release heading: write it as ## [x.y.z] - YYYY-MM-DD` };
    return { version: match[1]!, date: match[2]! };
  }
  return { problem: 'CHANGELOG.md has no released section: add ## [x.y.z] - YYYY-MM-DD above the release\'s entries' };
}

/** Where each version was read, and the version read there. */
export interface Versions {
  /** package.json's `version`. */
  packageJson: string;
  /** package-lock.json's `version` (and its root package's), which `npm version` keeps with package.json's. */
  packageLock: string;
  /** The whole text of CHANGELOG.md. */
  changelog: string;
  /** What the SDK sends in `User-Agent: svc-sdk/<version>` (src/core/version.ts). */
  userAgent: string;
}

/** What disagrees among the release's versions, one message each naming both places and the fix; empty when all agree. */
export function versionProblems(versions: Versions): string[] {
  const released = newestRelease(versions.changelog);
  if ('problem' in released) return [`[svc-sdk] ${released.problem}`];
  const expected = versions.packageJson;
  const others: [string, string][] = [
    [`CHANGELOG.md's newest release (## [${released.version}] - ${released.date})`, released.version],
    ["package-lock.json's version", versions.packageLock],
    ['the SDK\'s VERSION in src/core/version.ts (sent as User-Agent: svc-sdk/<version>)', versions.userAgent],
  ];
  return others
    .filter(([, version]) => version !== expected)
    .map(([where, version]) => `[svc-sdk] ${where} is ${version} but package.json's version is ${expected}: a release carries one version, so set them equal`);
}
