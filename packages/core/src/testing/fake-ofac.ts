import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { OFAC_TRON_AS_OF, OFAC_TRON_ENTRIES } from '../risk/data/ofac-tron.js';
import { screeningList } from '../risk/ofac/list-in-use.js';
import type { SanctionsList } from '../risk/sanctions-list.js';

/**
 * OFAC's SDN list for tests, the benchmark and the offline demo: `sdn.xml` and `sdn_advanced.xml` bodies
 * rendered the way OFAC publishes them (same roots, namespaces, element names and date formats, trimmed to
 * the parts a reader of digital currency addresses sees), and a fake download server on 127.0.0.1 with
 * ETag / Last-Modified, a redirect like treasury.gov's, and faults.
 */

export interface FakeSdnId {
  /** `Digital Currency Address - XBT`, `Passport`, … */
  type: string;
  number: string;
}

export interface FakeSdnEntry {
  uid: number;
  /** Individuals have a first name; entities only a last name (OFAC's convention). */
  firstName?: string;
  lastName: string;
  sdnType?: 'Entity' | 'Individual';
  ids: FakeSdnId[];
}

export interface FakeSdnList {
  /** The publish date (a day; OFAC publishes `MM/DD/YYYY` or Year/Month/Day). */
  published: Date;
  entries: FakeSdnEntry[];
}

const xml = (text: string) =>
  text.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
const pad = (n: number) => String(n).padStart(2, '0');

/** One `sdnEntry` (exported so the benchmark can stream a large file entry by entry). */
export function renderSdnEntry(entry: FakeSdnEntry): string {
  const ids = entry.ids
    .map(
      (id, i) =>
        `      <id>\n        <uid>${entry.uid * 100 + i}</uid>\n        <idType>${xml(id.type)}</idType>\n        <idNumber>${xml(id.number)}</idNumber>\n      </id>\n`,
    )
    .join('');
  return (
    `  <sdnEntry>\n    <uid>${entry.uid}</uid>\n` +
    (entry.firstName ? `    <firstName>${xml(entry.firstName)}</firstName>\n` : '') +
    `    <lastName>${xml(entry.lastName)}</lastName>\n    <sdnType>${entry.sdnType ?? 'Entity'}</sdnType>\n` +
    `    <programList>\n      <program>CYBER2</program>\n    </programList>\n` +
    (ids ? `    <idList>\n${ids}    </idList>\n` : '') +
    `    <akaList>\n      <aka>\n        <uid>${entry.uid * 100 + 99}</uid>\n        <type>a.k.a.</type>\n        <category>strong</category>\n        <lastName>${xml(entry.lastName)} ALIAS</lastName>\n      </aka>\n    </akaList>\n` +
    `  </sdnEntry>\n`
  );
}

export function renderSdnHead(published: Date, count: number): string {
  const date = `${pad(published.getUTCMonth() + 1)}/${pad(published.getUTCDate())}/${published.getUTCFullYear()}`;
  return (
    `<?xml version="1.0" standalone="yes"?>\n` +
    `<sdnList xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/XML">\n` +
    `  <publshInformation>\n    <Publish_Date>${date}</Publish_Date>\n    <Record_Count>${count}</Record_Count>\n  </publshInformation>\n`
  );
}

export const SDN_TAIL = '</sdnList>\n';

/** `sdn.xml`: root `sdnList`, `publshInformation/Publish_Date` (MM/DD/YYYY), `sdnEntry` with `idList/id`. */
export function renderSdnXml(list: FakeSdnList): string {
  return renderSdnHead(list.published, list.entries.length) + list.entries.map(renderSdnEntry).join('') + SDN_TAIL;
}

/**
 * `sdn_advanced.xml`: root `Sanctions`, `DateOfIssue`, the `FeatureType` reference values, then each
 * `DistinctParty` with its primary alias's documented name and one `Feature` per id.
 */
