import type { Options } from 'tsup';

// What both tool packages build alike: Node, ES2023, tree-shaken, source maps without the sources.
export const nodePackage: Options = {
  sourcemap: true,
  clean: true,
  target: 'es2023',
  platform: 'node',
  treeshake: true,
  esbuildOptions(options) {
    options.sourcesContent = false;
  },
};
