// The emulator's optional peer dependencies are imported through importPeer only, so that a missing
// one is reported as one line naming the install command instead of a resolution error and its stack.
// msw is needed at import (msw.ts: the handlers are msw handlers, built synchronously by
// createEmulator); minisearch and @hono/node-server are loaded on first use of search and of listen().
// No import of a peer here: the CLI reads this module also for `trigger`, which needs none.

/** The optional peers of `svc-sdk/testing` and the CLI's `emulator` command. */
export const EMULATOR_PEERS = ['msw', '@hono/node-server', 'minisearch'] as const;

/** One of the emulator's optional peers. */
export type EmulatorPeer = (typeof EMULATOR_PEERS)[number];

/** The command that installs every optional peer of the emulator. */
export const INSTALL_PEERS = `npm install -D ${EMULATOR_PEERS.join(' ')}`;

/** The one line that says what `feature` needs and the command that installs it. */
export function missingPeersMessage(missing: readonly EmulatorPeer[], feature: string, install = `npm install -D ${missing.join(' ')}`): string {
  const names = missing.length === 1 ? missing[0]! : `${missing.slice(0, -1).join(', ')} and ${missing.at(-1)!}`;
  const what = missing.length === 1 ? 'an optional peer dependency' : 'optional peer dependencies';
  return `[svc-sdk] ${feature} needs ${names} (${what}, not installed): ${install}`;
}

/** An optional peer is not installed; the message is the one line to print, naming the install command. */
export class MissingPeerError extends Error {
  override readonly name = 'MissingPeerError';

  constructor(message: string) {
    super(message);
    // The message says it all: no frames under it when Node or a caller prints the error.
    this.stack = `${this.name}: ${this.message}`;
  }
}

/** True when `error` says that `peer` itself cannot be found (not a module inside an installed peer). */
export function isPeerNotFound(error: unknown, peer: string): boolean {
  const { code, message } = (error ?? {}) as { code?: unknown; message?: unknown };
  if (typeof message !== 'string') return false;
  const notFound = code === 'ERR_MODULE_NOT_FOUND' || code === 'MODULE_NOT_FOUND' || /cannot find (module|package)/i.test(message);
  return notFound && (message.includes(`'${peer}'`) || message.includes(`'${peer}/`) || message.includes(`"${peer}"`) || message.includes(`"${peer}/`));
}

/** Runs `load` (an import of `peer`); a missing peer becomes a `MissingPeerError` naming `feature`. */
export async function importPeer<T>(peer: EmulatorPeer, load: () => Promise<T>, feature: string): Promise<T> {
  try {
    return await load();
  } catch (error) {
    if (isPeerNotFound(error, peer)) throw new MissingPeerError(missingPeersMessage([peer], feature));
    throw error;
  }
}
