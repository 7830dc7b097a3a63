// package.json's version, CHANGELOG.md's newest release, package-lock.json's and the version the SDK sends
// in User-Agent are one (test/release/versions.ts); each disagreement is refused with its places named.
import { readFileSync } from 'node:fs';
import { http, HttpResponse } from 'msw';
import { describe, expect, it } from 'vitest';
import { Client } from '../../src/index.node.js';
import { API_KEY, BASE_URL, recordRequests, useMockService } from '../support/msw.js';
import { newestRelease, versionProblems, type Versions } from './versions.js';

const server = useMockService();
const requests = recordRequests(server);
const root = new URL('../../', import.meta.url);
const readText = (name: string) => readFileSync(new URL(name, root), 'utf8');
const packageJson = JSON.parse(readText('package.json')) as { version: string };
const packageLock = JSON.parse(readText('package-lock.json')) as { version: string; packages: Record<string, { version?: string }> };

/** The version in the User-Agent of one request a new Client sends. */
async function userAgentVersion(): Promise<string> {
  server.use(http.all(`${BASE_URL}/*`, () => HttpResponse.json({ success: true, data: { id: 9, name: 'r' } }, { status: 201 })));
  await new Client({ apiKey: API_KEY, baseUrl: BASE_URL, maxRetries: 0 }).rooms.create({ name: 'r', room_type: 'company_investment' });
  const userAgent = requests.at(-1)?.headers.get('user-agent') ?? '';
  const match = /^svc-sdk\/(\S+)$/.exec(userAgent);
  if (!match) throw new Error(`the User-Agent sent is "${userAgent}", not svc-sdk/<version>`);
  return match[1]!;
}

describe('the release version', () => {
  it('package.json, CHANGELOG.md, package-lock.json and the User-Agent on the wire agree', async () => {
    const versions: Versions = {
      packageJson: packageJson.version,
      packageLock: packageLock.packages['']?.version === packageLock.version ? packageLock.version : `${packageLock.version} (root package ${packageLock.packages['']?.version})`,
      changelog: readText('CHANGELOG.md'),
      userAgent: await userAgentVersion(),
    };
    expect(versionProblems(versions)).toEqual([]);
  });
});

describe('versionProblems', () => {
  const changelog = '# Changelog\n\n## [Unreleased]\n\n### Added\n\n- x\n\n## [0.2.0] - 2026-11-26\n\n- y\n\n## [0.1.0] - 2026-11-22\n';
  const agreeing: Versions = { packageJson: '0.2.0', packageLock: '0.2.0', changelog, userAgent: '0.2.0' };

  it('says nothing when all agree', () => {
    expect(versionProblems(agreeing)).toEqual([]);
  });

  it('names the CHANGELOG section behind package.json (a version bumped without its section)', () => {
    expect(versionProblems({ ...agreeing, packageJson: '0.3.0', packageLock: '0.3.0', userAgent: '0.3.0' })).toEqual([
      "[svc-sdk] CHANGELOG.md's newest release (## [0.2.0] - 2026-11-26) is 0.2.0 but package.json's version is 0.3.0: a release carries one version, so set them equal",
    ]);
  });

  it('names the SDK VERSION left behind (User-Agent)', () => {
    expect(versionProblems({ ...agreeing, userAgent: '0.1.0' })).toEqual([
      expect.stringMatching(/^\[svc-sdk\] the SDK's VERSION in src\/core\/version\.ts \(sent as User-Agent: svc-sdk\/<version>\) is 0\.1\.0 but package\.json's version is 0\.2\.0/),
    ]);
  });

  it('names package-lock.json left behind', () => {
    expect(versionProblems({ ...agreeing, packageLock: '0.1.0' })).toEqual([expect.stringContaining("package-lock.json's version is 0.1.0 but package.json's version is 0.2.0")]);
  });

  it('names every place that disagrees at once', () => {
    expect(versionProblems({ ...agreeing, packageJson: '1.0.0' })).toHaveLength(3);
  });

  it('refuses a changelog with no release, or a release heading without its date', () => {
    expect(versionProblems({ ...agreeing, changelog: '# Changelog\n\n## [Unreleased]\n\n- x\n' })).toEqual([
      "[svc-sdk] CHANGELOG.md has no released section: add ## [x.y.z] - YYYY-MM-DD above the release's entries",
    ]);
    expect(versionProblems({ ...agreeing, changelog: changelog.replace('## [0.2.0] - 2026-11-26', '## [0.2.0]') })).toEqual([
      '[svc-sdk] CHANGELOG.md\'s section "## [0.2.0]" is not a release heading: write it as ## [x.y.z] - YYYY-MM-DD',
    ]);
  });
});

describe('newestRelease', () => {
  it('skips Unreleased and reads the first dated section, prereleases included', () => {
    expect(newestRelease('## [Unreleased]\n## [1.0.0-rc.1] - 2026-12-01\n## [0.9.0] - 2026-11-01\n')).toEqual({ version: '1.0.0-rc.1', date: '2026-12-01' });
    expect(newestRelease('## [Unreleased]\r\n\r\n## [0.2.0] - 2026-11-26\r\n')).toEqual({ version: '0.2.0', date: '2026-11-26' });
  });
});
