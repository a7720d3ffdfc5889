import { defineConfig, type Options } from 'tsup';

/**
 * The build every package shares: ESM + CJS + declarations for Node 20. A package passes its
 * entries and anything it needs beyond this.
 */
export function packageBuild(options: Options) {
  return defineConfig({
    format: ['esm', 'cjs'],
    dts: true,
    clean: true,
    sourcemap: true,
    target: 'node20',
    // Keep `node:` specifiers: `node:test` (used by exported test suites) exists only with the prefix.
    removeNodeProtocol: false,
    ...options,
  });
}
