import { err, ok, type Result } from 'neverthrow';
import { SaxesParser, type SaxesTagPlain } from 'saxes';
import { rethrowProgrammerError } from '../../chain/programmer-error.js';
import { isTronAddress } from '../../tron/address.js';

/** One TRON address of OFAC's SDN list, with the currency tag it is filed under and its entry's name. */
export interface OfacTronAddress {
  address: string;
  /** What follows `Digital Currency Address - ` (`TRX`, `USDT`, `XBT`, …). */
  tag: string;
  name: string | null;
}

export type OfacXmlFormat = 'sdn' | 'sdn_advanced';

export interface ParsedOfacList {
  /** Told apart by the root element: `sdnList` (sdn.xml) or `Sanctions` (sdn_advanced.xml). */
  format: OfacXmlFormat;
  /** The file's publish date (`Publish_Date` / `DateOfIssue`), 00:00 UTC of that day. */
  publishedAt: Date;
  /** Every TRON-format address of every `Digital Currency Address - *` id, once, by address. */
  entries: OfacTronAddress[];
  /** TRON-shaped values (`T` + 33 base58 letters) that fail the checksum: reported, never listed (at most 100). */
  rejected: string[];
}

export interface OfacParseLimits {
  /** More TRON addresses than this is no OFAC list we can trust (today: a few hundred). */
  maxAddresses: number;
}

const ID_PREFIX = 'Digital Currency Address - ';
const TRON_SHAPED = /^T[1-9A-HJ-NP-Za-km-z]{33}$/;
/** Text kept per element: enough for any name or address; a longer run is cut, never held whole. */
const MAX_TEXT = 512;
const MAX_DEPTH = 64;
const MAX_REJECTED = 100;

/** What one format's reader does with the elements it cares about; `path` is the open elements' local names. */
interface FormatReader {
  open(name: string, attrs: Record<string, string>, path: readonly string[]): void;
  /** Whether the text of the element just opened is wanted. */
  wantsText(path: readonly string[]): boolean;
  close(name: string, text: string, path: readonly string[]): void;
  finish(): Result<{ publishedAt: Date }, string>;
}

/** Collects addresses by address (first tag and name win), bounded. */
class AddressCollector {
  readonly entries = new Map<string, OfacTronAddress>();
  readonly rejected: string[] = [];
  overflow = false;
  constructor(private readonly maxAddresses: number) {}

  add(value: string, tag: string, name: string | null): void {
    const address = value.trim();
    if (isTronAddress(address)) {
      if (this.entries.has(address)) return;
      if (this.entries.size >= this.maxAddresses) this.overflow = true;
      else
        this.entries.set(detach(address), { address: detach(address), tag: detach(tag), name: name && detach(name) });
    } else if (TRON_SHAPED.test(address) && this.rejected.length < MAX_REJECTED) this.rejected.push(detach(address));
  }
}

const localName = (name: string) => name.slice(name.indexOf(':') + 1);
/**
 * A copy that does not share the parser's chunk: V8 keeps a substring as a view of its parent, so one kept
 * address would pin a whole chunk of the file (and hundreds of them, most of it).
 */
const detach = (text: string) => Buffer.from(text, 'utf8').toString('utf8');
const clean = (text: string) => text.replace(/\s+/g, ' ').trim();

function utcDay(year: number, month: number, day: number): Date | null {
  const date = new Date(Date.UTC(year, month - 1, day));
  const valid = date.getUTCFullYear() === year && date.getUTCMonth() === month - 1 && date.getUTCDate() === day;
  return valid && year >= 2000 ? date : null;
}

