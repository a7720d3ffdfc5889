import BigNumber from 'bignumber.js';
import * as t from 'io-ts';
import type { ProviderCallObserver } from '../chain/call-observer.js';
import type { ProviderContext } from '../chain/facts.js';
import { nullable } from '../contract/schema.js';
import { isHigherLevel, levelFromChainalysis } from './aml-levels.js';
import { keyExposures, namesSanctions } from './key-exposure.js';
import { lookupOptions, sharedLookup, type SharedLookupOptions } from './shared-lookup.js';
import type { AmlAnswer, AmlProvider, AssetRef, Exposure } from './signals.js';
import { assetCoverage, OFFICIAL_ASSETS } from './token-registry.js';
import { getVendorJson } from './vendor-http.js';

const Big = BigNumber.clone({ EXPONENTIAL_AT: 1e9 });

/** Chainalysis sends numbers; Chainalysis-compatible vendors sometimes send numeric strings. */
const Numeric = new t.Type<BigNumber, unknown, unknown>(
  'Numeric',
  (u): u is BigNumber => u instanceof Big,
  (u, c) => {
    const n = typeof u === 'number' || typeof u === 'string' ? new Big(u) : null;
    return n && n.isFinite() && !n.isNegative() ? t.success(n) : t.failure(u, c);
  },
  (n) => n.toFixed(),
);
const ExposureType = t.keyof({ direct: null, indirect: null });

const VendorExposure = t.intersection([
  t.type({ category: t.string, value: Numeric }),
  t.partial({ exposureType: ExposureType, direction: nullable(t.string) }),
]);
const VendorTrigger = t.intersection([
  t.type({ category: t.string, percentage: Numeric }),
  t.partial({
    message: nullable(t.string),
    ruleTriggered: nullable(t.partial({ risk: t.string, exposureType: ExposureType, direction: t.string })),
  }),
]);
/** `GET {base}/v2/entities/{address}` (Address Screening / Entity API v2). */
const EntityBody = t.intersection([
  t.type({ risk: t.string }),
  t.partial({
    address: t.string,
    status: t.string,
    riskReason: nullable(t.string),
    /** The entity the address belongs to, when the vendor knows it. */
    cluster: nullable(t.partial({ name: nullable(t.string), category: nullable(t.string) })),
    /** The vendor's own labels for the address itself (e.g. category `sanctions`). */
    addressIdentifications: nullable(t.array(t.partial({ name: nullable(t.string), category: nullable(t.string) }))),
    exposures: nullable(t.array(VendorExposure)),
    triggers: nullable(t.array(VendorTrigger)),
  }),
]);
type EntityBody = t.TypeOf<typeof EntityBody>;

/** The vendor gives no hop count for indirect exposure; 2 is the least it can be. */
export const INDIRECT_EXPOSURE_HOPS = 2;

export interface ChainalysisEntityOptions extends Partial<SharedLookupOptions> {
  /** e.g. `https://api.chainalysis.com/api/risk` */
  baseUrl: string;
  apiKey: string;
  /** Assets the vendor covers (default: TRX and the official TRC20s of the bundled registry). */
  supportedAssets?: readonly AssetRef[];
  /** Sees every vendor call (metrics, logs). */
  onCall?: ProviderCallObserver;
}

export function createChainalysisAmlProvider(options: ChainalysisEntityOptions): AmlProvider {
  const base = options.baseUrl.replace(/\/+$/, '');
  const lookup = sharedLookup<AmlAnswer>(async (address, signal) => {
    const body = await getVendorJson(
      {
        url: `${base}/v2/entities/${encodeURIComponent(address)}`,
        headers: { Token: options.apiKey },
        signal,
        observed: { provider: 'chainalysis_entity', call: 'entities', onCall: options.onCall },
      },
      EntityBody,
    );
    if (body.isErr()) return { status: 'unavailable', reason: `Chainalysis Entity API: ${body.error}` };
    // An answer about another address (a proxy's mix-up, a cache keyed wrongly), or one that names no
    // address at all, says nothing we can tie to this one.
    if (body.value.address !== address) {
      const named =
        body.value.address === undefined ? 'names no address' : `answered for another address (${body.value.address})`;
      return { status: 'unavailable', reason: `Chainalysis Entity API: ${named}` };
    }
    return amlAnswerFromEntity(body.value, new Date());
  }, lookupOptions(options));
  return {
    supportsAsset: assetCoverage(options.supportedAssets ?? OFFICIAL_ASSETS),
    assessAddress: (address: string, ctx: ProviderContext) => lookup(address, ctx),
  };
}

