import { packageBuild } from '../../tsup.base.js';

export default packageBuild({
  entry: { index: 'src/index.ts' },
  // The stylesheet and script are read from ../assets through import.meta.url, in the CJS build too.
  shims: true,
});
