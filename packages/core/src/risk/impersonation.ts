/**
 * The impersonation rule: does a token's symbol or name imitate an official token's?
 *
 * Both sides are reduced to a skeleton: Unicode compatibility forms folded (full-width `ＵＳＤＴ`,
 * ligatures), accents dropped, look-alike letters mapped to Latin (Cyrillic `С`, Greek `Τ`, Armenian `Ս`,
 * Lisu `ꓴ`, Cherokee `Ꮪ`, small capitals `ᴜ`, `₮`, `$`, `0`/`1`/`5`, `l`), upper-cased, and everything but A–Z/0–9 removed
 * (spaces, dots, dashes, zero-width characters and the other characters that render as nothing, Hangul fillers
 * included). A text with bidi controls is judged as stored and as displayed (its overrides' spans reversed).
 * Then:
 * - a symbol of 4+ characters (`USDT`, `TUSD`) or a name of 6+ (`TETHERUSD`, `BITTORRENT`) found
 *   anywhere in the skeleton is an imitation (`USDT.e`, `USDT-TRC20`, `TRC20 USDT`, `Tether USD (TRON)`);
 * - a shorter mark (`SUN`, `WIN`, `BTT`, `JST`, `TRX`, `JUST`, `TRON`) only when the skeleton is the mark,
 *   optionally with a chain or version tag before or after it (`WIN.e`, `SUN Token`, `TRON-BTT`),
 *   so that ordinary words containing them (`Sunflower`, `Winner`) stay unknown.
 * A letter outside ASCII that the table does not map (Georgian `Ⴎ`, `Ʋ`, `Ʉ`) is a wildcard, not deleted:
 * a text that matches a mark of 4+ characters with one such letter in place of one of the mark's
 * characters (so three of its own match) is an imitation too (`ႮSDT`, `Ʉ SDT`). Nobody writes an official
 * symbol with one foreign letter in it by accident; a wholly non-Latin name stays unknown. Marks of three
 * characters (`SUN`, `WIN`, `TRX`) get no wildcard: two matching letters beside any foreign one are too
 * common by chance (`太UN`, `T币X`, `WIЖ`, `ẞUN` are unknown); their look-alikes must be in the table.
 * Limits: misspellings (`USTD`) and legitimate derivatives (JustLend `jUSDT`, which this flags) need the
 * registry extended by configuration.
 */

