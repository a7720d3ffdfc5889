import assert from 'node:assert/strict';
import { execFileSync, spawnSync } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { after, before, describe, test } from 'node:test';
import { fileURLToPath } from 'node:url';
import { staleReason } from '../../host/build-state.mjs';

// Publishable packages: `npm pack` of every package, installed from the tarballs into a scratch
// project outside the repository, then imported from ESM and from CommonJS and type-checked, as a
// team adopting them would. The installed fakes start and serve the recorded mainnet data they ship.
// Needs a fresh build (CI builds before testing); elsewhere it says why it skips, except under CI.

const ROOT = fileURLToPath(new URL('../../..', import.meta.url));
const PACKAGES = [
  'codec',
  'core',
  'store-memory',
  'store-postgres',
  'adapters-express',
  'adapters-koa',
  'client',
  'portal',
];
const stale = staleReason(ROOT);
const skip = stale !== null && process.env.CI !== 'true' ? `needs a fresh build (${stale}): npm run build` : false;
const npm = process.platform === 'win32' ? 'npm.cmd' : 'npm';

const ESM = `
import { createSafetyService, createTronChainFactsProvider, createRiskProviders, API_RESPONSE_HEADERS } from '@tron-safety/core';
import { isTronAddress } from '@tron-safety/core/tron';
import { OFAC_TRON_LIST } from '@tron-safety/core/sanctions';
import { startFakeTronNode, TRON_FIXTURE_TX } from '@tron-safety/core/fakes';
import { createMemoryStores } from '@tron-safety/store-memory';
import { createPostgresStores } from '@tron-safety/store-postgres';
import { safetyRouter } from '@tron-safety/adapters-express';
import { safetyMiddleware } from '@tron-safety/adapters-koa';
import { createSafetyClient, isSafeToBook } from '@tron-safety/client';
import { createPortal } from '@tron-safety/portal';

const node = await startFakeTronNode();
const chain = createTronChainFactsProvider({ fullNodeUrl: node.url });
const stores = createMemoryStores();
const service = createSafetyService(stores, { chain, risk: createRiskProviders()._unsafeUnwrap() });
// The portal reads its stylesheet and script from the package: they must ship.
const portal = createPortal({ service, stores, secureCookies: true });
const css = await portal.handle({ method: 'GET', path: '/portal/assets/portal.css', query: {}, headers: {}, body: new Uint8Array() });
const facts = await chain.getTransactionFacts(TRON_FIXTURE_TX.usdtTransfer, { signal: new AbortController().signal });
await chain.close();
await node.close();
console.log(JSON.stringify({
  state: facts._unsafeUnwrap().state,
  header: API_RESPONSE_HEADERS['X-Content-Type-Options'],
  subpaths: [isTronAddress('TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t'), OFAC_TRON_LIST.addresses.size > 0],
  portalCss: css.status,
  functions: [createPostgresStores, safetyRouter, safetyMiddleware, createSafetyClient, isSafeToBook, service.handle].map((f) => typeof f),
}));
`;

const CJS = `
const { createSafetyService, createRiskProviders } = require('@tron-safety/core');
const { startFakeTronNode } = require('@tron-safety/core/fakes');
const { hexToBase58Address } = require('@tron-safety/core/tron');
const { createMemoryStores } = require('@tron-safety/store-memory');
const { createPostgresStores } = require('@tron-safety/store-postgres');
const { safetyRouter } = require('@tron-safety/adapters-express');
const { safetyMiddleware } = require('@tron-safety/adapters-koa');
const { createSafetyClient } = require('@tron-safety/client');
const { createPortal } = require('@tron-safety/portal');
startFakeTronNode().then(async (node) => {
  const service = createSafetyService(createMemoryStores(), { chain: null, risk: createRiskProviders()._unsafeUnwrap() });
  const res = await fetch(node.url + '/wallet/getnowblock', { method: 'POST', body: '{}' });
  await node.close();
  // 2 password derivations run and 32 wait: the rest are answered busy, a value (the portal's 503), not a rejection.
  const tries = Array.from({ length: 36 }, () => service.admin.members.checkPassword('nobody@example.com', 'wrong password!'));
  const answers = await Promise.all(tries);
  console.log(JSON.stringify({
    busy: answers.some((a) => a.isErr() && a.error.code === 'busy'),
    head: (await res.json()).block_header.raw_data.number > 0,
    tron: hexToBase58Address('41a614f803b6fd780986a42c78ec9c7f77e6ded13c'),
    functions: [createPostgresStores, safetyRouter, safetyMiddleware, createSafetyClient, createPortal, service.handle].map((f) => typeof f),
  }));
});
`;

