import assert from 'node:assert/strict';
import { spawnSync } from 'node:child_process';
import { existsSync, readdirSync, readFileSync, statSync } from 'node:fs';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';

// The core's public surface. The root's runtime values are pinned by name: adding or removing one
// is a visible change here (and a semver decision), never a side effect of `export *`. Every
// subpath in package.json "exports" must resolve from the built dist, from ESM and CommonJS, with
// the same names as its source entry.

const PACKAGE = fileURLToPath(new URL('..', import.meta.url));
const ROOT = join(PACKAGE, '../..');
const manifest = JSON.parse(readFileSync(join(PACKAGE, 'package.json'), 'utf8')) as {
  exports: Record<string, string | { source: string; import: Record<string, string>; require: Record<string, string> }>;
};

const ROOT_VALUES = [
  'API_RESPONSE_HEADERS',
  'AmlRiskLevel',
  'AssetType',
  'CHECK_PATH',
  'Coverage',
  'DEFAULT_USAGE_DAYS',
  'Days',
  'DecimalAmount',
  'ErrorCode',
  'ErrorDetail',
  'ErrorResponse',
  'ExposureResponse',
  'ExposureType',
  'FreshnessResponse',
  'IdempotencyKey',
  'MAX_ENTITLEMENT',
  'Network',
  'OverallState',
  'Percentage',
  'REASONS',
  'RISK_CONFIG_VARIABLES',
  'ReasonCategory',
  'ReasonCode',
  'ReasonResponse',
  'Severity',
  'TokenAuthenticity',
  'TransactionCategory',
  'TransactionCheckRequest',
  'TransactionCheckResponse',
  'TransactionState',
  'TransferResponse',
  'TronAddress',
  'TxHash',
  'USAGE_PATH',
  'UsageLimitsResponse',
  'UsagePeriodResponse',
  'UsagePlanResponse',
  'UsageQuery',
  'UsageRecentResponse',
  'UsageResponse',
  'Uuid',
  'answerNodeRequest',
  'combineSanctionsProviders',
  'createChainalysisAmlProvider',
  'createChainalysisSanctionsProvider',
  'createListSanctionsProvider',
  'createNotConfiguredAmlProvider',
  'createRiskProviders',
  'createSafetyService',
  'createTokenAuthenticityProvider',
  'createTokenRegistry',
  'createTronChainFactsProvider',
  'decode',
  'formatDecodeError',
  'generateApiKey',
  'hashApiKey',
  'isV1Path',
  'loadTokenRegistryFile',
  'renderOpenApiJson',
  'riskConfigFromEnv',
];

const valuesOf = (module: object) => Object.keys(module).sort();

describe('public API', () => {
  test('the root exports exactly the pinned runtime values, at most 60', async () => {
    const root = await import('@tron-safety/core');
    assert.deepEqual(valuesOf(root), [...ROOT_VALUES].sort());
    assert.ok(ROOT_VALUES.length <= 60, `${ROOT_VALUES.length} root values`);
  });

  test('the root exports no internals (the tools live on subpaths)', async () => {
    const root: Record<string, unknown> = await import('@tron-safety/core');
    for (const name of ['readNodeBody', 'annotate', 'tokenTextSkeleton', 'utcDay', 'TronNodeClient', 'parseOfacXml'])
      assert.equal(root[name], undefined, name);
  });

  test('every subpath has a source entry, and import and require conditions with types', () => {
    for (const [subpath, target] of Object.entries(manifest.exports)) {
      if (subpath === './package.json') continue;
      assert.ok(typeof target === 'object', subpath);
      assert.ok(existsSync(join(PACKAGE, target.source)), `${subpath} source ${target.source}`);
      for (const condition of [target.import, target.require])
        assert.deepEqual(Object.keys(condition), ['types', 'default'], `${subpath} conditions`);
    }
  });
});

function distStale(): string | null {
  const built = join(PACKAGE, 'dist', 'index.js');
  if (!existsSync(built)) return 'packages/core is not built';
  const newest = (dir: string): number =>
    Math.max(
      ...readdirSync(dir, { withFileTypes: true }).map((e) =>
        e.isDirectory() ? newest(join(dir, e.name)) : statSync(join(dir, e.name)).mtimeMs,
      ),
    );
  return newest(join(PACKAGE, 'src')) > statSync(built).mtimeMs ? 'packages/core changed since its build' : null;
}

const stale = distStale();
const skip = stale !== null && process.env.CI !== 'true' ? `needs a fresh build (${stale}): npm run build` : false;

describe('public API from the built dist', { skip }, () => {
  const subpaths = Object.keys(manifest.exports).filter((s) => s !== './package.json');
  const specifier = (subpath: string) => `@tron-safety/core${subpath.slice(1)}`;

  // A child process without the "source" condition resolves what an installed package resolves.
  const namesFromDist = (loader: 'import' | 'require') => {
    const script = `
      const { createRequire } = await import('node:module');
      const require = createRequire(process.cwd() + '/');
      const out = {};
      for (const s of ${JSON.stringify(subpaths.map(specifier))})
        out[s] = Object.keys(${loader === 'import' ? 'await import(s)' : 'require(s)'}).sort();
      console.log(JSON.stringify(out));`;
    const run = spawnSync(process.execPath, ['--input-type=module', '-e', script], { cwd: ROOT, encoding: 'utf8' });
    assert.equal(run.status, 0, run.stderr);
    return JSON.parse(run.stdout) as Record<string, string[]>;
  };

  for (const loader of ['import', 'require'] as const)
    test(`every subpath resolves from dist through ${loader} with its source entry's names`, async () => {
      const built = namesFromDist(loader);
      for (const subpath of subpaths) {
        const name = specifier(subpath);
        const source = valuesOf(await import(name));
        // CommonJS adds the interop marker; the names are otherwise the same.
        assert.deepEqual(
          built[name]!.filter((n) => n !== '__esModule' && n !== 'default'),
          source,
          name,
        );
        const target = manifest.exports[subpath] as { import: Record<string, string>; require: Record<string, string> };
        assert.ok(existsSync(join(PACKAGE, target[loader].types!)), `${name} ${loader} types`);
      }
    });
});
