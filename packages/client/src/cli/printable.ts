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

/**
 * JSON text with those characters written as JSON `\u` escapes: the same JSON to a parser, inert on
 * a terminal. Tab, line feed and carriage return stay: outside a string they are layout, and JSON
 * has them escaped inside one.
 */
const HIDDEN_IN_JSON = /(?![\t\n\r])[\p{Cc}\p{Cf}]/gu;

export const printableJsonText = (json: string): string =>
  json.replace(HIDDEN_IN_JSON, (c) =>
    // JSON escapes UTF-16 code units: a format character beyond U+FFFF is two.
    Array.from({ length: c.length }, (_, i) => `\\u${c.charCodeAt(i).toString(16).padStart(4, '0')}`).join(''),
  );
