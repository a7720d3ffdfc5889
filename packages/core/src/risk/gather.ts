import type { ChainFacts, ProviderContext, Transfer } from '../chain/facts.js';
import { combineAmlAnswers } from './aml-combine.js';
import { isAmlAnswer, isSanctionsAnswer, isTokenAnswer } from './answer-shapes.js';
import { settle } from './settle.js';
import type { AmlAnswer, AssetRef, RiskProviders, RiskSignals, SanctionsAnswer, TokenRef } from './signals.js';

/** Signals of a transaction no node knows: nothing to screen. */
const NO_SIGNALS: RiskSignals = { sanctions: null, aml: null, token: null };

/**
 * The risk half of a check, the three providers in parallel. Sanctions: every address the
 * transaction involves. AML: the counterparties of a payment received (whoever pays the focus
 * transfer's recipient in this transaction, and the tx owner). Token authenticity: the focus transfer's asset. A provider that breaks its
 * promise (rejects, or answers in a shape of its own) counts as unavailable, never as clean.
 */
export async function gatherSignals(
  facts: ChainFacts,
  focus: Transfer | null,
  providers: RiskProviders,
  ctx: ProviderContext,
): Promise<RiskSignals> {
  if (facts.state === 'not_found') return NO_SIGNALS;
  const [screened, token] = await Promise.all([
    screenParties(facts, focus, providers, ctx),
    focus === null ? null : gatherToken(focus, providers, ctx),
  ]);
  return { ...screened, token };
}

/**
 * Sanctions and AML, the lookups that need only the parties (not the tokens' metadata): a caller
 * can start them as soon as the transaction is read (see `ChainFactsContext.onPartiesKnown`).
 */
export async function screenParties(
  facts: ChainFacts,
  focus: Transfer | null,
  providers: RiskProviders,
  ctx: ProviderContext,
): Promise<Pick<RiskSignals, 'sanctions' | 'aml'>> {
  if (facts.state === 'not_found') return { sanctions: null, aml: null };
  const [sanctions, aml] = await Promise.all([
    gatherSanctions(facts, focus, providers, ctx),
    gatherAml(facts, focus, providers, ctx),
  ]);
  return { sanctions, aml };
}

/**
 * Owner, every transfer's sender, recipient and token contract, and the other counterparties the
 * transaction names (a called contract, a call's target), each once. The ones that matter most come
 * first (owner, the focus transfer's parties, the counterparties), for a source that caps how many it screens.
 */
export function involvedAddresses(facts: ChainFacts, focus: Transfer | null = null): string[] {
  const all = new Set<string>();
  if (facts.owner !== null) all.add(facts.owner);
  if (focus !== null) addParties(all, focus);
  for (const address of facts.counterparties) all.add(address);
  for (const transfer of facts.transfers) addParties(all, transfer);
  return [...all];
}

function addParties(into: Set<string>, transfer: Transfer): void {
  if (transfer.sender !== null) into.add(transfer.sender);
  if (transfer.recipient !== null) into.add(transfer.recipient);
  if (transfer.tokenContract !== null) into.add(transfer.tokenContract);
}

/**
 * A truncated transfer list names only some of the addresses involved: a hit stands, but no hit
 * among those screened is not a clean answer for the transaction.
 */
async function gatherSanctions(
  facts: ChainFacts,
  focus: Transfer | null,
  providers: RiskProviders,
  ctx: ProviderContext,
): Promise<RiskSignals['sanctions']> {
  const addresses = involvedAddresses(facts, focus);
  if (addresses.length === 0) return facts.transfersTruncated ? truncatedList() : null;
  const answer = await settle(() => providers.sanctions.screen(addresses, ctx), isSanctionsAnswer);
  if (facts.transfersTruncated && answer.status === 'answered' && answer.hits.length === 0) {
    return { ...truncatedList(), asOf: answer.asOf };
  }
  return answer;
}

const truncatedList = (): SanctionsAnswer => ({
  status: 'unavailable',
  reason: 'the transfer list is truncated: not every involved address could be screened',
});

export function assetOf(transfer: Transfer): AssetRef | null {
  if (transfer.assetType === 'trx') return { kind: 'trx' };
  if (transfer.assetType === 'trc10')
    return transfer.tokenId === null ? null : { kind: 'trc10', tokenId: transfer.tokenId };
  return transfer.tokenContract === null ? null : { kind: 'trc20', contract: transfer.tokenContract };
}

/**
 * Payers of the focus transfer's recipient assessed per check: a transaction with many transfers to
 * one address must not cost as many vendor calls. Those beyond are not assessed, so the AML answer is
 * never clean (unavailable, or an incomplete high finding).
 */
export const MAX_AML_PAYERS = 8;

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
  const payers = focus === null ? [] : payersOf(facts, focus);
  const assessed = payers.slice(0, MAX_AML_PAYERS);
  const counterparties = new Set(facts.owner === null ? assessed : [...assessed, facts.owner]);
  // All under way at once; settled lookups never reject, so they are awaited in turn.
  const lookups: Promise<AmlAnswer>[] = [];
  for (const address of counterparties) {
    lookups.push(settle(() => providers.aml.assessAddress(address, ctx), isAmlAnswer));
  }
  const answers: AmlAnswer[] = [];
  for (const lookup of lookups) answers.push(await lookup);
  if (payers.length > assessed.length) {
    const reason = `${payers.length - assessed.length} of ${payers.length} payers of the recipient beyond the AML cap of ${MAX_AML_PAYERS} not assessed`;
    answers.push({ status: 'unavailable', reason });
  }
  return combineAmlAnswers(answers);
}

/**
 * Whoever pays the focus transfer's recipient in this transaction, the focus transfer's sender first,
 * each once: funds from a high-risk payer in the same transaction are part of what the recipient
 * receives, whichever transfer the expectations selected. The recipient paying itself is no payer.
 */
function payersOf(facts: ChainFacts, focus: Transfer): string[] {
  const payers = new Set<string>();
  if (focus.sender !== null) payers.add(focus.sender);
  const paid = focus.recipient;
  if (paid === null) return [...payers];
  for (const { sender, recipient } of facts.transfers) {
    if (sender !== null && recipient === paid && sender !== paid) payers.add(sender);
  }
  return [...payers];
}

/** Token authenticity of the focus transfer's asset, by its symbol and name (read with the token's metadata). */
export function gatherToken(
  focus: Transfer,
  providers: RiskProviders,
  ctx: ProviderContext,
): Promise<RiskSignals['token']> {
  const asset = assetOf(focus);
  if (asset === null) return Promise.resolve({ status: 'unavailable', reason: 'the transfer does not name its asset' });
  const token: TokenRef = { asset, symbol: focus.tokenSymbol, name: focus.tokenName };
  return settle(() => providers.tokens.assess(token, ctx), isTokenAnswer);
}
