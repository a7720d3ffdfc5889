/**
 * Control characters: C0 (U+0000 to U+001F), DEL (U+007F), C1 (U+0080 to U+009F), and Unicode's
 * Bidi_Control set (U+061C, U+200E, U+200F, U+202A to U+202E, U+2066 to U+2069).
 */
const CONTROL = /[\p{Cc}\p{Bidi_Control}]/u;

/**
 * Free text an operator or member gives the admin API (names, labels, emails) is stored as it is, so it
 * must hold no control character. PostgreSQL's text columns refuse U+0000 (a 500 where the memory store
 * kept it); C0, DEL and C1 would break the lines of logs, CLI output and pages that show it; and the
 * direction controls reorder what is shown after them, so one name or email could display as another
 * (`admin@example.com` beside one that only looks like it) in the portal and the admin CLI. Text stored
 * before this rule included C1 or direction controls stays stored and readable: the rule is applied to
 * what is given, never to what is read.
 */
export function hasControlCharacter(text: string): boolean {
  return CONTROL.test(text);
}
