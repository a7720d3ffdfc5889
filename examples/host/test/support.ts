import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Writable } from 'node:stream';
import type { FakeChainalysis, FakeTronNode } from '@tron-safety/core/testing';
import type { HostConfig } from '../src/config.js';
import { parseConfig } from '../src/config.js';
import { startHost, type RunningHost } from '../src/host.js';
import { createLogger } from '../src/log.js';

// What the host's in-process tests share: a seeded organization and a host started on 127.0.0.1
// whose log lines are collected as objects.

export const TEST_KEY = 'tsk_live_ops_test_key_000000000000000000';
export const TEST_ORG = '2b9f0c36-5a55-4b1e-8c53-7f1c2de1a0f1';

export function writeSeedFile(): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tron-safety-ops-')), 'seed.json');
  const limits = { rate_limit_per_minute: 600, max_concurrent_requests: 8, monthly_quota: 1000 };
  writeFileSync(
    path,
    JSON.stringify({
      plans: [{ code: 'ops', version: 1, name: 'Ops', ...limits, enabled_networks: ['tron'] }],
      organizations: [
        {
          id: TEST_ORG,
          name: 'Ops test',
          status: 'active',
          plan: { code: 'ops', version: 1 },
          custom_entitlements: null,
          api_keys: [{ label: 'ops', key: TEST_KEY, revoked: false }],
        },
      ],
    }),
  );
  return path;
}

/** The host's variables that point its chain and vendor providers at the fake node and fake vendors. */
export function fakeProvidersEnv(node: FakeTronNode, vendors: FakeChainalysis): Record<string, string> {
  return {
    TRON_FULLNODE_URL: node.url,
    CHAINALYSIS_API_URL: vendors.entityUrl,
    CHAINALYSIS_API_KEY: 'k',
    CHAINALYSIS_SANCTIONS_URL: vendors.sanctionsUrl,
    CHAINALYSIS_SANCTIONS_API_KEY: 'k',
  };
}

export interface TestHost {
  host: RunningHost;
  lines: Record<string, any>[];
}

/** A host from `env` (PORT 0 and the seed file added), with `change` applied to the parsed config. */
export async function startTestHost(
  env: Record<string, string>,
  change: (config: HostConfig) => HostConfig = (c) => c,
): Promise<TestHost> {
  const lines: Record<string, any>[] = [];
  const sink = new Writable({
    write(chunk, _encoding, done) {
      for (const line of String(chunk).split('\n').filter(Boolean)) lines.push(JSON.parse(line));
      done();
    },
  });
  // OFAC_SDN_URL off: tests stay offline (with the fake vendors' sanctions API answering for every address).
  const config = parseConfig({
    PORT: '0',
    OFAC_SDN_URL: 'off',
    SAFETY_SEED_FILE: writeSeedFile(),
    ...env,
  })._unsafeUnwrap();
  const host = (await startHost(change(config), createLogger('info', sink)))._unsafeUnwrap();
  return { host, lines };
}
