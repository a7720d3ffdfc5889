import type { ErrorCode } from '../contract/enums.js';

/** The spec's 422 codes: the request must be corrected before it is sent again. */
export type RequestErrorCode = Extract<
  ErrorCode,
  | 'malformed_tx_hash'
  | 'invalid_network'
  | 'invalid_tron_address'
  | 'invalid_expected_amount'
  | 'invalid_idempotency_key'
  | 'payload_too_large'
  | 'validation_error'
>;

/** `message` is human-readable, names the field and never echoes more than a short clip of the input. */
export interface RequestError {
  code: RequestErrorCode;
  message: string;
}

export const requestError = (code: RequestErrorCode, message: string): RequestError => ({ code, message });

/** A short, quoted, escaped excerpt of caller input for a message. */
export function clip(value: string, max = 32): string {
  return JSON.stringify(value.length > max ? `${value.slice(0, max)}…` : value);
}
