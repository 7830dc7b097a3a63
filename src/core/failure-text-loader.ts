// Loads failure-text.ts (how errors and log lines show a failure: the redaction rule and a
// message's words) as soon as the errors are loaded, and stands in for it until it has. A call waits
// for it before it reads its answer or names its failure (`failureTextSettled`), so every error and
// log line of a call uses it. What is shown before it has loaded (an error made by hand before any
// Client, a debug line of a first attempt that outruns it) or where it cannot load (a chunk a
// browser could not fetch) says less and hides more, never the reverse: a URL without its user info
// and its whole query, a body withheld, a message without the service's words.
//
// Why not a plain import: a bundler that splits (esbuild, Rollup, webpack) loads at start every
// module the entry imports; the client's text of a failure is 3 kB of its bundle (BENCHMARKS.md).
import type * as FailureText from './failure-text.js';

// shared/redact.ts's REDACTED, the marker every redaction writes (importing it would load that module at start).
const REDACTED = '[redacted]';

/** Says less and hides more than failure-text.ts, while it has not loaded. */
const STAND_IN: typeof FailureText = {
  redactUrl: (url) => url.replace(/[?#][^]*/, `?${REDACTED}`).replace(/^([a-z][\w+.-]*:\/\/)[^/]*@/i, `$1${REDACTED}@`),
  redactBody: withhold,
  redactEveryString: withhold,
  answerReason: () => undefined,
  describeReason: (reason) => (reason instanceof Error ? reason.name : typeof reason),
  unreached: () => 'the service',
};

let loaded: typeof FailureText | undefined;
let loading: Promise<unknown> | undefined;

/**
 * Whether loading failure-text.ts has ended (loaded, or could not load): a call reads it, a live
 * binding, to wait for nothing once it has (`response = await (settled ? sent : sent.finally(loadFailureText))`).
 */
export let failureTextSettled = false;

/** Loads failure-text.ts, once; settles when it is in or could not load (the stand-in then stays). Never rejects. */
export function loadFailureText(): Promise<unknown> {
  return (loading ??= import('./failure-text.js').then(
    (module) => {
      loaded = module;
      failureTextSettled = true;
    },
    () => {
      failureTextSettled = true;
    },
  ));
}

/** failure-text.ts, or the stand-in while it has not loaded. */
export function failureText(): typeof FailureText {
  return loaded ?? STAND_IN;
}

// Started as soon as the client's errors are: an error made by hand (an integrator's test double)
// shows the full text too, and a first call seldom waits for it.
void loadFailureText();

/** A body shown before the rule has loaded: a string or an object withheld whole; nothing else can hold a secret. */
function withhold(body: unknown): unknown {
  return typeof body === 'string' || (typeof body === 'object' && body !== null) ? REDACTED : body;
}
