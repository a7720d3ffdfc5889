import { packageBuild } from '../../tsup.base.js';

export default packageBuild({
  entry: { index: 'src/index.ts', main: 'src/main.ts', admin: 'src/admin.ts', demo: 'src/demo.ts' },
  dts: { entry: { index: 'src/index.ts' } },
});
