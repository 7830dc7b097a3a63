import type { Uploadable } from './types.js';

/** The states a manifest line records; `sending` is written before a body is sent. */
export type ManifestState = 'sending' | 'uploaded' | 'failed' | 'unknown';

/** One line of an uploadMany manifest (JSON Lines): a file and what became of it. */
export interface ManifestRecord {
  path: string;
  size: number | undefined;
  mtimeMs: number | undefined;
  state: ManifestState;
  sha256?: string | undefined;
  documentId?: number | undefined;
  /** The error's message, for `failed` and `unknown`. */
  error?: string | undefined;
}

/** An open manifest: what earlier runs recorded (the last line of each path), and a durable append. */
export interface Manifest {
  readonly previous: ReadonlyMap<string, ManifestRecord>;
  /** Resolves once the line is on disk (written and synced); lines never interleave. */
  append(record: ManifestRecord): Promise<void>;
  close(): Promise<void>;
}

/** A regular file found below the directory of a run. */
export interface ListedFile {
  /** Relative to the directory, `/`-separated. */
  path: string;
  absolutePath: string;
  size: number;
  mtimeMs: number;
}

/** A file opened for upload: its content as `documents.upload` takes it, hashed as it is read. */
export interface HashedSource {
  file: Uploadable;
  /** True once the whole content has been read (by the upload). */
  readonly exhausted: boolean;
  /** SHA-256 of the content in hex, once exhausted. */
  sha256(): string | undefined;
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
  /** Every regular file below `directory`, recursively, in code-unit order of its relative path; symlinks are not followed. */
  listFiles(directory: string, exclude: string | undefined): Promise<ListedFile[]>;
  /** Opens a listed file for upload, hashed in the read that uploads it; rejects when it cannot be opened. */
  openHashed(file: ListedFile): Promise<HashedSource>;
  /** SHA-256 of a whole file, in hex. */
  hashFile(absolutePath: string): Promise<string>;
  /** Opens (creating it when missing) the manifest at `path`, dropping a line cut short by a crash. */
  openManifest(path: string): Promise<Manifest>;
  /** The absolute form of a path, to compare the manifest's with the directory's files. */
  resolve(path: string): string;
  createHasher(): Hasher;
}

let support: FileSystemSupport | undefined;

/** Registers the file system of this runtime (called once by the `node` entry). @internal */
export function useFileSystem(fileSystem: FileSystemSupport): void {
  support = fileSystem;
}

/** The registered file system, if any. */
export function fileSystem(): FileSystemSupport | undefined {
  return support;
}