export function renderSdnAdvancedXml(list: FakeSdnList): string {
  const types = [...new Set(list.entries.flatMap((e) => e.ids.map((id) => id.type)))];
  const typeId = (type: string) => 1000 + types.indexOf(type);
  const parties = list.entries.map((entry) => {
    const parts = [entry.firstName, entry.lastName].filter((p): p is string => !!p);
    const names = parts
      .map(
        (part, i) =>
          `                <DocumentedNamePart>\n                  <NamePartValue NamePartGroupID="${i + 1}" ScriptID="215" ScriptStatusID="1" Acronym="false">${xml(part)}</NamePartValue>\n                </DocumentedNamePart>\n`,
      )
      .join('');
    const features = entry.ids
      .map(
        (id, i) =>
          `        <Feature ID="${entry.uid * 100 + i}" FeatureTypeID="${typeId(id.type)}">\n          <FeatureVersion ID="${entry.uid * 100 + i}" ReliabilityID="1">\n            <Comment />\n            <VersionDetail DetailTypeID="1432">${xml(id.number)}</VersionDetail>\n          </FeatureVersion>\n          <IdentityReference IdentityID="${entry.uid}" IdentityFeatureLinkTypeID="1" />\n        </Feature>\n`,
      )
      .join('');
    return (
      `    <DistinctParty FixedRef="${entry.uid}">\n      <Comment />\n      <Profile ID="${entry.uid}" PartySubTypeID="${entry.firstName ? 4 : 3}">\n` +
      `        <Identity ID="${entry.uid}" FixedRef="${entry.uid}" Primary="true" False="false">\n` +
      `          <Alias FixedRef="${entry.uid}" AliasTypeID="1403" Primary="true" LowQuality="false">\n` +
      `            <DocumentedName ID="${entry.uid}" FixedRef="${entry.uid}" DocNameStatusID="1">\n${names}            </DocumentedName>\n` +
      `          </Alias>\n        </Identity>\n${features}      </Profile>\n    </DistinctParty>\n`
    );
  });
  const featureTypes = types
    .map((type) => `      <FeatureType ID="${typeId(type)}" FeatureTypeGroupID="1">${xml(type)}</FeatureType>\n`)
    .join('');
  const d = list.published;
  return (
    `<?xml version="1.0" encoding="utf-8"?>\n` +
    `<Sanctions xmlns:xsi="http://www.w3.org/2001/XMLSchema-instance" xmlns="https://sanctionslistservice.ofac.treas.gov/api/PublicationPreview/exports/ADVANCED_XML">\n` +
    `  <DateOfIssue>\n    <Year>${d.getUTCFullYear()}</Year>\n    <Month>${d.getUTCMonth() + 1}</Month>\n    <Day>${d.getUTCDate()}</Day>\n  </DateOfIssue>\n` +
    `  <ReferenceValueSets>\n    <FeatureTypeValues>\n${featureTypes}      <FeatureType ID="25" FeatureTypeGroupID="2">Birthdate</FeatureType>\n    </FeatureTypeValues>\n  </ReferenceValueSets>\n` +
    `  <DistinctParties>\n${parties.join('')}  </DistinctParties>\n</Sanctions>\n`
  );
}

/**
 * The bundled snapshot's TRON addresses as SDN entries (one per address, under its own tag and name), so a
 * fake OFAC list holds at least what the snapshot holds; add entries to it for what a refresh adds.
 */
export function bundledSdnEntries(): FakeSdnEntry[] {
  return OFAC_TRON_ENTRIES.map(([address, tag, name], i) => ({
    uid: 50_000 + i,
    lastName: name ?? `SDN ENTRY ${i}`,
    ids: [{ type: `Digital Currency Address - ${tag}`, number: address }],
  }));
}

/** The bundled snapshot as if a refresh had just confirmed it current (at `at`): for tests that need a current list. */
export function currentOfacList(at: Date = new Date()): SanctionsList {
  return screeningList(
    OFAC_TRON_ENTRIES.map(([address, tag, name]) => ({ address, tag, name })),
    at,
  );
}

/** A clock a day after the bundled snapshot's date: the snapshot is current for a list screener using it. */
export const BUNDLED_LIST_CURRENT = { now: () => new Date(OFAC_TRON_AS_OF).getTime() + 86_400_000 };

