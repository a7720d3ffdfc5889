import { decode } from '@tron-safety/codec';
import { err, ok, type Result } from 'neverthrow';
import { DEFAULT_USAGE_DAYS, UsageQuery } from '../contract/models.js';
import { clip, requestError, type RequestError } from './request-error.js';

/**
 * The `GET /v1/usage` query: `days` is an integer 1 to 90 written as plain digits without a
 * leading zero ("030", "3.0", "1e1", "+5", "" are validation_error), default 30. Unknown or
 * repeated parameters are validation_error too: a misspelt `day=7` must not silently give 30 days.
 */
export function validateUsageQuery(
  query: Record<string, string | string[] | undefined>,
): Result<{ days: number }, RequestError> {
  for (const [name, value] of Object.entries(query)) {
    if (value === undefined) continue;
    if (name !== 'days') return err(requestError('validation_error', `unknown query parameter ${clip(name)}`));
    if (Array.isArray(value)) return err(requestError('validation_error', 'query parameter days is repeated'));
  }
  const days = query.days as string | undefined;
  if (days === undefined) return ok({ days: DEFAULT_USAGE_DAYS });
  const decoded = decode(UsageQuery, { days: /^[1-9][0-9]*$/.test(days) ? Number(days) : days });
  return decoded.isOk() && decoded.value.days !== undefined
    ? ok({ days: decoded.value.days })
    : err(requestError('validation_error', 'days must be an integer from 1 to 90 in plain digits'));
}
