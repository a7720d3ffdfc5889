/**
 * Regenerates the bundled OFAC TRON snapshot, `packages/core/src/risk/data/ofac-tron.ts`.
 *
 * From OFAC's XML (the source of truth; sdn.xml or sdn_advanced.xml, read by the same streaming parser as
 * the hosts' refresh: every TRON-format address of every `Digital Currency Address - *` tag, XBT included):
 *   curl -L -o sdn.xml https://www.treasury.gov/ofac/downloads/sdn.xml
 *   node --conditions=source --import tsx scripts/sanctions/generate.ts --xml sdn.xml
 * From the per-asset lists derived from it (how the committed data was made; see README):
 *   node --conditions=source --import tsx scripts/sanctions/generate.ts --trx ofac_trx.txt --trx ofac_trx_named.txt \
 *     --usdt ofac_usdt_named.txt --as-of 2025-11-27T12:26:36Z --provenance "..."
 */
import { createReadStream, readFileSync, writeFileSync } from 'node:fs';
import { fileURLToPath } from 'node:url';
import { parseArgs } from 'node:util';
import { OFAC_TRON_ENTRIES } from '../../packages/core/src/risk/data/ofac-tron.js';
import { DEFAULT_OFAC_DOWNLOAD_LIMITS } from '../../packages/core/src/risk/ofac/download.js';
import { parseOfacXml } from '../../packages/core/src/risk/ofac/sdn-xml.js';
import { mergeEntries, parseAddressList, type SdnTronEntry } from './address-lists.js';
import { renderOfacModule } from './render.js';

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
  const parsed = await parseOfacXml(createReadStream(values.xml), DEFAULT_OFAC_DOWNLOAD_LIMITS);
  if (parsed.isErr()) fail(parsed.error);
  for (const value of parsed.value.rejected)
    console.warn(`generate: skipped a value that should be a TRON address and is not: ${value}`);
  entries = parsed.value.entries.map(({ address, tag, name }) => ({ address, feature: tag, name }));
  const published = parsed.value.publishedAt.toISOString();
  asOf = values['as-of'] ?? published;
  provenance = values.provenance ?? `OFAC ${parsed.value.format}.xml, published ${published.slice(0, 10)}`;
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
