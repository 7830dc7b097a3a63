import { resolve } from 'node:path';
import type { FileSystemSupport } from './file-system.js';
import { createHasher, hashFile, openHashed } from './hash-node.js';
import { openManifest } from './manifest-node.js';
import { listFiles } from './walk-node.js';

/** The file system of `documents.uploadMany` on Node (also Bun and Deno): directories, manifests, node:crypto hashes. */
export const nodeFileSystem: FileSystemSupport = { listFiles, openHashed, hashFile, openManifest, resolve, createHasher };
