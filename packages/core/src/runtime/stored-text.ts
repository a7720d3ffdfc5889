/**
 * Control characters: C0 (U+0000 to U+001F), DEL (U+007F), C1 (U+0080 to U+009F), and Unicode's
 * Bidi_Control set (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069).
 */
const CONTROL = /[\p{Cc}\p{Bidi_Control}]/u;

/** C0 (U+0000 to U+001F) and DEL only: what text stored by earlier versions holds none of (see `TextRule`). */
const isStorageControl = (character: string) => character < ' ' || character === '\u007f';

/**
 * Which characters a text may not hold. `given`: what an operator or member gives the admin API, the admin
 * CLI or the portal, none of the control characters above. `stored`: text given back as it was stored
 * before, as a seed file does at every start (in memory mode it is the stored state, and the previous
 * portal wrote members' key labels into it), none of C0 and DEL, the rule that text was stored under.
 */
export type TextRule = 'given' | 'stored';

/**
 * Free text an operator or member gives the admin API (names, labels, emails) is stored as it is, so it
 * must hold no control character. PostgreSQL's text columns refuse U+0000 (a 500 where the memory store
 * kept it); C0, DEL and C1 would break the lines of logs, CLI output and pages that show it; and the
 * direction controls reorder what is shown after them, so one name or email could display as another
 * (`admin@example.com` beside one that only looks like it) in the portal and the admin CLI. Text stored
 * before C1 and direction controls were refused may hold them: it stays readable, and a seed file may give
 * it again (the `stored` rule), so a host that stored it still starts.
 */
export function hasControlCharacter(text: string, rule: TextRule = 'given'): boolean {
  return rule === 'given' ? CONTROL.test(text) : [...text].some(isStorageControl);
}
