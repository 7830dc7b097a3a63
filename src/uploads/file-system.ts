import type { ValidationError } from '../core/errors.js';
import type { Uploadable } from './types.js';

/** The states a manifest line records; `sending` is written before a body is sent. */
export type ManifestState = 'sending' | 'uploaded' | 'failed' | 'unknown';

/** One line of an uploadMany manifest (JSON Lines): a file and what became of it. */
export interface ManifestRecord {
  path: string;
  /** Bytes actually read and sent (or, for `sending`, listed); not the size a listing saw. */
  size: number | undefined;
  mtimeMs: number | undefined;
  state: ManifestState;
  /** SHA-256 of the bytes actually read and sent, in hex. */
  sha256?: string | undefined;
  documentId?: number | undefined;
  /** The error's message, for `failed` and `unknown`. */
  error?: string | undefined;
  /** The room the file was sent to (absent in manifests of svc-sdk 0.3). */
  room?: number | undefined;
  /** The service's origin (`https://host:port`) the file was sent to (absent in manifests of svc-sdk 0.3). */
  origin?: string | undefined;
}

/**
 * The files a manifest keeps beside it, by suffix of its path: its lock (`<manifest>.lock`) and the
 * copy a compaction renames over it (`<manifest>.compact.<random>`; `<manifest>.compact` in 0.4).
 */
export const MANIFEST_COMPANIONS = { lock: '.lock', compaction: '.compact' } as const;

/** Whether `path` is the manifest at `manifest` or one of its companions: never a folder's file to upload. */
export function isManifestFile(path: string, manifest: string): boolean {
  return path === manifest || path === `${manifest}${MANIFEST_COMPANIONS.lock}` || path.startsWith(`${manifest}${MANIFEST_COMPANIONS.compaction}`);
}

/** Whose records a run reads and writes: one room of one service. */
export interface ManifestScope {
  room: number;
  origin: string;
}

/** An open, locked manifest: what earlier runs recorded for this scope (the last line of each path), and a durable append. */
export interface Manifest {
  /** The last record of each path for this run's room and origin. */
  readonly previous: ReadonlyMap<string, ManifestRecord>;
  /** Paths recorded for another room or origin, and paths recorded with none (svc-sdk 0.3): not used. */
  readonly ignored: { readonly otherScope: number; readonly unscoped: number };
  /** Resolves once the line is on disk (written and synced); lines never interleave. The scope is added. */
  append(record: ManifestRecord): Promise<void>;
  /** Writes every waiting line, closes the file and releases the lock. */
  close(): Promise<void>;
}

/** A regular file found below the directory of a run, with what identifies it (device, inode). */
export interface ListedFile {
  /** Relative to the directory, `/`-separated. */
  path: string;
  absolutePath: string;
  size: number;
  mtimeMs: number;
  dev: number;
  ino: number;
}

/** An entry of the directory that cannot be sent (a name that is not UTF-8, an entry that cannot be read): its `failed`. */
export interface UnlistableEntry {
  /** Relative to the directory, bytes that are not UTF-8 shown as `\xNN`. */
  path: string;
  error: ValidationError;
}

/** A file opened for upload: its content as `documents.upload` takes it, hashed as it is read. */
export interface HashedSource {
  file: Uploadable;
  /** True once the whole content has been read (by the upload). */
  readonly exhausted: boolean;
  /** SHA-256 of the content read, in hex, once exhausted. */
  sha256(): string | undefined;
  /** Bytes of the content read, once exhausted (what was sent, whatever the listing said). */
  size(): number | undefined;
}

/** An incremental SHA-256. */
export interface Hasher {
  update(bytes: Uint8Array): void;
  digest(): string;
}

/**
 * What `uploadMany` needs from a file system and a hash: Node's is registered by the `node` entry
 * (index.node.ts); elsewhere there is none, and directory inputs and manifests are refused.
 */
export interface FileSystemSupport {
  /**
   * Every regular file below `directory`, recursively, in code-unit order of its relative path;
   * symlinks are not followed; entries that cannot be sent come as UnlistableEntry, in the same order.
   * `exclude` holds the absolute paths of manifests left out with their companions (isManifestFile), undefined for none.
   */
  listFiles(directory: string, exclude: readonly string[] | undefined): Promise<Array<ListedFile | UnlistableEntry>>;
  /**
   * Opens a listed file for upload without following a link, checks it is still the listed file
   * (device, inode, size), hashed in the read that uploads it; rejects (ValidationError) otherwise.
   */
  openHashed(file: ListedFile): Promise<HashedSource>;
  /** SHA-256 of a whole listed file, in hex, opened as `openHashed` opens it. */
  hashFile(file: ListedFile): Promise<string>;
  /** Opens (creating it when missing) and locks the manifest at `path` for one room of one service. */
  openManifest(path: string, scope: ManifestScope): Promise<Manifest>;
  /** The absolute form of a path, to compare the manifest's with the directory's files. */
  resolve(path: string): string;
  createHasher(): Hasher;
}

type Registration = FileSystemSupport | (() => Promise<FileSystemSupport>);

let registered: Registration | undefined;
let loaded: Promise<FileSystemSupport> | undefined;

/**
 * Registers the file system of this runtime: the `node` entry registers a loader (a dynamic import,
 * so a Client that never calls uploadMany does not load node:fs code); the CLI registers it as is. @internal
 */
export function useFileSystem(fileSystem: Registration): void {
  registered = fileSystem;
  loaded = undefined;
}

/** The registered file system, loaded on first use; undefined when this runtime has none (the web build). */
export function loadFileSystem(): Promise<FileSystemSupport | undefined> {
  if (registered === undefined) return Promise.resolve(undefined);
  if (typeof registered !== 'function') return Promise.resolve(registered);
  loaded ??= registered();
  return loaded;
}
