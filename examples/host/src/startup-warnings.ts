import type { HostConfig } from './config.js';
import { portalOriginKnown } from './portal-mount.js';

/** Hosts whose free tier throttles callers without `TRON-PRO-API-KEY`. */
const TRONGRID = /(^|\.)trongrid\.io$/;

/**
 * What makes every answer of this host weaker, said once at start so nobody learns it from a
 * customer: no organization to serve, no AML vendor, TronGrid without an API key; and a portal that
 * cannot give its invitation links an address.
 */
export function startupWarnings(config: HostConfig, organizations: number): string[] {
  const warnings: string[] = [];
  if (organizations === 0) {
    warnings.push(
      'no organizations: every request is refused with 401 (give SAFETY_SEED_FILE, or create one with tron-safety-admin)',
    );
  }
  if (!config.risk.chainalysisApiKey) {
    warnings.push('no AML vendor (CHAINALYSIS_API_KEY unset): every result says AML_UNAVAILABLE and none is CLEAR');
  }
  const nodes = [config.tronFullNodeUrl, config.tronSolidityUrl].map((url) => new URL(url).hostname);
  if (!config.tronApiKey && nodes.some((host) => TRONGRID.test(host))) {
    warnings.push(
      'TronGrid without TRON_API_KEY: its free rate limit throttles chain lookups under load (503 provider_unavailable, partial facts)',
    );
  }
  if (!portalOriginKnown(config)) {
    warnings.push(
      'PORTAL_PUBLIC_URL unset behind HTTPS: the portal shows invitation links as a path, for the inviter to complete (set it to the origin browsers reach the portal at)',
    );
  }
  return warnings;
}
