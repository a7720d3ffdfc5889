import { packageBuild } from '../../tsup.base.js';

export default packageBuild({
  entry: { index: 'src/index.ts', cli: 'src/cli.ts' },
  dts: { entry: { index: 'src/index.ts' } },
});
