// The mutation run of the client's errors, hooks, logs and the shared rules they show failures by
// (stryker.errors.config.mjs): the tests that reach src/core/errors.ts, hooks.ts, logger.ts and
// src/shared/{redact,fetch-failure,runtime}.ts through the public API and the wire. Not
// test/redaction/urls-everywhere.test.ts, nor test/otel: they need the OpenTelemetry SDK packages,
// which the mutation machine does not have installed.
import { narrowedConfig } from './narrowed-config.js';

export default narrowedConfig([
  'test/client/errors.test.ts',
  'test/client/error-messages.test.ts',
  'test/client/error-objects.test.ts',
  'test/client/failure-text.test.ts',
  'test/client/failures.test.ts',
  'test/client/aborts.test.ts',
  'test/client/faults.test.ts',
  'test/client/hooks.test.ts',
  'test/client/hook-attacks.test.ts',
  'test/client/logging.test.ts',
  'test/client/logging-guards.test.ts',
  'test/client/browser-headers.test.ts',
  'test/uploads/redirect.test.ts',
  'test/redaction/redact-rule.test.ts',
  'test/redaction/refusal-reasons.test.ts',
]);
