import { nodeApiKeys } from '@tron-safety/core/internal';
import { isLoopback, tronNodes, type HostConfig } from './config.js';
import { portalOriginKnown } from './portal-mount.js';

/** Hosts whose free tier throttles callers without `TRON-PRO-API-KEY`. */
const TRONGRID = /(^|\.)trongrid\.io$/;

/**
 * What makes every answer of this host weaker, said once at start so nobody learns it from a
 * customer: no organization to serve, no AML vendor, TronGrid without an API key; and a portal that
 * cannot give its invitation links an address, or that counts every browser behind a proxy as one client.
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
  const nodes = tronNodes(config);
  const keys = nodeApiKeys(nodes);
  const unkeyed = (url: string, key: string | undefined) => !key && TRONGRID.test(new URL(url).hostname);
  // TRON_API_KEY goes to the solidity node only on the full node's origin: elsewhere it needs its own.
  const missing = unkeyed(nodes.fullNodeUrl, keys.full)
    ? 'TRON_API_KEY'
    : unkeyed(nodes.solidityNodeUrl, keys.solidity) && 'TRON_SOLIDITY_API_KEY';
  if (missing) {
    warnings.push(
      `TronGrid without ${missing}: its free rate limit throttles chain lookups under load (503 provider_unavailable, partial facts)`,
    );
  }
  if (!portalOriginKnown(config)) {
    warnings.push(
      'PORTAL_PUBLIC_URL unset behind HTTPS: the portal shows invitation links as a path, for the inviter to complete (set it to the origin browsers reach the portal at)',
    );
  }
  if (behindUntrustedProxy(config)) {
    warnings.push(
      "PORTAL_PUBLIC_URL is https on a loopback host without PORTAL_TRUST_PROXY: behind a proxy every browser is the proxy's address to the portal's sign-in throttle, so 20 failed attempts from anyone refuse every member's sign-in for 15 minutes (set PORTAL_TRUST_PROXY=true when the proxy appends X-Forwarded-For)",
    );
  }
  return warnings;
}

/** A loopback host browsers reach over HTTPS has a TLS proxy in front, whose address is every client's unless trusted. */
const behindUntrustedProxy = (config: HostConfig) =>
  isLoopback(config.host) && config.portalPublicUrl?.startsWith('https:') === true && !config.portalTrustProxy;