/** sdn.xml: `sdnEntry` (first and last name) with `idList/id` (`idType`, `idNumber`); `Publish_Date` MM/DD/YYYY. */
function sdnReader(addresses: AddressCollector): FormatReader {
  let published: string | null = null;
  let entry: { first: string; last: string; ids: { tag: string; value: string }[] } | null = null;
  let id: { type: string; number: string } | null = null;
  const TEXT = new Set(['Publish_Date', 'firstName', 'lastName', 'idType', 'idNumber']);
  return {
    open(name, _attrs, path) {
      if (name === 'sdnEntry' && path.length === 2) entry = { first: '', last: '', ids: [] };
      else if (name === 'id' && entry && path.at(-2) === 'idList') id = { type: '', number: '' };
    },
    wantsText: (path) =>
      TEXT.has(path.at(-1)!) &&
      (path.at(-2) === 'sdnEntry' || path.at(-2) === 'id' || path.at(-2) === 'publshInformation'),
    close(name, text, path) {
      if (name === 'Publish_Date' && path.at(-2) === 'publshInformation') published = clean(text);
      else if (id && name === 'idType') id.type = clean(text);
      else if (id && name === 'idNumber') id.number = clean(text);
      else if (id && name === 'id') {
        if (id.type.startsWith(ID_PREFIX)) entry?.ids.push({ tag: id.type.slice(ID_PREFIX.length), value: id.number });
        id = null;
      } else if (entry && path.at(-2) === 'sdnEntry' && name === 'firstName') entry.first = clean(text);
      else if (entry && path.at(-2) === 'sdnEntry' && name === 'lastName') entry.last = clean(text);
      else if (entry && name === 'sdnEntry') {
        const fullName = clean(`${entry.first} ${entry.last}`) || null;
        for (const { tag, value } of entry.ids) addresses.add(value, tag, fullName);
        entry = null;
      }
    },
    finish() {
      const match = published === null ? null : /^(\d{1,2})\/(\d{1,2})\/(\d{4})$/.exec(published);
      const date = match ? utcDay(Number(match[3]), Number(match[1]), Number(match[2])) : null;
      return date
        ? ok({ publishedAt: date })
        : err(`no valid Publish_Date in the file (got ${JSON.stringify(published)})`);
    },
  };
}

/**
 * sdn_advanced.xml: the `FeatureType` ids named `Digital Currency Address - *` (listed before the parties),
 * then each `DistinctParty`: its primary alias's first documented name, and the `VersionDetail` values of
 * its features of those types. `DateOfIssue` (Year, Month, Day) is the publish date.
 */
function advancedReader(addresses: AddressCollector): FormatReader {
  const featureTypes = new Map<string, string>();
  const date: Record<string, number> = {};
  let featureTypeId: string | null = null;
  let party: { name: string | null; values: { tag: string; value: string }[] } | null = null;
  let featureTag: string | null = null;
  let nameParts: string[] | null = null;
  return {
    open(name, attrs, path) {
      if (name === 'FeatureType' && path.at(-2) === 'FeatureTypeValues') featureTypeId = attrs.ID ?? null;
      else if (name === 'DistinctParty') party = { name: null, values: [] };
      else if (!party) return;
      else if (name === 'Alias' && attrs.Primary === 'true' && party.name === null) nameParts = [];
      else if (name === 'Feature') featureTag = featureTypes.get(attrs.FeatureTypeID ?? '') ?? null;
    },
    wantsText: (path) => {
      const name = path.at(-1);
      return (
        name === 'FeatureType' || name === 'NamePartValue' || name === 'VersionDetail' || path.at(-2) === 'DateOfIssue'
      );
    },
    close(name, text, path) {
      if (name === 'FeatureType' && featureTypeId !== null) {
        const type = clean(text);
        if (type.startsWith(ID_PREFIX)) featureTypes.set(detach(featureTypeId), detach(type.slice(ID_PREFIX.length)));
        featureTypeId = null;
      } else if (path.at(-2) === 'DateOfIssue' && ['Year', 'Month', 'Day'].includes(name))
        date[name] = Number(clean(text));
      else if (name === 'NamePartValue' && nameParts) nameParts.push(clean(text));
      else if ((name === 'DocumentedName' || name === 'Alias') && nameParts && party) {
        if (nameParts.length > 0) party.name = nameParts.join(' ');
        nameParts = null;
      } else if (name === 'VersionDetail' && featureTag !== null && party)
        party.values.push({ tag: featureTag, value: text });
      else if (name === 'Feature') featureTag = null;
      else if (name === 'DistinctParty' && party) {
        for (const { tag, value } of party.values) addresses.add(value, tag, party.name);
        party = null;
      }
    },
    finish() {
      const day = utcDay(date.Year ?? NaN, date.Month ?? NaN, date.Day ?? NaN);
      if (!day) return err('no valid DateOfIssue in the file');
      if (featureTypes.size === 0) return err(`no FeatureType named "${ID_PREFIX}…" in the file`);
      return ok({ publishedAt: day });
    },
  };
}

