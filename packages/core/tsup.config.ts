import { packageBuild } from '../../tsup.base.js';

export default packageBuild({
  entry: { index: 'src/index.ts', 'testing/index': 'src/testing/index.ts', 'testing/fakes': 'src/testing/fakes.ts' },
});
