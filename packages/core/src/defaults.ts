/**
 * `defaults`, with each setting `given` gives a value for. One left `undefined` (as an optional config
 * field gives) keeps its default: a spread would copy the `undefined` and turn a limit or a cap off.
 */
export function withDefaults<T extends object>(defaults: T, given: Partial<T> | undefined): T {
  const merged = { ...defaults };
  for (const key of Object.keys(given ?? {}) as (keyof T)[]) {
    const value = given![key];
    if (value !== undefined) merged[key] = value as T[keyof T];
  }
  return merged;
}