const LOOK_ALIKES: Record<string, string> = {
  // Cyrillic
  А: 'A',
  В: 'B',
  С: 'C',
  Е: 'E',
  Н: 'H',
  І: 'I',
  Ј: 'J',
  К: 'K',
  М: 'M',
  О: 'O',
  Р: 'P',
  Ѕ: 'S',
  Т: 'T',
  У: 'Y',
  Х: 'X',
  Ү: 'Y',
  Ԁ: 'D',
  Ԛ: 'Q',
  Ԝ: 'W',
  а: 'A',
  с: 'C',
  е: 'E',
  һ: 'H',
  і: 'I',
  ј: 'J',
  к: 'K',
  м: 'M',
  н: 'H',
  о: 'O',
  р: 'P',
  ѕ: 'S',
  т: 'T',
  у: 'Y',
  х: 'X',
  ү: 'Y',
  ԁ: 'D',
  ԛ: 'Q',
  ԝ: 'W',
  п: 'N',
  ь: 'B',
  // Greek
  Α: 'A',
  Β: 'B',
  Ε: 'E',
  Ζ: 'Z',
  Η: 'H',
  Ι: 'I',
  Κ: 'K',
  Μ: 'M',
  Ν: 'N',
  Ο: 'O',
  Ρ: 'P',
  Τ: 'T',
  Υ: 'Y',
  Χ: 'X',
  α: 'A',
  ε: 'E',
  ι: 'I',
  κ: 'K',
  ν: 'V',
  ο: 'O',
  ρ: 'P',
  τ: 'T',
  υ: 'U',
  χ: 'X',
  Σ: 'S', // faux-Latin typography writes S as sigma (`ΣUN`)
  // Armenian
  Ս: 'U',
  ս: 'U',
  Օ: 'O',
  օ: 'O',
  // Lisu capitals drawn as Latin ones
  ꓐ: 'B',
  ꓑ: 'P',
  ꓓ: 'D',
  ꓔ: 'T',
  ꓖ: 'G',
  ꓗ: 'K',
  ꓙ: 'J',
  ꓚ: 'C',
  ꓜ: 'Z',
  ꓝ: 'F',
  ꓟ: 'M',
  ꓠ: 'N',
  ꓡ: 'I',
  ꓢ: 'S',
  ꓣ: 'R',
  ꓦ: 'V',
  ꓧ: 'H',
  ꓪ: 'W',
  ꓫ: 'X',
  ꓬ: 'Y',
  ꓮ: 'A',
  ꓰ: 'E',
  ꓲ: 'I',
  ꓳ: 'O',
  ꓴ: 'U',
  // Cherokee (small letters upper-case to these)
  Ꭰ: 'D',
  Ꭲ: 'T',
  Ꭺ: 'A',
  Ꭻ: 'J',
  Ꭼ: 'E',
  Ꮃ: 'W',
  Ꮇ: 'M',
  Ꮋ: 'H',
  Ꮐ: 'G',
  Ꮓ: 'Z',
  Ꮢ: 'R',
  Ꮩ: 'V',
  Ꮪ: 'S',
  Ꮮ: 'I',
  Ꮯ: 'C',
  Ꮲ: 'P',
  Ꮶ: 'K',
  Ᏼ: 'B',
  // Latin small capitals (NFKD keeps them)
  ᴀ: 'A',
  ʙ: 'B',
  ᴄ: 'C',
  ᴅ: 'D',
  ᴇ: 'E',
  ɢ: 'G',
  ʜ: 'H',
  ɪ: 'I',
  ᴊ: 'J',
  ᴋ: 'K',
  ʟ: 'I',
  ᴍ: 'M',
  ɴ: 'N',
  ᴏ: 'O',
  ᴘ: 'P',
  ʀ: 'R',
  ꜱ: 'S',
  ᴛ: 'T',
  ᴜ: 'U',
  ᴠ: 'V',
  ᴡ: 'W',
  ʏ: 'Y',
  ᴢ: 'Z',
  // Latin letters NFKD leaves alone, currency signs, digits and strokes read as letters
  ı: 'I',
  ł: 'I',
  Ł: 'I',
  ø: 'O',
  Ø: 'O',
  đ: 'D',
  Đ: 'D',
  '₮': 'T',
  $: 'S',
  '0': 'O',
  '1': 'I',
  '5': 'S',
  '|': 'I',
  '!': 'I',
  l: 'I',
  L: 'I',
};

/** Stands for a letter the table cannot map, in `folded` text (never in a skeleton). */
const WILDCARD = '*';

/**
 * Marks and the characters that render as nothing: zero-width ones, variation selectors, and the Hangul
 * fillers, which are letters (`U\u3164S\u3164D\u3164T` shows as USDT) and would otherwise be wildcards.
 */
const INVISIBLE = /[\p{M}\p{Default_Ignorable_Code_Point}]/gu;

/** A–Z/0–9 after folding and mapping; every other letter left becomes `WILDCARD`, anything else is dropped. */
function folded(text: string): string {
  let out = '';
  for (const ch of text.normalize('NFKD').replace(INVISIBLE, '')) {
    const upper = ch.toUpperCase();
    out += LOOK_ALIKES[ch] ?? LOOK_ALIKES[upper] ?? upper;
  }
  return out.replace(/[^A-Z0-9]/gu, (ch) => (/\p{L}/u.test(ch) ? WILDCARD : ''));
}

/** The comparable form of a symbol or name (empty when nothing readable is left). */
export function skeleton(text: string): string {
  return folded(text).replaceAll(WILDCARD, '');
}

/** Chain, bridge and version tags impostors put around a real symbol. */
const TAGS = ['E', 'TRC20', 'TRC', 'TRON', 'TRX', 'ERC20', 'BEP20', 'TOKEN', 'OFFICIAL', 'NEW', 'OLD', 'V2'].map(
  skeleton,
);

