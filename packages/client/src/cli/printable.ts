/**
 * What the server sends reaches a terminal through the summary, and some of it comes from the chain
 * (a token's symbol is whatever its contract returns). Control and format characters (C0, DEL, C1
 * such as U+009B, which some terminals read as an escape sequence, bidi overrides, zero-width
 * characters) could rewrite or reorder what is shown, for example hide "safe to book: no" or make a
 * symbol look like another. They are shown as `\u{…}` instead.
 */
const HIDDEN = /[\p{Cc}\p{Cf}]/gu;

export const printable = (text: string): string =>
  text.replace(HIDDEN, (c) => `\\u{${c.codePointAt(0)!.toString(16).padStart(4, '0')}}`);

/** A copy of decoded JSON with every string (values and keys) made printable. */
export function printableJson<T>(value: T): T {
  if (typeof value === 'string') return printable(value) as T;
  if (Array.isArray(value)) return value.map(printableJson) as T;
  if (value === null || typeof value !== 'object') return value;
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [printable(k), printableJson(v)])) as T;
}
