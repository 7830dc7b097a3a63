import { defineConfig } from 'tsup';
import { nodePackage } from '../tsup.node.js';

// @svc-sdk/mcp: one entry, ESM and CJS. Its dependencies (svc-sdk, @modelcontextprotocol/server,
// zod) stay imports: tsup leaves dependencies out, so the server shares the application's svc-sdk.
export default defineConfig({ ...nodePackage, entry: { index: 'src/index.ts' }, format: ['esm', 'cjs'], dts: true });
