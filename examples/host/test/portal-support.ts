// Shared by the portal's host tests: a seed file with a member, and a cookie session over undici.
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { request } from 'undici';

const ORG = '2b9f0c36-5a55-4b1e-8c53-7f1c2de1a0f1';
export const PORTAL_PASSWORD = 'correct horse battery';

/** A seed file with one organization, its owner (with a password) and no API key. */
export function portalSeedFile(
  members = [{ email: 'owner@example.com', role: 'owner', password: PORTAL_PASSWORD }],
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
  async signIn(email: string, password = PORTAL_PASSWORD) {
    const form = await this.send('GET', '/portal/sign-in');
    return this.send('POST', '/portal/sign-in', { csrf: form.csrf, email, password });
  }
}
