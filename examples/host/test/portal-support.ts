// Shared by the portal's host tests: a seed file with a member, a cookie session over undici, and a
// portal with 30 days of usage for the usage page's screenshot.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { safetyRouter } from '@tron-safety/adapters-express';
import { createSafetyService, type UsageRecord } from '@tron-safety/core';
import { instantChain, instantRisk, listenOnLoopback } from '@tron-safety/core/testing';
import { createPortal, isPortalPath } from '@tron-safety/portal';
import { createMemoryStores } from '@tron-safety/store-memory';
import express from 'express';
import { request } from 'undici';
import { parseConfig } from '../src/config.js';
import { startHost, type RunningHost } from '../src/host.js';
import { createLogger } from '../src/log.js';
import type { SeedMember } from '../src/seed-file.js';

/** The organization of `portalSeedFile`. */
export const ORG = '2b9f0c36-5a55-4b1e-8c53-7f1c2de1a0f1';
export const PORTAL_PASSWORD = 'correct horse battery';

/** A seed file with one organization, its owner (with a password) and no API key. */
export function portalSeedFile(
  members: SeedMember[] = [{ email: 'owner@example.com', role: 'owner', password: PORTAL_PASSWORD }],
  monthlyQuota = 1000,
): string {
  const path = join(mkdtempSync(join(tmpdir(), 'tron-safety-portal-')), 'seed.json');
  const plan = {
    code: 'team',
    version: 1,
    name: 'Team',
    rate_limit_per_minute: 120,
    max_concurrent_requests: 4,
    monthly_quota: monthlyQuota,
    enabled_networks: ['tron'],
  };
  const organization = {
    id: ORG,
    name: 'Acme Pay',
    status: 'active',
    plan: { code: 'team', version: 1 },
    custom_entitlements: null,
    api_keys: [],
    members,
  };
  writeFileSync(path, JSON.stringify({ plans: [plan], organizations: [organization] }));
  return path;
}

/** A host on loopback serving the portal with `portalSeedFile`'s organization, on the fake node at `nodeUrl`, plus `env`. */
export async function startPortalHost(nodeUrl: string, env: Record<string, string> = {}): Promise<RunningHost> {
  const base = { PORT: '0', OFAC_SDN_URL: 'off', TRON_FULLNODE_URL: nodeUrl, SAFETY_SEED_FILE: portalSeedFile() };
  return (await startHost(parseConfig({ ...base, ...env })._unsafeUnwrap(), createLogger('silent')))._unsafeUnwrap();
}

/** One browser's cookies over undici. */
export class HttpSession {
  cookies = new Map<string, string>();
  constructor(readonly base: string) {}
  async send(method: string, path: string, form?: Record<string, string>, headers: Record<string, string> = {}) {
    const cookie = [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ');
    const res = await request(`${this.base}${path}`, {
      method: method as 'GET',
      headers: {
        ...(cookie ? { cookie } : {}),
        ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}),
        ...headers,
      },
      ...(form ? { body: new URLSearchParams(form).toString() } : {}),
    });
    const set = res.headers['set-cookie'];
    for (const line of Array.isArray(set) ? set : set ? [set] : []) {
      const [pair] = line.split(';');
      const name = pair!.slice(0, pair!.indexOf('='));
      if (/Max-Age=0/.test(line)) this.cookies.delete(name);
      else this.cookies.set(name, pair!.slice(name.length + 1));
    }
    const body = await res.body.text();
    return {
      status: res.statusCode,
      headers: res.headers,
      body,
      csrf: /name="csrf" value="([^"]+)"/.exec(body)?.[1] ?? '',
    };
  }
  /** The page a 303 leads to, fetched as a browser follows it; any other answer as it is. */
  async follow(answer: Awaited<ReturnType<HttpSession['send']>>) {
    return answer.status === 303 ? this.send('GET', String(answer.headers.location)) : answer;
  }
  async signIn(email: string, password = PORTAL_PASSWORD) {
    const form = await this.send('GET', '/portal/sign-in');
    return this.send('POST', '/portal/sign-in', { csrf: form.csrf, email, password });
  }
}

/** A deterministic day of traffic: a weekly rhythm, mostly CLEAR, some of every other outcome. */
function dayOfTraffic(daysAgo: number): Omit<UsageRecord, 'organizationId' | 'at'>[] {
  const count = Math.round(38 + 14 * Math.sin(daysAgo / 2.2) - (daysAgo % 7 < 2 ? 18 : 0));
  return Array.from({ length: count }, (_, i) => {
    const pick = (i * 37 + daysAgo * 11) % 100;
    const overallState =
      pick < 80 ? 'CLEAR' : pick < 90 ? 'REVIEW' : pick < 93 ? 'HIGH_RISK' : pick < 98 ? 'LIMITED_DATA' : null;
    const complete = overallState !== null && overallState !== 'LIMITED_DATA';
    return {
      network: 'tron',
      overallState,
      coverage: overallState === null ? null : complete ? 'complete' : 'partial',
      billable: complete,
      latencyMs: 180 + ((i * 7919 + daysAgo * 104_729) % 1400),
      errorCode: overallState === null ? 'provider_unavailable' : null,
    };
  });
}

/**
 * A portal over 30 days of usage, for the usage page's screenshot: the host's clock cannot be moved,
 * so this one runs in-process on memory stores whose daily buckets get synthetic, deterministic
 * traffic for the past days, served by the Express adapter on 127.0.0.1. Its member signs in as
 * `ana@example.com` with the usual password.
 */
export async function portalWithHistory(): Promise<{ url: string; close(): Promise<void> }> {
  const stores = createMemoryStores();
  const service = createSafetyService(stores, { chain: instantChain(), risk: instantRisk() });
  const operator = { kind: 'operator' } as const;
  const entitlements = {
    rateLimitPerMinute: 600,
    maxConcurrentRequests: 8,
    monthlyQuota: 5000,
    enabledNetworks: ['tron'],
  };
  const org = (
    await service.admin.createOrganization(operator, { name: 'Acme Pay', assignment: { entitlements } })
  )._unsafeUnwrap().organization.id;
  const invited = await service.admin.members.inviteMember(operator, org, {
    email: 'ana@example.com',
    role: 'billing',
  });
  (await service.admin.members.acceptInvitation(invited._unsafeUnwrap().token, PORTAL_PASSWORD))._unsafeUnwrap();
  for (let daysAgo = 0; daysAgo < 30; daysAgo++) {
    const at = new Date(Date.now() - daysAgo * 86_400_000);
    for (const record of dayOfTraffic(daysAgo)) await stores.usage.recordUsage({ organizationId: org, at, ...record });
  }
  const portal = createPortal({ service, stores, secureCookies: false });
  const app = express().use(safetyRouter(portal, { matches: isPortalPath }));
  return listenOnLoopback((port, host) => app.listen(port, host));
}
