import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { mergeEntries, parseAddressList } from '../../../scripts/sanctions/address-lists.js';
import { renderOfacModule } from '../../../scripts/sanctions/render.js';
import { parseSdnAdvanced } from '../../../scripts/sanctions/sdn-advanced.js';
import { decodeEntities, scanXml } from '../../../scripts/sanctions/xml-scan.js';
import { OFAC_TRON_AS_OF, OFAC_TRON_PROVENANCE } from '../src/risk/data/ofac-tron.js';
import { fixturePath } from '../src/testing/fixtures.js';

const sample = readFileSync(new URL('../../../scripts/sanctions/sample-sdn-advanced.xml', import.meta.url), 'utf8');

describe('sdn_advanced.xml parser (scripts/sanctions)', () => {
  test('the sample: TRX features and TRON addresses of USDT features, primary names, date of issue', () => {
    const list = parseSdnAdvanced(sample)._unsafeUnwrap();
    assert.equal(list.issued, '2025-11-26');
    assert.deepEqual(list.entries, [
      { address: 'TA3941uFAvmVibSkQ6fMJXxmaSNovX86mz', feature: 'USDT', name: 'CHEIL CREDIT BANK' },
      { address: 'TAYhjpL8pPs8T84FSM329nffQpc6jD8GBM', feature: 'TRX', name: 'Grinex' },
      { address: 'TBcLqqqyZjNj1ptuXFgj5H768NhNU5nDyn', feature: 'TRX', name: 'Sokolovski Rolan' },
      { address: 'TC8axQvzJEVR3NKN6mZnJtGy7537GEmh38', feature: 'TRX', name: 'Grinex' },
    ]);
    assert.deepEqual(
      list.rejected,
      ['TNotAValidTronAddress000000000000', 'TA3941uFAvmVibSkQ6fMJXxmaSNovX86mZ'],
      'bad TRX values and TRON-shaped USDT values failing the checksum are reported',
    );
  });

  test('a USDT value of another chain is skipped silently; a TRON-shaped one failing the checksum is reported', () => {
    const usdt = (value: string) =>
      sample
        .replace('0x175d44451403Edf28469dF03A9280c1197ADb92c', value)
        .replace('TA3941uFAvmVibSkQ6fMJXxmaSNovX86mZ', '0xabc');
    assert.deepEqual(parseSdnAdvanced(usdt('1KFHE7w8BhaENAswwryaoccDb6qcT6DbYY'))._unsafeUnwrap().rejected, [
      'TNotAValidTronAddress000000000000',
    ]);
    assert.deepEqual(parseSdnAdvanced(usdt('TBATDh41qMQ1yeVYecneEvhpfayYmkAQW5'))._unsafeUnwrap().rejected, [
      'TNotAValidTronAddress000000000000',
      'TBATDh41qMQ1yeVYecneEvhpfayYmkAQW5',
    ]);
  });

  test('broken or foreign input is an error, not an empty list', () => {
    assert.match(parseSdnAdvanced(sample.replace('</DistinctParties>', ''))._unsafeUnwrapErr(), /malformed XML/);
    assert.match(
      parseSdnAdvanced(sample.replace(/<DateOfIssue>[\s\S]*?<\/DateOfIssue>/, ''))._unsafeUnwrapErr(),
      /DateOfIssue/,
    );
    assert.match(
      parseSdnAdvanced(sample.replaceAll('Digital Currency Address - ', 'Other - '))._unsafeUnwrapErr(),
      /no FeatureType/,
    );
  });

  test('the scanner: namespaces dropped, entities decoded, self-closing elements closed', () => {
    const events = [...scanXml('<a:x k="1 &amp; 2"><y/>T&#x41;&lt;</a:x>')];
    assert.deepEqual(events, [
      { type: 'open', name: 'x', attrs: { k: '1 & 2' }, selfClosing: false },
      { type: 'open', name: 'y', attrs: {}, selfClosing: true },
      { type: 'close', name: 'y' },
      { type: 'text', text: 'TA<' },
      { type: 'close', name: 'x' },
    ]);
    assert.equal(decodeEntities('&quot;&apos;&#8366;'), `"'₮`);
  });
});

describe('the committed data module', () => {
  test('is exactly what the script renders from the OFAC lists in packages/core/fixtures', () => {
    const read = (file: string, feature: 'TRX' | 'USDT') =>
      parseAddressList(readFileSync(fixturePath('sanctions', file), 'utf8'), feature)._unsafeUnwrap();
    const entries = mergeEntries(
      read('ofac_trx.txt', 'TRX'),
      read('ofac_trx_named_2025-11-27.txt', 'TRX'),
      read('ofac_usdt_named_2025-11-27.txt', 'USDT'),
    );
    const committed = readFileSync(new URL('../src/risk/data/ofac-tron.ts', import.meta.url), 'utf8');
    assert.equal(renderOfacModule(entries, OFAC_TRON_AS_OF, OFAC_TRON_PROVENANCE), committed);
  });

  test('list lines: names from the named files, other chains skipped, bad TRON lines rejected', () => {
    const list = parseAddressList(
      '0xabc;"X"\nTAYhjpL8pPs8T84FSM329nffQpc6jD8GBM;"Grinex;Grineks"\n',
      'USDT',
    )._unsafeUnwrap();
    assert.deepEqual(list, [{ address: 'TAYhjpL8pPs8T84FSM329nffQpc6jD8GBM', feature: 'USDT', name: 'Grinex' }]);
    assert.match(parseAddressList('TAYhjpL8pPs8T84FSM329nffQpc6jD8GBN\n', 'TRX')._unsafeUnwrapErr(), /line 1/);
  });
});
