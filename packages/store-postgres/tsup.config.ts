import { packageBuild } from '../../tsup.base.js';

export default packageBuild({
  entry: { index: 'src/index.ts', testing: 'src/testing.ts' },
  // The migration runner finds ../migrations/*.sql through import.meta.url, in the CJS build too.
  shims: true,
});
