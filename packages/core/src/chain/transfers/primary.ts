import type { TransactionCategory } from '../../contract/enums.js';

/** What decides the category and the primary transfer. */
export interface PrimaryInput {
  /** The contract type's category. */
  category: TransactionCategory;
  /** Transfers the contract itself made (they come first in the list). */
  contractTransfers: number;
  /** List index of the Transfer event the token transfer call asked for, if it was emitted. */
  asked: number | null;
  total: number;
}

/**
 * A call whose token emitted the Transfer it asked for is a TRC20 transfer. The primary transfer (the
 * one the transaction is about when nothing is expected): a TRX or TRC10 transfer's own, else the
 * asked-for Transfer event, else the only transfer there is.
 */
export function categoryAndPrimary(input: PrimaryInput): { category: TransactionCategory; primary: number | null } {
  const category = input.asked !== null ? 'trc20_transfer' : input.category;
  const ownTransfer = (category === 'trx_transfer' || category === 'trc10_transfer') && input.contractTransfers > 0;
  const primary = ownTransfer ? 0 : (input.asked ?? (input.total === 1 ? 0 : null));
  return { category, primary };
}
