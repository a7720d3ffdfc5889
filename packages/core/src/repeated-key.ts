const QUOTE = 0x22;
const BACKSLASH = 0x5c;
const COMMA = 0x2c;

/** A key an object repeats, and the index of the top-level array element holding it (0 when the text is no array). */
export interface RepeatedKey {
  key: string;
  element: number;
}

/**
 * The first key an object in a valid JSON text repeats (compared after unescaping), or null.
 * JSON.parse silently keeps the last of repeated keys, another parser on the way may keep the first.
 * One pass over the characters: strings are skipped whole, and a string followed by `:` inside an
 * object is a key.
 */
export function repeatedKey(text: string): RepeatedKey | null {
  const open: (Set<string> | null)[] = []; // one entry per open object (its keys) or array (null)
  let element = 0;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === QUOTE) {
      const end = closingQuote(text, i);
      const keys = open[open.length - 1];
      if (keys && isKey(text, end + 1)) {
        const token = text.slice(i, end + 1);
        const key = token.includes('\\') ? (JSON.parse(token) as string) : token.slice(1, -1);
        if (keys.has(key)) return { key, element };
        keys.add(key);
      }
      i = end;
    } else if (c === 0x7b /* { */) open.push(new Set());
    else if (c === 0x5b /* [ */) open.push(null);
    else if (c === 0x7d /* } */ || c === 0x5d /* ] */) open.pop();
    else if (c === COMMA && open.length === 1 && open[0] === null) element++;
  }
  return null;
}

/** The index of the quote closing the string that opens at `start` (the text is valid JSON). */
function closingQuote(text: string, start: number): number {
  for (let i = start + 1; ; i++) {
    const c = text.charCodeAt(i);
    if (c === BACKSLASH) i++;
    else if (c === QUOTE) return i;
  }
}

/** Whether JSON whitespace and then `:` follow at `from`: the string before was a key. */
function isKey(text: string, from: number): boolean {
  for (let i = from; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c === 0x3a /* : */) return true;
    if (c !== 0x20 && c !== 0x09 && c !== 0x0a && c !== 0x0d) return false;
  }
  return false;
}
