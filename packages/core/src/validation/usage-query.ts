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
  const present = Object.entries(query).filter(([, value]) => value !== undefined);
  const fields: Record<string, unknown> = {};
  for (const [name, value] of present) {
    if (Array.isArray(value)) return err(requestError('validation_error', `query parameter ${clip(name)} is repeated`));
    fields[name] = name === 'days' && /^[1-9][0-9]*$/.test(value!) ? Number(value) : value;
  }
  const decoded = UsageQuery.decode(fields);
  if (decoded._tag === 'Right') return ok({ days: decoded.right.days ?? DEFAULT_USAGE_DAYS });
  const unknown = Object.keys(fields).find((name) => name !== 'days');
  return err(
    unknown === undefined
      ? requestError('validation_error', 'days must be an integer from 1 to 90 in plain digits')
      : requestError('validation_error', `unknown query parameter ${clip(unknown)}`),
  );
}
