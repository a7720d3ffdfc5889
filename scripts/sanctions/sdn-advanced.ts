import { err, ok, type Result } from 'neverthrow';
import { isTronAddress } from '../../packages/core/src/tron/address.js';
import { scanXml } from './xml-scan.js';

/** OFAC feature types that carry TRON addresses (many TRON wallets are listed under USDT). */
export const TRON_FEATURES = ['TRX', 'USDT'] as const;
export type TronFeature = (typeof TRON_FEATURES)[number];
const FEATURE_PREFIX = 'Digital Currency Address - ';
/** The shape of a base58 TRON address, typos included; USDT values of other chains (0x…, 1…, bc1…) do not have it. */
const TRON_SHAPED = /^T[0-9A-Za-z]{33}$/;

export interface SdnTronEntry {
  address: string;
  feature: TronFeature;
  /** The party's primary name (the primary alias's name parts), when given. */
  name: string | null;
}

export interface SdnTronList {
  /** `DateOfIssue` of the publication, `YYYY-MM-DD`. */
  issued: string;
  entries: SdnTronEntry[];
  /**
   * Values that should be TRON addresses and are not (reported, not bundled): anything under a TRX
   * feature, and TRON-shaped values (`T` + 33 letters or digits) under USDT that fail the checksum.
   */
  rejected: string[];
}

interface Party {
  names: string[];
  features: { typeId: string; details: string[] }[];
}

/**
 * TRON addresses of `sdn_advanced.xml`: the `FeatureType` ids named `Digital Currency Address - TRX`
 * or `- USDT`, then every `DistinctParty` `Feature` of those types, its `VersionDetail` values.
 * USDT values are kept only when they are TRON addresses (the USDT feature covers other chains too);
 * a TRON-shaped one that fails the checksum is reported in `rejected` like a bad TRX value.
 */
export function parseSdnAdvanced(xml: string): Result<SdnTronList, string> {
  const featureTypes = new Map<string, string>();
  const parties: Party[] = [];
  const date: Record<string, string> = {};
  const stack: { name: string; attrs: Record<string, string> }[] = [];
  let party: Party | null = null;
  let feature: Party['features'][number] | null = null;
  // Parts of the first documented name of the party's primary alias, while it is being read.
  let nameParts: string[] | null = null;
  let namePart: string[] | null = null;

  for (const event of scanXml(xml)) {
    if (event.type === 'open') {
      stack.push(event);
      if (event.name === 'DistinctParty') parties.push((party = { names: [], features: [] }));
      else if (!party) continue;
      else if (event.name === 'Alias' && event.attrs.Primary === 'true' && party.names.length === 0) nameParts = [];
      else if (event.name === 'NamePartValue' && nameParts) namePart = [];
      else if (event.name === 'Feature' && event.attrs.FeatureTypeID) {
        party.features.push((feature = { typeId: event.attrs.FeatureTypeID, details: [] }));
      }
    } else if (event.type === 'close') {
      const open = stack.pop();
      if (open?.name !== event.name) return err(`malformed XML: </${event.name}> closes <${open?.name ?? 'nothing'}>`);
      if (event.name === 'DistinctParty') party = null;
      else if (event.name === 'Feature') feature = null;
      else if (event.name === 'NamePartValue' && namePart && nameParts) {
        nameParts.push(namePart.join('').trim());
        namePart = null;
      } else if ((event.name === 'DocumentedName' || event.name === 'Alias') && nameParts && party) {
        if (nameParts.length > 0) party.names.push(nameParts.join(' '));
        nameParts = null;
      }
    } else {
      const top = stack.at(-1);
      const parent = stack.at(-2);
      if (!top) continue;
      if (namePart) namePart.push(event.text);
      else if (top.name === 'FeatureType' && parent?.name === 'FeatureTypeValues' && top.attrs.ID) {
        featureTypes.set(top.attrs.ID, (featureTypes.get(top.attrs.ID) ?? '') + event.text);
      } else if (top.name === 'VersionDetail' && feature) feature.details.push(event.text.trim());
      else if (parent?.name === 'DateOfIssue' && ['Year', 'Month', 'Day'].includes(top.name))
        date[top.name] = event.text.trim();
    }
  }
  if (stack.length > 0) return err(`malformed XML: <${stack.at(-1)?.name}> is not closed`);
  if (!date.Year || !date.Month || !date.Day) return err('no DateOfIssue in the file');
  const issued = `${date.Year}-${date.Month.padStart(2, '0')}-${date.Day.padStart(2, '0')}`;

  const wanted = new Map<string, TronFeature>();
  for (const [id, text] of featureTypes) {
    const feature = TRON_FEATURES.find((f) => text.trim() === FEATURE_PREFIX + f);
    if (feature) wanted.set(id, feature);
  }
  if (!wanted.size) return err(`no FeatureType named "${FEATURE_PREFIX}TRX" or "${FEATURE_PREFIX}USDT"`);

  const entries = new Map<string, SdnTronEntry>();
  const rejected: string[] = [];
  for (const p of parties) {
    for (const f of p.features) {
      const tronFeature = wanted.get(f.typeId);
      if (!tronFeature) continue;
      for (const address of f.details.filter((d) => d.length > 0)) {
        if (isTronAddress(address)) {
          if (!entries.has(address)) entries.set(address, { address, feature: tronFeature, name: p.names[0] ?? null });
        } else if (tronFeature === 'TRX' || TRON_SHAPED.test(address)) rejected.push(address);
      }
    }
  }
  return ok({ issued, entries: [...entries.values()].sort((a, b) => a.address.localeCompare(b.address)), rejected });
}
