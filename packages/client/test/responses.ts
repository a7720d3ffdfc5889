/** What `clearBody` verified: its transfer's recipient and amount (a booking needs both). */
export const EXPECTED = { expected_recipient: 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC', expected_amount: '1.5' };

/** A well-formed check answer (CLEAR, confirmed, complete) as JSON, with fields replaced or added. */
export function checkResponse(overrides: Record<string, unknown> = {}): string {
  return JSON.stringify({ ...clearBody(), ...overrides });
}

/** A CLEAR answer to a check of `EXPECTED`, checked at `now`. */
export function clearBody(now = new Date()) {
  return {
    request_id: 'r-1',
    tx_hash: 'ab'.repeat(32),
    network: 'tron',
    transaction_type: 'TransferContract',
    transaction_category: 'trx_transfer',
    transaction_state: 'confirmed' as const,
    confirmations: 25,
    required_confirmations: 19,
    sender: 'TKFY7SErikT5cfs762ivMwwYBM1eGxFV6B',
    recipient: 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC',
    token_contract: null,
    token_symbol: 'TRX',
    decimals: 6,
    amount: '1.5',
    transfers: [
      {
        index: 0,
        asset_type: 'trx',
        sender: 'TKFY7SErikT5cfs762ivMwwYBM1eGxFV6B',
        recipient: 'TMVQGm1qAQYVdetCeGRRkTWYYrLXuHK2HC',
        token_contract: null,
        token_id: null,
        token_symbol: 'TRX',
        decimals: 6,
        amount: '1.5',
      },
    ],
    transfers_truncated: false,
    aml_risk_level: 'low',
    sanctions_hit: false,
    key_exposure: [],
    token_authenticity: 'official',
    recipient_match: true,
    token_match: null,
    amount_match: true,
    coverage: 'complete' as const,
    freshness: {
      checked_at: now.toISOString(),
      transaction_at: now.toISOString(),
      risk_data_at: now.toISOString(),
      token_data_at: null,
      max_source_age_seconds: 10,
    },
    overall_state: 'CLEAR' as const,
    reasons: [
      { code: 'TX_FINALIZED', category: 'transaction', severity: 'info' },
      { code: 'SANCTIONS_CLEAR', category: 'sanctions', severity: 'info' },
    ],
  };
}
