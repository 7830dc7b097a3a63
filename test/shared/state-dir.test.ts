import { chmodSync, chownSync, lstatSync, mkdirSync, mkdtempSync, rmSync, symlinkSync, writeFileSync } from 'node:fs';
import { homedir, tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, expect, it, onTestFinished } from 'vitest';
import { ensureStateDirectory, stateDirectory } from '../../src/shared/state-dir.js';

// The one rule of svc-sdk's per-user state folders (upload manifests, the MCP server's secret files):
// made readable by the user alone; one that others can open, or a link, is refused, never used.

const FIX = 'set XDG_STATE_HOME to a folder of your own';

/** What ensureStateDirectory threw (an Error is asserted: `toThrow(text)` passes a thrown `undefined`). */
function refusal(directory: string): Error {
  try {
    ensureStateDirectory(directory, FIX);
  } catch (error) {
    expect(error).toBeInstanceOf(Error);
    return error as Error;
  }
  throw new Error(`${directory} was not refused`);
}

function scratch(): string {
  const root = mkdtempSync(join(tmpdir(), 'svc-state-dir-'));
  onTestFinished(() => rmSync(root, { recursive: true, force: true }));
  return root;
}

describe('stateDirectory', () => {
  it.each([
    [{ XDG_STATE_HOME: '/x/state', HOME: '/home/a' }, 'linux', '/x/state/svc-sdk/uploads'],
    [{ HOME: '/home/a' }, 'linux', '/home/a/.local/state/svc-sdk/uploads'],
    // The XDG specification: a relative path is invalid and ignored.
    [{ XDG_STATE_HOME: 'state', HOME: '/home/a' }, 'darwin', '/home/a/.local/state/svc-sdk/uploads'],
    [{ LOCALAPPDATA: 'C:\\Users\\a\\AppData\\Local', XDG_STATE_HOME: '/x' }, 'win32', 'C:\\Users\\a\\AppData\\Local\\svc-sdk\\uploads'],
    [{ LOCALAPPDATA: 'AppData', USERPROFILE: 'C:\\Users\\b' }, 'win32', 'C:\\Users\\b\\AppData\\Local\\svc-sdk\\uploads'],
    [{ HOME: 'C:\\Users\\c' }, 'win32', 'C:\\Users\\c\\AppData\\Local\\svc-sdk\\uploads'],
  ] as const)('env %j on %s: %s', (env, platform, directory) => {
    expect(stateDirectory('uploads', env, platform)).toBe(directory);
  });

  it("without HOME, the user's home directory", () => {
    expect(stateDirectory('mcp', {}, 'linux')).toBe(`${homedir()}/.local/state/svc-sdk/mcp`);
  });
});

describe.runIf(process.platform !== 'win32')('ensureStateDirectory', () => {
  it('makes a missing folder, and its missing parents, 0700', () => {
    const root = scratch();
    const directory = join(root, 'svc-sdk', 'uploads');
    ensureStateDirectory(directory, FIX);
    expect([lstatSync(directory).mode & 0o777, lstatSync(join(root, 'svc-sdk')).mode & 0o777]).toEqual([0o700, 0o700]);
  });

  it('takes an existing 0700 folder as it is', () => {
    const directory = join(scratch(), 'uploads');
    mkdirSync(directory, { mode: 0o700 });
    writeFileSync(join(directory, 'kept.jsonl'), '');
    ensureStateDirectory(directory, FIX);
    expect(lstatSync(join(directory, 'kept.jsonl')).isFile()).toBe(true);
  });

  it('refuses a pre-made 0777 folder, naming it, its mode and the fix; its mode is left as it is', () => {
    const directory = join(scratch(), 'uploads');
    mkdirSync(directory);
    chmodSync(directory, 0o777);
    expect(refusal(directory).message).toContain(
      `[svc-sdk] the state folder ${directory} can be opened by other users (mode 0777): run chmod 700 '${directory}', or ${FIX}`,
    );
    expect(lstatSync(directory).mode & 0o777).toBe(0o777);
  });

  it.each([0o750, 0o705, 0o710])('refuses a folder its group or others can enter (mode %o)', (mode) => {
    const directory = join(scratch(), 'uploads');
    mkdirSync(directory);
    chmodSync(directory, mode);
    expect(refusal(directory).message).toContain(`(mode 0${mode.toString(8)})`);
  });

  it('refuses a symbolic link to a 0700 folder, naming the path and the fix, and writes nothing through it', () => {
    const root = scratch();
    const target = join(root, 'elsewhere');
    mkdirSync(target, { mode: 0o700 });
    const directory = join(root, 'uploads');
    symlinkSync(target, directory);
    expect(refusal(directory).message).toContain(
      `[svc-sdk] the state folder ${directory} is a symbolic link: remove it (svc-sdk makes the folder itself, readable by you alone), or ${FIX}`,
    );
  });

  it('refuses a link to nowhere without creating its target', () => {
    const root = scratch();
    const directory = join(root, 'uploads');
    symlinkSync(join(root, 'planted'), directory);
    expect(refusal(directory).message).toContain('is a symbolic link');
    expect(() => lstatSync(join(root, 'planted'))).toThrow('ENOENT');
  });

  it('refuses a file where the folder should be', () => {
    const directory = join(scratch(), 'uploads');
    writeFileSync(directory, '');
    expect(refusal(directory).message).toContain(`[svc-sdk] the state folder ${directory} is not a folder: remove it, or ${FIX}`);
  });

  it.runIf(process.getuid?.() === 0)("refuses another user's folder, even a 0700 one", () => {
    const directory = join(scratch(), 'uploads');
    mkdirSync(directory, { mode: 0o700 });
    chownSync(directory, 4242, 4242);
    expect(refusal(directory).message).toBe(`[svc-sdk] the state folder ${directory} belongs to another user (uid 4242): use a folder of your own, or ${FIX}`);
  });

  it('says why a folder cannot be read (a loop of links above it), with the fix and the cause', () => {
    const root = scratch();
    symlinkSync(join(root, 'loop'), join(root, 'loop'));
    const directory = join(root, 'loop', 'uploads');
    const error = refusal(directory);
    expect(error.message).toBe(`[svc-sdk] cannot read the state folder ${directory} (ELOOP): ${FIX}`);
    expect(error.cause).toMatchObject({ code: 'ELOOP' });
  });

  it('says why a folder cannot be made, with the fix', () => {
    const root = scratch();
    writeFileSync(join(root, 'file'), '');
    const directory = join(root, 'file', 'uploads');
    const error = refusal(directory);
    expect(error.message).toBe(`[svc-sdk] cannot create the state folder ${directory} (ENOTDIR): ${FIX}`);
    expect(error.cause).toMatchObject({ code: 'ENOTDIR' });
  });
});
