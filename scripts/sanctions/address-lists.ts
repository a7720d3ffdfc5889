import { err, ok, type Result } from 'neverthrow';
import { isTronAddress } from '../../packages/core/src/tron/address.js';

/** One TRON address of the bundled snapshot: the OFAC currency tag it is filed under and its entry's name. */
export interface SdnTronEntry {
  address: string;
  /** `TRX`, `USDT`, `XBT`, … (what follows `Digital Currency Address - `). */
  feature: string;
  name: string | null;
}

/**
 * The per-asset lists of 0xB10C/ofac-sanctioned-digital-currency-addresses (`address` a line) and
 * its bob-teamone fork (`address;names`, aliases `;`-separated inside quotes), which are generated
 * from the same `sdn_advanced.xml`. Non-TRON lines (USDT on other chains) are skipped.
 */
export function parseAddressList(text: string, feature: string): Result<SdnTronEntry[], string> {
  const entries: SdnTronEntry[] = [];
  for (const [i, raw] of text.split(/\r?\n/).entries()) {
    const line = raw.trim();
    if (line === '') continue;
    const cut = line.indexOf(';');
    const address = cut < 0 ? line : line.slice(0, cut);
    if (!address.startsWith('T')) continue;
    if (!isTronAddress(address)) return err(`line ${i + 1}: ${JSON.stringify(address)} is not a valid TRON address`);
    const names = cut < 0 ? '' : line.slice(cut + 1).replace(/^"(.*)"$/, '$1');
    entries.push({ address, feature, name: names.split(';')[0]?.trim() || null });
  }
  return ok(entries);
}

/** Union by address; the first entry seen wins, a later one only fills in a missing name. */
export function mergeEntries(...lists: SdnTronEntry[][]): SdnTronEntry[] {
  const byAddress = new Map<string, SdnTronEntry>();
  for (const entry of lists.flat()) {
    const seen = byAddress.get(entry.address);
    if (!seen) byAddress.set(entry.address, entry);
    else if (seen.name === null && entry.name !== null) byAddress.set(entry.address, { ...seen, name: entry.name });
  }
  return [...byAddress.values()].sort((a, b) => (a.address < b.address ? -1 : a.address > b.address ? 1 : 0));
}
