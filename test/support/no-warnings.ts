// vitest setupFiles: a warning Node prints for a bug of ours fails the test run instead of scrolling
// past in its output. A timer of a negative delay (TimeoutNegativeWarning) fires at once, so the
// code meant no wait and computed one wrong.
process.on('warning', (warning) => {
  if (warning.name === 'TimeoutNegativeWarning') throw new Error(`[svc-sdk] a timer was set with a negative delay: ${warning.message}`);
});
