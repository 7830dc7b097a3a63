// What `room_documents_upload` refuses to send even inside an upload root: the server's own state
// folder and the places credentials live. A model steered by a planted document chooses the paths;
// a data room (and whatever room_ask returns from it) is not where ~/.ssh should end up. Each rule
// has a name the user can opt in to (`allowUploads` / `--allow-upload <rule>`): the refusal names
// the path, the rule and that flag, so the user, not the model, decides.
import { isAbsolute, relative, sep } from 'node:path';
import { stateDirectory } from 'svc-sdk/internal';

/** A rule of the upload policy: its name (what the opt-in names), what it covers, and the test. */
interface UploadRule {
  readonly name: string;
  readonly covers: string;
  /** True when `segments` (of a real, absolute path) fall under the rule. */
  readonly matches: (segments: readonly string[]) => boolean;
}

/** True when one of `names` is a folder on the path (a segment before the last). */
const folderNamed = (...names: string[]) => (segments: readonly string[]) => segments.slice(0, -1).some((segment) => names.includes(segment));
/** True when the file's own name matches `pattern`. */
// split() always gives at least one segment.
const fileNamed = (pattern: RegExp) => (segments: readonly string[]) => pattern.test(segments.at(-1)!);

/** Every rule but the state folder's (which depends on where the server keeps its state). */
const CREDENTIAL_RULES: readonly UploadRule[] = [
  { name: 'ssh', covers: 'an SSH folder (.ssh)', matches: folderNamed('.ssh') },
  { name: 'gnupg', covers: 'a GnuPG folder (.gnupg)', matches: folderNamed('.gnupg') },
  { name: 'aws', covers: 'AWS credentials (.aws)', matches: folderNamed('.aws') },
  { name: 'azure', covers: 'Azure credentials (.azure)', matches: folderNamed('.azure') },
  { name: 'kube', covers: 'Kubernetes credentials (.kube)', matches: folderNamed('.kube') },
  { name: 'docker', covers: 'Docker credentials (.docker)', matches: folderNamed('.docker') },
  {
    name: 'gcloud',
    covers: 'Google Cloud credentials (.config/gcloud)',
    // `.config` followed by `gcloud`: the last segment never has a follower, so no slice is needed.
    matches: (segments) => segments.some((segment, index) => segment === '.config' && segments[index + 1] === 'gcloud'),
  },
  { name: 'netrc', covers: 'a .netrc file', matches: fileNamed(/^[._]netrc$/i) },
  { name: 'npmrc', covers: 'an .npmrc file', matches: fileNamed(/^\.npmrc$/i) },
  { name: 'env', covers: 'an .env file (.env, .env.local, ...)', matches: fileNamed(/^\.env(\..*)?$/i) },
  { name: 'pem', covers: 'a .pem file', matches: fileNamed(/\.pem$/i) },
  { name: 'key', covers: 'a .key file', matches: fileNamed(/\.key$/i) },
  { name: 'p12', covers: 'a .p12 / .pfx file', matches: fileNamed(/\.(p12|pfx)$/i) },
  { name: 'id', covers: 'a key file named id_* (id_rsa, id_ed25519, ...)', matches: fileNamed(/^id_/) },
  {
    name: 'keychain',
    covers: 'a keychain or keyring (Keychains, keyrings, .password-store, *.keychain, *.keychain-db, *.kdbx)',
    matches: (segments) => folderNamed('Keychains', 'keyrings', '.password-store')(segments) || fileNamed(/\.(keychain|keychain-db|kdbx)$/i)(segments),
  },
  {
    name: 'svc-sdk',
    covers: "svc-sdk's own secret files and upload manifests",
    matches: (segments) => folderNamed('webhook-secrets', 'upload-manifests')(segments) || fileNamed(/\.secret$|\.svc-upload\.jsonl$/i)(segments),
  },
];

/** The names a user can opt in to, in the order refusals are checked. */
export const UPLOAD_RULE_NAMES: readonly string[] = ['state-dir', ...CREDENTIAL_RULES.map((rule) => rule.name)];

/** Why a path is not uploaded: the rule that covers it, said for the model and the user. */
export interface Refusal {
  readonly rule: string;
  readonly message: string;
}

/** The upload policy of one server: the rules, less those the user opted in to. */
export interface UploadPolicy {
  /** The refusal for the real, absolute `path`, or undefined when it may be sent. */
  refusal(path: string): Refusal | undefined;
}

/**
 * The policy of a server keeping its state in `stateDir`: every rule applies but those named in
 * `allowed` (checked here: an unknown name throws, naming the known ones).
 */
export function uploadPolicy(stateDir: string, allowed: readonly string[] = [], env: NodeJS.ProcessEnv = process.env): UploadPolicy {
  for (const name of allowed) {
    if (!UPLOAD_RULE_NAMES.includes(name)) throw new Error(`[svc-sdk] allowUploads: no upload rule is named "${name}": choose from ${UPLOAD_RULE_NAMES.join(', ')}`);
  }
  // The server's own folder and svc-sdk's state folder of every tool (the CLI's upload manifests too).
  const stateFolders = [stateDir, stateDirectory('', env)];
  const stateRule: UploadRule = {
    name: 'state-dir',
    covers: "svc-sdk's state folder (commit keys, webhook secrets, manifests)",
    matches: (segments) => stateFolders.some((folder) => inside(folder, segments.join(sep) || sep)),
  };
  const rules = [stateRule, ...CREDENTIAL_RULES].filter((rule) => !allowed.includes(rule.name));
  return {
    refusal(path) {
      const segments = path.split(/[\\/]+/);
      const rule = rules.find((candidate) => candidate.matches(segments));
      if (rule === undefined) return undefined;
      return {
        rule: rule.name,
        message: `"${path}" is ${rule.covers} (upload rule "${rule.name}"): not sent. Only the user can allow it, by starting the server with --allow-upload ${rule.name} (allowUploads: ['${rule.name}'])`,
      };
    },
  };
}

/** True when `path` is `folder` or below it (both absolute). */
export function inside(folder: string, path: string): boolean {
  const rel = relative(folder, path);
  // `..` and `../…` lead out; a name that only starts with two dots (`..notes`) is inside, and so is `folder` itself ('').
  return rel !== '..' && !rel.startsWith(`..${sep}`) && !isAbsolute(rel);
}
