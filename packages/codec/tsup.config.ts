import { packageBuild } from '../../tsup.base.js';

export default packageBuild({ entry: { index: 'src/index.ts' } });
