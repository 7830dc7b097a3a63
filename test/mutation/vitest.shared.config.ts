// The mutation run of src/shared's rules alone (stryker.shared.config.mjs): the state-folder rule
// (test/shared) and the one redaction rule (test/redaction, and the errors and logs that show it).
import { narrowedConfig } from './narrowed-config.js';

export default narrowedConfig(['test/shared/**/*.test.ts', 'test/redaction/**/*.test.ts', 'test/client/failure-text.test.ts', 'test/client/logging.test.ts']);
