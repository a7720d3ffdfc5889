import type { ChainFacts, ProviderContext, Transfer } from '../chain/facts.js';
import { combineAmlAnswers } from './aml-combine.js';
import type { AssetRef, RiskProviders, RiskSignals, TokenRef, Unavailable } from './signals.js';

/**
 * The risk half of a check, the three providers in parallel. Sanctions: every address the
 * transaction involves. AML: the counterparty of a payment received (the focus transfer's sender
 * and the tx owner). Token authenticity: the focus transfer's asset. A provider that breaks its
 * promise and rejects counts as unavailable, never as clean.
 */
export async function gatherSignals(
  facts: ChainFacts,
  focus: Transfer | null,
  providers: RiskProviders,
  ctx: ProviderContext,
): Promise<RiskSignals> {
  if (facts.state === 'not_found') return { sanctions: null, aml: null, token: null };
  const addresses = involvedAddresses(facts);
  const [sanctions, aml, token] = await Promise.all([
    addresses.length === 0 ? null : settle(() => providers.sanctions.screen(addresses, ctx)),
    gatherAml(facts, focus, providers, ctx),
    focus === null ? null : gatherToken(focus, providers, ctx),
  ]);
  return { sanctions, aml, token };
}

/** Owner, every transfer's sender and recipient, and every token contract, each once. */
export function involvedAddresses(facts: ChainFacts): string[] {
  const all = [facts.owner, ...facts.transfers.flatMap((t) => [t.sender, t.recipient, t.tokenContract])];
  return [...new Set(all.filter((a): a is string => a !== null))];
}

export function assetOf(transfer: Transfer): AssetRef | null {
  if (transfer.assetType === 'trx') return { kind: 'trx' };
  if (transfer.assetType === 'trc10') return transfer.tokenId === null ? null : { kind: 'trc10', tokenId: transfer.tokenId };
  return transfer.tokenContract === null ? null : { kind: 'trc20', contract: transfer.tokenContract };
}

async function gatherAml(
  facts: ChainFacts,
  focus: Transfer | null,
  providers: RiskProviders,
  ctx: ProviderContext,
): Promise<RiskSignals['aml']> {
  if (focus !== null) {
    const asset = assetOf(focus);
    if (asset === null) return { status: 'unavailable', reason: 'the transfer does not name its asset' };
    if (!providers.aml.supportsAsset(asset)) return { status: 'unsupported_asset' };
    // The owner alone is not the counterparty of a payment received.
    if (focus.sender === null) return { status: 'unavailable', reason: 'the transfer does not name its sender' };
  }
  const counterparties = [...new Set([focus?.sender ?? null, facts.owner].filter((a): a is string => a !== null))];
  const answers = await Promise.all(counterparties.map((a) => settle(() => providers.aml.assessAddress(a, ctx))));
  return combineAmlAnswers(answers);
}

function gatherToken(focus: Transfer, providers: RiskProviders, ctx: ProviderContext): Promise<RiskSignals['token']> {
  const asset = assetOf(focus);
  if (asset === null) return Promise.resolve({ status: 'unavailable', reason: 'the transfer does not name its asset' });
  const token: TokenRef = { asset, symbol: focus.tokenSymbol, name: focus.tokenName };
  return settle(() => providers.tokens.assess(token, ctx));
}

async function settle<A>(call: () => Promise<A>): Promise<A | Unavailable> {
  try {
    return await call();
  } catch (cause) {
    return { status: 'unavailable', reason: `provider failed: ${String(cause)}` };
  }
}
