/**
 * A deep copy of plain data (objects, arrays, Dates, primitives), frozen: taken once when a value
 * is written, so reads can hand out the stored object itself. Dates are copied (a frozen Date can
 * still be set), so a caller's later change to its own Date does not reach the store.
 */
export function frozenCopy<T>(value: T): T {
  if (value === null || typeof value !== 'object') return value;
  if (value instanceof Date) return new Date(value.getTime()) as T;
  if (Array.isArray(value)) return Object.freeze(value.map(frozenCopy)) as T;
  const out: Record<string, unknown> = {};
  for (const key of Object.keys(value)) out[key] = frozenCopy((value as Record<string, unknown>)[key]);
  return Object.freeze(out) as T;
}
