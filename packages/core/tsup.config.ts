import { packageBuild } from '../../tsup.base.js';

// One entry per subpath in package.json "exports" (test/public-api.test.ts checks they agree).
export default packageBuild({
  entry: {
    index: 'src/index.ts',
    tron: 'src/tron.ts',
    sanctions: 'src/sanctions.ts',
    internal: 'src/internal.ts',
    'testing/index': 'src/testing/index.ts',
    'testing/fakes': 'src/testing/fakes.ts',
  },
});
