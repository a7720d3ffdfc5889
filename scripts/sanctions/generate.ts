/**
 * Regenerates the bundled OFAC TRON list, `packages/core/src/risk/data/ofac-tron.ts`.
 *
 * From OFAC's advanced XML (the source of truth; needs the file, which this offline repo lacks):
 *   curl -o sdn_advanced.xml https://www.treasury.gov/ofac/downloads/sanctions/1.0/sdn_advanced.xml
 *   node --import tsx scripts/sanctions/generate.ts --xml sdn_advanced.xml
 * From the per-asset lists derived from it (how the committed data was made; see README):
 *   node --import tsx scripts/sanctions/generate.ts --trx ofac_trx.txt --trx ofac_trx_named.txt \
 *     --usdt ofac_usdt_named.txt --as-of 2025-11-27T12:26:36Z --provenance "..."
 */
import { readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { OFAC_TRON_ENTRIES } from '../../packages/core/src/risk/data/ofac-tron.js';
import { mergeEntries, parseAddressList } from './address-lists.js';
import { renderOfacModule } from './render.js';
import { parseSdnAdvanced, type SdnTronEntry } from './sdn-advanced.js';

const OUT = fileURLToPath(new URL('../../packages/core/src/risk/data/ofac-tron.ts', import.meta.url));

function fail(message: string): never {
  console.error(`generate: ${message}`);
  process.exit(1);
}

const { values } = parseArgs({
  options: {
    xml: { type: 'string' },
    trx: { type: 'string', multiple: true },
    usdt: { type: 'string', multiple: true },
    'as-of': { type: 'string' },
    provenance: { type: 'string' },
    out: { type: 'string', default: OUT },
  },
});

let entries: SdnTronEntry[];
let asOf: string;
let provenance: string;
if (values.xml) {
  const parsed = parseSdnAdvanced(readFileSync(values.xml, 'utf8'));
  if (parsed.isErr()) fail(parsed.error);
  for (const value of parsed.value.rejected)
    console.warn(`generate: skipped a value that should be a TRON address and is not: ${value}`);
  entries = parsed.value.entries;
  asOf = values['as-of'] ?? `${parsed.value.issued}T00:00:00Z`;
  provenance = values.provenance ?? `OFAC sdn_advanced.xml, DateOfIssue ${parsed.value.issued}`;
} else {
  if (!values.trx?.length || !values['as-of']) fail('give --xml FILE, or --trx/--usdt list files with --as-of');
  const read = (file: string, feature: 'TRX' | 'USDT') => {
    const list = parseAddressList(readFileSync(file, 'utf8'), feature);
    return list.isErr() ? fail(`${file}: ${list.error}`) : list.value;
  };
  entries = mergeEntries(...values.trx.map((f) => read(f, 'TRX')), ...(values.usdt ?? []).map((f) => read(f, 'USDT')));
  asOf = values['as-of'];
  provenance = values.provenance ?? `lists ${[...values.trx, ...(values.usdt ?? [])].join(', ')}`;
}
if (Number.isNaN(Date.parse(asOf))) fail(`--as-of ${asOf} is not a date`);
writeFileSync(values.out, renderOfacModule(entries, new Date(asOf).toISOString(), provenance));
// What changed against the bundled list, for the commit message and review.
const before = new Set(OFAC_TRON_ENTRIES.map(([address]) => address));
const after = new Set(entries.map((e) => e.address));
const added = [...after].filter((a) => !before.has(a));
const removed = [...before].filter((a) => !after.has(a));
console.log(
  `generate: ${entries.length} TRON addresses as of ${asOf} (+${added.length} -${removed.length}) -> ${values.out}`,
);
for (const a of removed.slice(0, 20)) console.log(`  removed ${a}`);
if (removed.length > 20) console.log(`  … and ${removed.length - 20} more removed`);