export type FakeOfacFault =
  /** Answer with this status. */
  | { kind: 'status'; status: number }
  /** 200 with bytes that are not XML. */
  | { kind: 'garbage' }
  /** 200 with only the first `bytes` of the body (declared as the whole: the transfer itself looks fine). */
  | { kind: 'truncated'; bytes: number }
  /** Never answer (until `close()`). */
  | { kind: 'hang' };

export interface FakeOfac {
  /** `…/ofac/downloads/sdn.xml`: redirects (302) to `…/exports/SDN.XML`, as treasury.gov does. */
  url: string;
  /** `…/exports/SDN_ADVANCED.XML`, served directly. */
  advancedUrl: string;
  /** Replaces what both URLs serve (a new publication: new ETags and Last-Modified dates, each URL its own). */
  publish(list: FakeSdnList): void;
  setFault(fault: FakeOfacFault | null): void;
  /** Every request: path, and the conditional headers received. */
  requests: { path: string; ifNoneMatch: string | null; ifModifiedSince: string | null; status: number }[];
  close(): Promise<void>;
}

/** A fake OFAC download server on 127.0.0.1; conditional requests get 304 while the publication is unchanged. */
export async function startFakeOfac(initial: FakeSdnList): Promise<FakeOfac> {
  let version = 0;
  type Served = { body: string; etag: string; lastModified: string };
  let files = new Map<string, Served>();
  let fault: FakeOfacFault | null = null;
  const requests: FakeOfac['requests'] = [];
  const publish = (list: FakeSdnList) => {
    version++;
    // Two files, each with its own validators (as two servers' would differ): a validator sent to the other
    // URL must not get a 304.
    const modified = (second: number) => new Date(list.published.getTime() + (version * 2 + second) * 1000);
    files = new Map([
      [
        '/exports/SDN.XML',
        { body: renderSdnXml(list), etag: `"sdn-${version}"`, lastModified: modified(0).toUTCString() },
      ],
      [
        '/exports/SDN_ADVANCED.XML',
        {
          body: renderSdnAdvancedXml(list),
          etag: `"sdn-advanced-${version}"`,
          lastModified: modified(1).toUTCString(),
        },
      ],
    ]);
  };
  publish(initial);

  const handle = (req: IncomingMessage, res: ServerResponse) => {
    const path = (req.url ?? '').split('?')[0] ?? '';
    const header = (name: string) => (typeof req.headers[name] === 'string' ? (req.headers[name] as string) : null);
    const log = (status: number) =>
      requests.push({
        path,
        ifNoneMatch: header('if-none-match'),
        ifModifiedSince: header('if-modified-since'),
        status,
      });
    if (path === '/ofac/downloads/sdn.xml') {
      log(302);
      res.writeHead(302, { location: '/exports/SDN.XML' });
      return void res.end();
    }
    const file = files.get(path);
    if (file === undefined) {
      log(404);
      res.writeHead(404);
      return void res.end();
    }
    if (fault?.kind === 'hang') return log(0);
    if (fault?.kind === 'status') {
      log(fault.status);
      res.writeHead(fault.status);
      return void res.end();
    }
    const fresh = header('if-none-match') === file.etag || header('if-modified-since') === file.lastModified;
    if (fresh && fault === null) {
      log(304);
      res.writeHead(304, { etag: file.etag });
      return void res.end();
    }
    log(200);
    const whole = Buffer.from(
      fault?.kind === 'garbage' ? '\u0000\u0001 this is no XML {"error":"maintenance"}' : file.body,
    );
    const bytes = fault?.kind === 'truncated' ? whole.subarray(0, fault.bytes) : whole;
    res.writeHead(200, {
      'content-type': 'application/xml',
      'content-length': String(bytes.length),
      etag: file.etag,
      'last-modified': file.lastModified,
    });
    res.end(bytes);
  };

  const server = createServer(handle);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url: `${base}/ofac/downloads/sdn.xml`,
    advancedUrl: `${base}/exports/SDN_ADVANCED.XML`,
    publish,
    setFault: (f) => void (fault = f),
    requests,
    close: async () => {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
