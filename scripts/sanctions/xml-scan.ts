/**
 * A minimal XML event scanner for OFAC's `sdn_advanced.xml`: machine-written, element-only
 * markup with attributes, the five predefined entities and numeric references. Namespace prefixes
 * are dropped (names are local names). Not a general XML parser: no DTD entities, no validation.
 */
export type XmlEvent =
  | { type: 'open'; name: string; attrs: Record<string, string>; selfClosing: boolean }
  | { type: 'close'; name: string }
  | { type: 'text'; text: string };

const TOKEN =
  /<!--[\s\S]*?-->|<\?[\s\S]*?\?>|<!DOCTYPE[^>]*>|<!\[CDATA\[([\s\S]*?)\]\]>|<(\/?)([A-Za-z_][\w.:-]*)((?:\s+[^\s=/>]+\s*=\s*(?:"[^"]*"|'[^']*'))*)\s*(\/?)>/g;
const ATTR = /([^\s=/>]+)\s*=\s*(?:"([^"]*)"|'([^']*)')/g;
const ENTITY = /&(?:#(\d+)|#x([0-9a-fA-F]+)|(amp|lt|gt|quot|apos));/g;
const NAMED: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

export function decodeEntities(text: string): string {
  return text.replace(ENTITY, (_, dec?: string, hex?: string, name?: string) =>
    name ? (NAMED[name] ?? '') : String.fromCodePoint(dec ? Number(dec) : parseInt(hex ?? '0', 16)),
  );
}

const localName = (name: string): string => name.slice(name.indexOf(':') + 1);

export function* scanXml(xml: string): Generator<XmlEvent> {
  let last = 0;
  for (const m of xml.matchAll(TOKEN)) {
    const index = m.index ?? 0;
    if (index > last) yield { type: 'text', text: decodeEntities(xml.slice(last, index)) };
    last = index + m[0].length;
    if (m[1] !== undefined) yield { type: 'text', text: m[1] };
    else if (m[3] !== undefined) {
      const name = localName(m[3]);
      if (m[2] === '/') yield { type: 'close', name };
      else {
        const attrs: Record<string, string> = {};
        for (const a of (m[4] ?? '').matchAll(ATTR)) attrs[localName(a[1] ?? '')] = decodeEntities(a[2] ?? a[3] ?? '');
        const selfClosing = m[5] === '/';
        yield { type: 'open', name, attrs, selfClosing };
        if (selfClosing) yield { type: 'close', name };
      }
    }
  }
  if (last < xml.length) yield { type: 'text', text: decodeEntities(xml.slice(last)) };
}
