// msw, the one peer the emulator needs as soon as it is imported (see peers.ts).
import type * as MswHttp from 'msw/http';
import type * as MswGetResponse from 'msw/utils/get-response';
import { INSTALL_PEERS, isPeerNotFound, MissingPeerError, missingPeersMessage } from './peers.js';

/** The parts of msw the emulator uses. */
export interface Msw {
  http: typeof MswHttp.http;
  HttpResponse: typeof MswHttp.HttpResponse;
  getResponse: typeof MswGetResponse.getResponse;
}

// tsup defines TSUP_FORMAT in each build ('esm' | 'cjs'); from source (vitest, tsx) it is undefined.
declare const TSUP_FORMAT: string | undefined;

function requireMsw(): Msw {
  try {
    /* eslint-disable @typescript-eslint/no-require-imports -- the CJS build loads its peer synchronously */
    const { http, HttpResponse } = require('msw/http') as typeof MswHttp;
    const { getResponse } = require('msw/utils/get-response') as typeof MswGetResponse;
    /* eslint-enable @typescript-eslint/no-require-imports */
    return { http, HttpResponse, getResponse };
  } catch (error) {
    throw isPeerNotFound(error, 'msw') ? mswMissing() : error;
  }
}

async function importMsw(): Promise<Msw> {
  // Subpaths, not the 'msw' root: the root also loads msw's WebSocket support, whose BroadcastChannel
  // keeps a Deno process alive after the work is done.
  try {
    const [{ http, HttpResponse }, { getResponse }] = await Promise.all([import('msw/http'), import('msw/utils/get-response')]);
    return { http, HttpResponse, getResponse };
  } catch (error) {
    throw isPeerNotFound(error, 'msw') ? mswMissing() : error;
  }
}

/** Without msw nothing works; the command installs every peer, so the next step does not fail on the next one. */
function mswMissing(): MissingPeerError {
  return new MissingPeerError(missingPeersMessage(['msw'], 'svc-sdk/testing', INSTALL_PEERS));
}

// msw is loaded when `svc-sdk/testing` is imported: by a top-level await in ESM (a static import
// would fail at link time, before any code of ours could explain it) and by `require` in the CJS
// build, where top-level await does not exist. Each build drops the statement labelled for the
// other format (esbuild's dropLabels, tsup.config.ts); from source, the ESM statement runs.
let loaded: Msw | undefined;
/* eslint-disable no-unused-labels -- the labels are read by the build, not by the code */
CJS_BUILD: if (typeof TSUP_FORMAT !== 'undefined') loaded = requireMsw();
ESM_BUILD: loaded ??= await importMsw();
/* eslint-enable no-unused-labels */

/** The parts of msw the emulator uses, loaded when `svc-sdk/testing` is imported. */
export const msw: Msw = loaded;
