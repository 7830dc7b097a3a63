import { defineConfig } from 'tsup';
import { nodePackage } from '../tsup.node.js';

// The `svc-sdk` bin: one ESM entry; its dependencies (svc-sdk, @svc-sdk/mcp, msw, bullmq, ...) stay
// imports, loaded by the command that needs them.
export default defineConfig({ ...nodePackage, entry: { cli: 'src/main.ts' }, format: ['esm'] });
