import { defineConfig } from 'tsup';

export default defineConfig({
  entry: { index: 'src/index.ts', main: 'src/main.ts', admin: 'src/admin.ts', demo: 'src/demo.ts' },
  format: ['esm', 'cjs'],
  dts: { entry: { index: 'src/index.ts' } },
  clean: true,
  sourcemap: true,
  target: 'node20',
  // Keep `node:` specifiers: `node:test` (used by the exported test suites) exists only with the prefix.
  removeNodeProtocol: false,
});