const ONLY_TAGS = new RegExp(`^(?:${TAGS.join('|')})+$`, 'u');

/**
 * A text that reads as chain and version tags alone (`Token`, `TRC20`, `New Token`): as a mark it would
 * match unrelated tokens (`Token V2`, `TRC20 Token`), so no registry entry may be named so.
 */
export function onlyTags(text: string): boolean {
  return ONLY_TAGS.test(skeleton(text));
}

/** Marks at least this long are matched anywhere inside a skeleton; names need more to avoid common words. */
const ANYWHERE_LENGTH = { symbol: 4, name: 6 } as const;

export interface Mark<T> {
  /** Symbol, or name/alias, of an official token. */
  text: string;
  kind: 'symbol' | 'name';
  token: T;
}

/**
 * Builds the rule over the given marks; returns the imitated token or null. With `whole`, a text imitates
 * a mark only by being it (look-alikes, spacing and a tag allowed: `ＵＳＤＴ`, `USDT.e`, `Tether USD (TRON)`),
 * not by containing it (`jUSDT`): the test a registry entry's own names must pass.
 */
export function impersonationRule<T>(
  marks: readonly Mark<T>[],
  { whole = false }: { whole?: boolean } = {},
): (text: string | null) => T | null {
  const compiled = marks
    .map((m) => ({ ...m, skeleton: skeleton(m.text) }))
    .filter((m) => m.skeleton.length > 0)
    .map((m) => ({ ...m, anywhere: !whole && m.skeleton.length >= ANYWHERE_LENGTH[m.kind] }));
  return (text) => {
    if (text === null) return null;
    for (const reading of readings(text)) {
      const s = folded(reading);
      if (s.replaceAll(WILDCARD, '').length === 0) continue;
      for (const m of compiled) {
        if (m.anywhere ? includesMark(s, m.skeleton) : isTagged(s, m.skeleton)) return m.token;
      }
    }
    return null;
  };
}

/** Bidi embeddings, overrides and isolates: the text is displayed in another order than it is stored. */
const BIDI_CONTROL = /[\u202A-\u202E\u2066-\u2069]/u;
/** A right-to-left override, up to its pop (or the end of its isolate, or of the text): shown reversed. */
const RTL_OVERRIDE = /\u202E([^\u202C\u2069]*)/gu;
const reversed = (text: string): string => [...text].reverse().join('');

/**
 * What a text may show: as stored, and, when it holds bidi controls, each right-to-left override's span
 * reversed in place (`US\u202ETD` shows `USDT`) and the whole text reversed (an override or a
 * right-to-left paragraph around all of it). No official symbol or name needs these controls, so a reading
 * that imitates one is enough.
 */
function readings(text: string): string[] {
  if (!BIDI_CONTROL.test(text)) return [text];
  return [text, text.replace(RTL_OVERRIDE, (_, span: string) => reversed(span)), reversed(text)];
}

/** Marks at least this long may have one character stood in for by a wildcard. */
const WILDCARD_MARK_LENGTH = 4;

/** `mark` at `at` in `s`, where one wildcard may stand for one character of a mark of 4+ characters. */
function matchesAt(s: string, mark: string, at: number): boolean {
  if (at < 0 || at + mark.length > s.length) return false;
  let wildcards = 0;
  for (let i = 0; i < mark.length; i++) {
    const ch = s[at + i];
    if (ch === WILDCARD) wildcards++;
    else if (ch !== mark[i]) return false;
  }
  return wildcards === 0 || (wildcards === 1 && mark.length >= WILDCARD_MARK_LENGTH);
}

function includesMark(s: string, mark: string): boolean {
  for (let at = 0; at + mark.length <= s.length; at++) if (matchesAt(s, mark, at)) return true;
  return false;
}

function isTagged(s: string, mark: string): boolean {
  if (s.length === mark.length) return matchesAt(s, mark, 0);
  if (matchesAt(s, mark, 0) && TAGS.includes(s.slice(mark.length))) return true;
  return matchesAt(s, mark, s.length - mark.length) && TAGS.includes(s.slice(0, -mark.length));
}
