// The A/B baseline of `npm run bench -- --baseline <ref>`: that commit's build, installed as
// `svc-sdk-baseline` by scripts/build-baseline.mjs. Sections add it as one more interleaved case.
// Read when a section runs (bench/run.mjs sets BENCH_BASELINE after its imports are evaluated).

/** The baseline's ref as given (`main`, a sha), or undefined when the run has none. */
export const baselineRef = () => process.env.BENCH_BASELINE || undefined;

/**
 * A case name for the baseline's build of `what`: `baseline main: svc-sdk rooms.create`. It starts
 * with `baseline`, so no summary that finds its rows by a name's start takes it for this build's.
 */
export const baselineName = (what) => `baseline ${baselineRef()}: ${what}`;

/** `svc-sdk-baseline` or one of its entries (`/webhooks`, `/otel`), or undefined without a baseline. */
export async function importBaseline(entry = '') {
  return baselineRef() ? import(`svc-sdk-baseline${entry}`) : undefined;
}
