import { err, ok, type Result } from 'neverthrow';
import type { Expectations, TransferSelection } from '../assessment/input.js';
import { selectTransfer } from '../assessment/matching.js';
import type { ChainFacts, ChainFactsContext, ChainFactsProvider, ProviderContext, Transfer } from '../chain/facts.js';
import { gatherToken, screenParties } from '../risk/gather.js';
import type { RiskProviders, RiskSignals } from '../risk/signals.js';
import { withSignalOf } from './lazy-signal.js';

/** What one check's assessment is made of. */
export interface Evidence {
  facts: ChainFacts;
  /** The transfer the check is about (matching rules 1–3): the one the risk signals focus on. */
  selection: TransferSelection;
  signals: RiskSignals;
}

/** `aborted` only when the check's own signal fired; any other chain failure is the provider's. */
export type EvidenceError = { kind: 'provider_unavailable' } | { kind: 'aborted' };

export interface EvidenceRequest {
  request: { txHash: string; expectations: Expectations };
  chain: ChainFactsProvider;
  risk: RiskProviders;
  /** The check's signal and deadline, for every provider call. */
  ctx: ProviderContext;
}

type Screened = Pick<RiskSignals, 'sanctions' | 'aml'>;

/** Sanctions and AML lookups under way for one focus transfer (by index; null = no focus). */
interface Screening {
  focus: number | null;
  result: Promise<Screened>;
}

function startScreening(facts: ChainFacts, focus: Transfer | null, input: EvidenceRequest): Screening {
  const result = screenParties(facts, focus, input.risk, input.ctx);
  // Marked handled: a screening nobody waits for (the chain failed, another focus) must not crash the process.
  result.catch(ignore);
  return { focus: focus?.index ?? null, result };
}

const ignore = () => {};

/**
 * The chain facts, the selected transfer and the risk signals of one check, in two provider levels:
 * the nodes' first round (transaction, tx info, heads), then token metadata, sanctions and AML
 * together. Sanctions and AML start when the chain provider knows the parties (`onPartiesKnown`),
 * for the transfer selected from those facts; token metadata decides only decimals, symbols and
 * names, so when the final facts select the same transfer that screening is the answer. When they
 * select another (an expected amount that only the decimals decide), the parties are screened again
 * for it: the signals are always those of facts → selection → screening. Token authenticity needs
 * the token's symbol and name, so it follows the facts (the registry answers it without a call).
 */
export async function gatherEvidence(input: EvidenceRequest): Promise<Result<Evidence, EvidenceError>> {
  const { request, chain, risk, ctx } = input;
  const early: { screening: Screening | null } = { screening: null };
  const read = await chain.getTransactionFacts(
    request.txHash,
    chainReadContext(ctx, (parties) => {
      early.screening = startScreening(parties, selectTransfer(parties, request.expectations).transfer, input);
    }),
  );
  if (read.isErr()) {
    return err(read.error.kind === 'aborted' && ctx.signal.aborted ? read.error : { kind: 'provider_unavailable' });
  }
  const facts = read.value;
  const selection = selectTransfer(facts, request.expectations);
  const focus = selection.transfer;
  const screening =
    early.screening?.focus === (focus?.index ?? null) ? early.screening : startScreening(facts, focus, input);
  // Both under way; the token lookup never rejects (settled), so awaiting them in turn loses nothing.
  const token = focus === null || facts.state === 'not_found' ? null : gatherToken(focus, risk, ctx);
  const screened = await screening.result;
  return ok({ facts, selection, signals: { sanctions: screened.sanctions, aml: screened.aml, token: await token } });
}

/**
 * The check's context with who hears early that the parties are known: a plain object whose signal is
 * an own getter (read only if the provider reads it; kept when a provider spreads the context).
 */
function chainReadContext(ctx: ProviderContext, onPartiesKnown: (facts: ChainFacts) => void): ChainFactsContext {
  return withSignalOf(ctx, { deadlineAt: ctx.deadlineAt, onPartiesKnown });
}
