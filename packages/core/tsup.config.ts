import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts', 'testing/fakes': 'src/testing/fakes.ts' },
  format: ['esm', 'cjs'],
  dts: true,
  clean: true,
  sourcemap: true,
  target: 'node20',
  // Keep `node:` specifiers: `node:test` (used by the exported test suites) exists only with the prefix.
  removeNodeProtocol: false,
});
