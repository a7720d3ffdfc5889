/**
 * Free text an operator or member gives the admin API (names, labels, emails) is stored as it is, so it
 * must hold no C0 control character (U+0000 to U+001F) and no DEL (U+007F): PostgreSQL's text columns
 * refuse U+0000 (a 500 where the memory store kept it), and none of them belongs in a name or an
 * address; they would break the lines of logs, CLI output and pages that show it.
 */
export function hasControlCharacter(text: string): boolean {
  for (let i = 0; i < text.length; i++) {
    const code = text.charCodeAt(i);
    if (code < 0x20 || code === 0x7f) return true;
  }
  return false;
}
