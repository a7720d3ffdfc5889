// Where a text stops being JSON, for a file that may hold secrets: JSON.parse's own message quotes
// the text around the error (a password, a full key), so a refusal names the line and column instead.

/** A place in a text: line and column from 1, the column in UTF-16 code units. */
export interface TextPosition {
  line: number;
  column: number;
}

/** The position of the first character where `text` breaks JSON's grammar (RFC 8259), or null when it is JSON. */
export function jsonSyntaxErrorAt(text: string): TextPosition | null {
  const at = syntaxErrorOffset(text);
  if (at === null) return null;
  const lineStart = text.lastIndexOf('\n', at - 1) + 1;
  let line = 1;
  for (let i = text.indexOf('\n'); i !== -1 && i < at; i = text.indexOf('\n', i + 1)) line++;
  return { line, column: at - lineStart + 1 };
}

/** The next position after a token, or where the text breaks. */
type Step = number | { at: number };

/** What the grammar allows next: `keyOrClose` and `valueOrClose` just after `{` and `[`. */
type Expect = 'value' | 'valueOrClose' | 'key' | 'keyOrClose' | 'colon' | 'next';

/** One pass with a stack of open brackets (no recursion: any depth), building no value. */
function syntaxErrorOffset(text: string): number | null {
  const closers: string[] = [];
  let expect: Expect = 'value';
  for (let i = skipWhitespace(text, 0); ; i = skipWhitespace(text, i)) {
    const c = text[i];
    const closer = closers[closers.length - 1];
    if (expect === 'next') {
      if (closer === undefined) return i === text.length ? null : i;
      if (c === ',') expect = closer === '}' ? 'key' : 'value';
      else if (c === closer) closers.pop();
      else return i;
      i++;
      continue;
    }
    if (expect === 'colon') {
      if (c !== ':') return i;
      expect = 'value';
      i++;
      continue;
    }
    if ((expect === 'keyOrClose' || expect === 'valueOrClose') && c === closer) {
      closers.pop();
      expect = 'next';
      i++;
      continue;
    }
    const isKey: boolean = expect === 'key' || expect === 'keyOrClose';
    if (isKey && c !== '"') return i;
    if (!isKey && (c === '{' || c === '[')) {
      closers.push(c === '{' ? '}' : ']');
      expect = c === '{' ? 'keyOrClose' : 'valueOrClose';
      i++;
      continue;
    }
    const end = scalar(text, i);
    if (typeof end !== 'number') return end.at;
    expect = isKey ? 'colon' : 'next';
    i = end;
  }
}

function skipWhitespace(text: string, from: number): number {
  let i = from;
  while (i < text.length && ' \t\n\r'.includes(text[i]!)) i++;
  return i;
}

const NUMBER = /-?(?:0|[1-9]\d*)(?:\.\d+)?(?:[eE][+-]?\d+)?/y;
const LITERALS: Record<string, string> = { t: 'true', f: 'false', n: 'null' };

/** A string, number or literal at `i`. */
function scalar(text: string, i: number): Step {
  const c = text[i];
  if (c === '"') return string(text, i);
  const literal = c === undefined ? undefined : LITERALS[c];
  if (literal !== undefined) {
    let k = 0;
    while (k < literal.length && text[i + k] === literal[k]) k++;
    return k === literal.length ? i + k : { at: i + k };
  }
  NUMBER.lastIndex = i;
  return NUMBER.test(text) ? NUMBER.lastIndex : { at: i };
}

/** The string opening at `i`: no control character, only JSON's escapes; unterminated breaks at the end. */
function string(text: string, start: number): Step {
  for (let i = start + 1; i < text.length; i++) {
    const c = text[i]!;
    if (c === '"') return i + 1;
    if (c < ' ') return { at: i };
    if (c !== '\\') continue;
    const escape = text[i + 1];
    if (escape === 'u') {
      if (!/^[0-9a-fA-F]{4}$/.test(text.slice(i + 2, i + 6))) return { at: i + 1 };
      i += 5;
    } else if (escape !== undefined && '"\\/bfnrt'.includes(escape)) i++;
    else return { at: i + 1 };
  }
  return { at: text.length };
}