const READERS: Record<string, { format: OfacXmlFormat; reader: (a: AddressCollector) => FormatReader }> = {
  sdnList: { format: 'sdn', reader: sdnReader },
  Sanctions: { format: 'sdn_advanced', reader: advancedReader },
};

/**
 * Reads OFAC's `sdn.xml` or `sdn_advanced.xml` as a stream of chunks (never the whole file in memory):
 * every TRON-format address (valid base58check, 0x41) of every `Digital Currency Address - *` id,
 * whatever its currency tag, with the tag and the entry's name. Malformed XML (a truncated download
 * included), another root element, a missing publish date or more than `maxAddresses` addresses is an
 * error, never an empty or partial list.
 */
export async function parseOfacXml(
  chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  limits: OfacParseLimits,
): Promise<Result<ParsedOfacList, string>> {
  const addresses = new AddressCollector(limits.maxAddresses);
  const parser = new SaxesParser({ position: false, xmlns: false });
  const path: string[] = [];
  let format: OfacXmlFormat | null = null;
  let reader: FormatReader | null = null;
  let text: string | null = null;
  let failure: string | null = null;

  // A document found wrong stops the reading: the handlers do nothing more and the loop below ends.
  parser.on('opentag', (tag: SaxesTagPlain) => {
    if (failure !== null) return;
    const name = localName(tag.name);
    path.push(name);
    if (path.length > MAX_DEPTH) return void (failure = `elements nested deeper than ${MAX_DEPTH}`);
    if (path.length === 1) {
      const known = READERS[name];
      if (!known)
        return void (failure = `not an OFAC SDN file: root element <${name}>, expected <sdnList> or <Sanctions>`);
      format = known.format;
      reader = known.reader(addresses);
    }
    reader!.open(name, tag.attributes as Record<string, string>, path);
    text = reader!.wantsText(path) ? '' : null;
  });
  const onText = (t: string) => {
    if (text !== null && text.length < MAX_TEXT) text += t.slice(0, MAX_TEXT - text.length);
  };
  parser.on('text', onText);
  parser.on('cdata', onText);
  parser.on('closetag', (tag) => {
    if (failure !== null) return;
    reader?.close(localName(tag.name), text ?? '', path);
    path.pop();
    text = null;
  });

  // Read `failure` after the feed: its handlers may have set it meanwhile.
  const thrown = await feed(parser, chunks, () => addresses.overflow || failure !== null);
  failure ??= thrown;
  if (failure !== null) return err(`malformed XML: ${failure}`);
  if (addresses.overflow) return err(`more than ${limits.maxAddresses} TRON addresses: not a list we can trust`);
  // A document that closed without an error had a root element, so a reader.
  return (reader as unknown as FormatReader).finish().map(({ publishedAt }) => ({
    format: format!,
    publishedAt,
    entries: [...addresses.entries.values()].sort((a, b) =>
      a.address < b.address ? -1 : a.address > b.address ? 1 : 0,
    ),
    rejected: addresses.rejected,
  }));
}

/**
 * Writes the chunks to the parser as UTF-8 text, and closes it at the end unless `stop()` said so
 * first. The document's errors (saxes's, the fatal decoder's) come back as a reason; a bug is thrown on.
 */
async function feed(
  parser: SaxesParser,
  chunks: AsyncIterable<Uint8Array | string> | Iterable<Uint8Array | string>,
  stop: () => boolean,
): Promise<string | null> {
  const decoder = new TextDecoder('utf-8', { fatal: true });
  try {
    for await (const chunk of chunks) {
      parser.write(typeof chunk === 'string' ? chunk : decoder.decode(chunk, { stream: true }));
      if (stop()) return null;
    }
    parser.write(decoder.decode()).close();
    return null;
  } catch (cause) {
    rethrowProgrammerError(cause);
    return cause instanceof TypeError ? 'not UTF-8 text' : (cause as Error).message.split('\n')[0]!;
  }
}
