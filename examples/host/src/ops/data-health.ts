import type { ChainStatus, KnownTokenStatus, SanctionsListsStatus } from '@tron-safety/core';
import type { ReadinessCheck } from './server.js';

/** What the host reads of its providers' data, without a call: the chain provider's and the risk providers' status. */
export interface DataStatus {
  chain(): ChainStatus;
  sanctions(): SanctionsListsStatus;
}

/**
 * The data behind every answer, as `/readyz` reports it. Failing (503): a node the verifier found serving
 * another network, a misconfiguration no check can work around and a rollout must not take traffic with.
 * Degraded (named in the 200): what makes checks LIMITED_DATA (or older) but taking the host out would
 * not fix: a node not verified yet (down or slow: an upstream outage must not take every host out at once),
 * sanctions lists past their age limit, registry tokens the chain has not confirmed.
 */
export function dataReadiness(data: DataStatus): { failing: ReadinessCheck[]; degraded: ReadinessCheck[] } {
  const chain = `chain:${data.chain().network}`;
  return {
    failing: [{ component: chain, check: async () => wrongNetwork(data.chain()) }],
    degraded: [
      { component: chain, check: async () => unverified(data.chain()) },
      { component: 'sanctions_lists', check: async () => listsPastLimit(data.sanctions()) },
      { component: 'token_registry', check: async () => staleTokens(data.chain().knownTokens) },
    ],
  };
}

const nodesOf = ({ nodes }: ChainStatus) => [nodes.full, nodes.solidity];

function wrongNetwork(chain: ChainStatus): string | null {
  const wrong = nodesOf(chain).flatMap((n) => (n.status === 'wrong_network' ? [n.mismatch.detail] : []));
  return wrong.length === 0
    ? null
    : `${wrong.join('; ')}: its answers are not used (every check is LIMITED_DATA or 503); fix its URL and restart`;
}

function unverified(chain: ChainStatus): string | null {
  const pending = nodesOf(chain).flatMap((n) => (n.status === 'unverified' ? [n.detail] : []));
  return pending.length === 0 ? null : `${pending.join('; ')}: its answers are not used until a check establishes it`;
}

function listsPastLimit(lists: SanctionsListsStatus): string | null {
  if (!lists.pastLimit) return null;
  const hours = Math.floor((Date.now() - lists.asOf.getTime()) / 3_600_000);
  return (
    `the sanctions lists are as of ${lists.asOf.toISOString()} (${hours} h), past the ${lists.maxAgeDays}-day ` +
    'limit: a check without a hit is SANCTIONS_UNAVAILABLE (LIMITED_DATA) unless the sanctions API answered for every address'
  );
}

function staleTokens(tokens: readonly KnownTokenStatus[]): string | null {
  const stale = tokens.filter((t) => t.stale);
  if (stale.length === 0) return null;
  const why = (t: KnownTokenStatus) =>
    t.state === 'contradicted'
      ? `${t.symbol} ${t.contract} (contradicted by the chain: its payments are LIMITED_DATA)`
      : `${t.symbol} ${t.contract} (${t.state === 'confirmed' ? 'confirmation overdue' : 'not confirmed by the chain'})`;
  return `${stale.length} of ${tokens.length} registry tokens: ${stale.map(why).join(', ')}`;
}
