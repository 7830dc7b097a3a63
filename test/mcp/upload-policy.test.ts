// The upload policy, rule by rule: what each covers, what it does not, and how a user lifts it.
import { join } from 'node:path';
import { describe, expect, it } from 'vitest';
import { inside, UPLOAD_RULE_NAMES, uploadPolicy } from '../../packages/mcp/src/upload-policy.js';

const STATE = '/home/u/.local/state/svc-sdk/mcp';
const env = { HOME: '/home/u', XDG_STATE_HOME: '' };
const ruleOf = (path: string, allowed: string[] = []) => uploadPolicy(STATE, allowed, env).refusal(path)?.rule;

describe('uploadPolicy', () => {
  it.each([
    ['/home/u/.ssh/id_ed25519', 'ssh'],
    ['/home/u/.ssh/known_hosts', 'ssh'],
    ['/home/u/.gnupg/pubring.kbx', 'gnupg'],
    ['/home/u/.aws/credentials', 'aws'],
    ['/home/u/.azure/accessTokens.json', 'azure'],
    ['/home/u/.kube/config', 'kube'],
    ['/home/u/.docker/config.json', 'docker'],
    ['/home/u/.config/gcloud/credentials.db', 'gcloud'],
    ['/home/u/.netrc', 'netrc'],
    ['/home/u/_netrc', 'netrc'],
    ['/home/u/proj/.npmrc', 'npmrc'],
    ['/home/u/proj/.env', 'env'],
    ['/home/u/proj/.env.production', 'env'],
    ['/home/u/proj/.ENV', 'env'],
    ['/home/u/certs/server.pem', 'pem'],
    ['/home/u/certs/server.PEM', 'pem'],
    ['/home/u/certs/server.key', 'key'],
    ['/home/u/certs/bundle.p12', 'p12'],
    ['/home/u/certs/bundle.pfx', 'p12'],
    ['/home/u/backup/id_rsa', 'id'],
    ['/home/u/backup/id_ecdsa.pub', 'id'],
    ['/home/u/Library/Keychains/login.keychain-db', 'keychain'],
    ['/home/u/.local/share/keyrings/login.keyring', 'keychain'],
    ['/home/u/.password-store/bank.gpg', 'keychain'],
    ['/home/u/old/login.keychain', 'keychain'],
    ['/home/u/vault.kdbx', 'keychain'],
    ['/home/u/copy/webhook-secrets/webhook-1.secret', 'svc-sdk'],
    ['/home/u/copy/upload-manifests/ab.jsonl', 'svc-sdk'],
    ['/home/u/copy/webhook-9.secret', 'svc-sdk'],
    ['/home/u/proj/.svc-upload.jsonl', 'svc-sdk'],
    [`${STATE}/commit-key`, 'state-dir'],
    [STATE, 'state-dir'],
    ['/home/u/.local/state/svc-sdk/uploads/m.jsonl', 'state-dir'],
  ])('%s is refused by rule %s', (path, rule) => {
    expect(ruleOf(path)).toBe(rule);
  });

  it.each([
    '/home/u/docs/memo.txt',
    '/home/u/docs/ssh-notes.txt',
    '/home/u/docs/.sshrc',
    '/home/u/docs/environment.md',
    '/home/u/docs/.envrc',
    '/home/u/docs/pem.txt',
    '/home/u/docs/keynote.key.txt',
    '/home/u/docs/identity.pdf',
    '/home/u/docs/my_id_card.png',
    '/home/u/.config/other/settings.json',
    '/home/u/gcloud/readme.md',
    '/home/u/docs/secret.txt',
    '/home/u/.local/state/other-tool/x',
    '/home/u/docs/.aws',
    // Each file-name rule is the whole name: the pattern inside a longer name is not a credential place.
    '/home/u/docs/my.netrc',
    '/home/u/docs/.netrc-howto.md',
    '/home/u/docs/example.npmrc',
    '/home/u/docs/.npmrc-guide.md',
    '/home/u/docs/release.env.md',
    '/home/u/docs/chain.pem.txt',
    '/home/u/docs/bundle.p12.txt',
    '/home/u/docs/bundle.pfx.txt',
    '/home/u/docs/vault.kdbx.txt',
    '/home/u/docs/login.keychain.md',
    '/home/u/docs/how.secret.works.md',
    '/home/u/docs/a.svc-upload.jsonl.txt',
    '/home/u/docs/svc-upload.jsonl',
    '/home/u/docs/ids/notes.txt',
  ])('%s is sent', (path) => {
    expect(ruleOf(path)).toBeUndefined();
  });

  it('with no opt-in named, every rule applies', () => {
    expect(uploadPolicy(STATE).refusal('/home/u/.ssh/config')?.rule).toBe('ssh');
  });

  it('the refusal names the path, what the rule covers, the rule and the flag that lifts it', () => {
    expect(uploadPolicy(STATE, [], env).refusal('/home/u/.ssh/id_ed25519')?.message).toBe(
      '"/home/u/.ssh/id_ed25519" is an SSH folder (.ssh) (upload rule "ssh"): not sent. Only the user can allow it, by starting the server with --allow-upload ssh (allowUploads: [\'ssh\'])',
    );
  });

  it("the state folder's refusal says what the folder is; a doubled separator does not hide .config/gcloud", () => {
    expect(uploadPolicy(STATE, [], env).refusal(`${STATE}/commit-key`)?.message).toBe(
      `"${STATE}/commit-key" is svc-sdk's state folder (commit keys, webhook secrets, manifests) (upload rule "state-dir"): not sent. Only the user can allow it, by starting the server with --allow-upload state-dir (allowUploads: ['state-dir'])`,
    );
    expect(ruleOf('/home/u/.config//gcloud/credentials.db')).toBe('gcloud');
    expect(ruleOf('/home/u//.ssh///id_ed25519')).toBe('ssh');
  });

  it('a lifted rule lets its pattern through and no other; the first rule that covers a path is named', () => {
    expect(ruleOf('/home/u/.ssh/id_ed25519', ['ssh'])).toBe('id');
    expect(ruleOf('/home/u/.ssh/id_ed25519', ['ssh', 'id'])).toBeUndefined();
    expect(ruleOf('/home/u/.ssh/config', ['ssh'])).toBeUndefined();
    expect(ruleOf(`${STATE}/webhook-secrets/w.secret`)).toBe('state-dir');
    expect(ruleOf(`${STATE}/webhook-secrets/w.secret`, ['state-dir'])).toBe('svc-sdk');
    expect(ruleOf(`${STATE}/notes.txt`, ['state-dir'])).toBeUndefined();
  });

  it('the state folder of any tool is svc-sdk\'s, wherever XDG_STATE_HOME puts it', () => {
    const policy = uploadPolicy('/srv/mcp-state', [], { HOME: '/home/u', XDG_STATE_HOME: '/var/state' });
    expect(policy.refusal('/srv/mcp-state/x')?.rule).toBe('state-dir');
    expect(policy.refusal('/var/state/svc-sdk/uploads/x')?.rule).toBe('state-dir');
    expect(policy.refusal('/home/u/.local/state/svc-sdk/x')).toBeUndefined();
    expect(policy.refusal('/srv/mcp-state-other/x')).toBeUndefined();
  });

  it('an unknown rule name throws, listing the known ones', () => {
    expect(() => uploadPolicy(STATE, ['ssh', 'everything'])).toThrow(`[svc-sdk] allowUploads: no upload rule is named "everything": choose from ${UPLOAD_RULE_NAMES.join(', ')}`);
    expect(UPLOAD_RULE_NAMES).toEqual(['state-dir', 'ssh', 'gnupg', 'aws', 'azure', 'kube', 'docker', 'gcloud', 'netrc', 'npmrc', 'env', 'pem', 'key', 'p12', 'id', 'keychain', 'svc-sdk']);
  });
});

describe('inside', () => {
  it('is the folder itself or below it, never a sibling that shares its prefix or a parent', () => {
    expect(inside('/a/b', '/a/b')).toBe(true);
    expect(inside('/a/b', join('/a/b', 'c/d'))).toBe(true);
    expect(inside('/a/b', '/a/bc')).toBe(false);
    expect(inside('/a/b', '/a')).toBe(false);
    expect(inside('/a/b', '/x/a/b')).toBe(false);
    expect(inside('/a/b', '/a/b/..c')).toBe(true);
  });
});