const TYPES = `
import { createSafetyService, type TransactionCheckResponse } from '@tron-safety/core';
import { startFakeTronNode } from '@tron-safety/core/fakes';
import { formatAmount } from '@tron-safety/core/tron';
import { createMemoryStores } from '@tron-safety/store-memory';
import { createPostgresStores, type PostgresStores } from '@tron-safety/store-postgres';
import { safetyRouter } from '@tron-safety/adapters-express';
import { createSafetyClient, type CheckAnswer } from '@tron-safety/client';
import { createPortal, type PortalRequest } from '@tron-safety/portal';
export const pieces = [createSafetyService, formatAmount, startFakeTronNode, createMemoryStores, safetyRouter, createSafetyClient, createPortal];
export type Seen = [TransactionCheckResponse, CheckAnswer, ReturnType<typeof createPostgresStores>, PortalRequest];
// Third-party declaration files are not checked (skipLibCheck), so a missing @types/pg would turn
// the pool into \`any\` silently: this line fails to compile then.
type IsAny<T> = 0 extends 1 & T ? true : false;
export const poolIsTyped: IsAny<PostgresStores['pool']> = false;
`;

describe('npm pack of every package installs and imports in a scratch project', { skip }, () => {
  let scratch = '';
  before(() => {
    scratch = mkdtempSync(join(tmpdir(), 'tron-safety-pack-'));
    const packed = JSON.parse(
      execFileSync(
        npm,
        ['pack', '--json', '--pack-destination', scratch, ...PACKAGES.flatMap((p) => ['-w', `packages/${p}`])],
        {
          cwd: ROOT,
          encoding: 'utf8',
          stdio: ['ignore', 'pipe', 'ignore'],
        },
      ),
    ) as { filename: string; files: { path: string }[] }[];
    assert.equal(packed.length, PACKAGES.length);
    for (const p of packed)
      assert.ok(
        p.files.some((f) => f.path === 'LICENSE'),
        `${p.filename} ships LICENSE`,
      );
    writeFileSync(join(scratch, 'package.json'), JSON.stringify({ name: 'adopter', version: '1.0.0', private: true }));
    const install = spawnSync(
      npm,
      [
        'install',
        '--prefer-offline',
        '--no-audit',
        '--no-fund',
        ...packed.map((p) => `./${p.filename}`),
        'typescript@^5',
        '@types/node@^20',
        '@types/express@^5',
      ],
      { cwd: scratch, encoding: 'utf8', timeout: 300_000 },
    );
    assert.equal(install.status, 0, install.stderr);
  });
  after(() => scratch && rmSync(scratch, { recursive: true, force: true }));

  const run = (file: string, source: string) => {
    writeFileSync(join(scratch, file), source);
    const out = spawnSync(process.execPath, [file], { cwd: scratch, encoding: 'utf8', timeout: 60_000 });
    assert.equal(out.status, 0, out.stderr);
    return JSON.parse(out.stdout.trim().split('\n').at(-1)!);
  };

  test('ESM: every package imports, and the installed fakes serve the recorded mainnet transactions', () => {
    assert.deepEqual(run('check.mjs', ESM), {
      state: 'confirmed',
      header: 'nosniff',
      subpaths: [true, true],
      portalCss: 200,
      functions: Array(6).fill('function'),
    });
  });

  test('CommonJS: every package requires, the installed fake node starts, and a flood of sign-ins is answered busy', () => {
    assert.deepEqual(run('check.cjs', CJS), {
      busy: true,
      head: true,
      tron: 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t',
      functions: Array(6).fill('function'),
    });
  });

  test('the published types check (the pg types come with store-postgres) and every package is Apache-2.0', () => {
    writeFileSync(join(scratch, 'types.ts'), TYPES);
    const options = [
      '--noEmit',
      '--strict',
      '--module',
      'nodenext',
      '--moduleResolution',
      'nodenext',
      '--target',
      'es2022',
      '--skipLibCheck',
      'false',
    ];
    const tsc = spawnSync(
      process.execPath,
      [join(scratch, 'node_modules/typescript/bin/tsc'), ...options, 'types.ts'],
      {
        cwd: scratch,
        encoding: 'utf8',
        timeout: 120_000,
      },
    );
    assert.equal(tsc.status, 0, tsc.stdout + tsc.stderr);
    for (const name of PACKAGES) {
      const manifest = JSON.parse(
        readFileSync(join(scratch, 'node_modules/@tron-safety', name, 'package.json'), 'utf8'),
      );
      assert.equal(manifest.license, 'Apache-2.0');
      assert.ok(manifest.repository?.url && manifest.engines?.node && manifest.files, name);
    }
  });
});