/**
 * Entity body → our answer (the caller has checked that it names the address asked about). Exported for
 * tests and for Chainalysis-compatible vendors.
 */
export function amlAnswerFromEntity(body: EntityBody, asOf: Date): AmlAnswer {
  // Only an assessment that says it is complete is one: a bare `{"risk":"Low"}` is not "low".
  if (body.status !== 'COMPLETE') {
    return { status: 'unavailable', reason: `Chainalysis Entity API: assessment ${body.status ?? 'status missing'}` };
  }
  // The top-level `risk` and a triggered rule's `risk` can disagree (`Low` beside a Severe sanctions
  // rule): the highest counts, and a level we cannot read anywhere makes the whole answer unreadable.
  const unknownRisk = (risk: string): AmlAnswer => ({
    status: 'unavailable',
    reason: `Chainalysis Entity API: unknown risk "${risk}"`,
  });
  let level = levelFromChainalysis(body.risk);
  if (level === null) return unknownRisk(body.risk);
  for (const trigger of body.triggers ?? []) {
    const risk = trigger.ruleTriggered?.risk;
    if (risk === undefined) continue;
    const ruleLevel = levelFromChainalysis(risk);
    if (ruleLevel === null) return unknownRisk(risk);
    if (isHigherLevel(ruleLevel, level)) level = ruleLevel;
  }
  const exposures = exposuresOf(body);
  // Being identified as, belonging to, or dealing directly with a sanctioned entity is never read as
  // low or moderate, whatever rating the vendor account's rules give: a payment check must not call such a payer clean.
  const sanctionedEntity =
    namesSanctions(body.cluster?.category) ||
    (body.addressIdentifications ?? []).some((i) => namesSanctions(i.category) || namesSanctions(i.name));
  const directSanctions = exposures.some((e) => e.exposureType === 'direct' && namesSanctions(e.category));
  if ((sanctionedEntity || directSanctions) && isHigherLevel('high', level)) level = 'high';
  // Bounded here too, so a cached answer holds no more than a check reports.
  return { status: 'answered', level, exposures: keyExposures(exposures), asOf };
}

/**
 * `exposures` give USD values: percent = the category's share of the address's total exposure.
 * `triggers` give the vendor's own percentage, which wins for the same category and type.
 */
function exposuresOf(body: EntityBody): Exposure[] {
  const byKey = new Map<string, Exposure>();
  const vendorExposures = body.exposures ?? [];
  const total = vendorExposures.reduce((sum, e) => sum.plus(e.value), new Big(0));
  for (const e of vendorExposures) {
    const exposureType = e.exposureType ?? 'direct';
    const percent = total.isZero() ? null : percentString(e.value.div(total).times(100));
    addExposure(byKey, { category: e.category, exposureType, hops: hopsOf(exposureType), percent });
  }
  for (const trigger of body.triggers ?? []) {
    const exposureType = trigger.ruleTriggered?.exposureType ?? 'direct';
    const percent = trigger.percentage.isGreaterThan(100) ? null : percentString(trigger.percentage);
    byKey.set(`${trigger.category}\n${exposureType}`, {
      category: trigger.category,
      exposureType,
      hops: hopsOf(exposureType),
      percent,
    });
  }
  return [...byKey.values()];
}

function addExposure(byKey: Map<string, Exposure>, exposure: Exposure): void {
  const key = `${exposure.category}\n${exposure.exposureType}`;
  const existing = byKey.get(key);
  // The same category twice (e.g. per direction): the shares add up.
  const percent =
    existing && existing.percent !== null && exposure.percent !== null
      ? percentString(new Big(existing.percent).plus(exposure.percent))
      : exposure.percent;
  byKey.set(key, { ...exposure, percent });
}

const hopsOf = (type: 'direct' | 'indirect'): number => (type === 'direct' ? 1 : INDIRECT_EXPOSURE_HOPS);

const percentString = (n: BigNumber): string => n.decimalPlaces(2, BigNumber.ROUND_HALF_UP).toFixed();
