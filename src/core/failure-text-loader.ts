// To be deleted at the merge: http.ts and logger.ts, which another branch is changing, still import
// these names. There is one redaction rule and it is always there (failure-text.ts, imported as any
// module is): an error's text never depends on whether an import has finished. The lead replaces
// `failureText().x` with failure-text.ts's `x` in logger.ts, drops the wait in http.ts, and removes this file.
import { answerReason, describeReason, redactBody, redactEveryString, redactUrl, unreached } from './failure-text.js';

// An object, not a namespace import: a bundler keeps a namespace object's helper in a chunk every entry loads.
const TEXT = { answerReason, describeReason, redactBody, redactEveryString, redactUrl, unreached };

/** Always true: failure-text.ts is a static import (kept for http.ts until the merge). */
export const failureTextSettled = true;

/** Nothing to load (kept for http.ts until the merge). */
export function loadFailureText(): Promise<void> {
  return Promise.resolve();
}

/** failure-text.ts itself (kept for logger.ts until the merge). */
export function failureText(): typeof TEXT {
  return TEXT;
}
