import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { mergeEntries, parseAddressList } from '../../../scripts/sanctions/address-lists.js';
import { renderOfacModule } from '../../../scripts/sanctions/render.js';
import { OFAC_TRON_AS_OF, OFAC_TRON_PROVENANCE } from '../src/risk/data/ofac-tron.js';
import { parseOfacXml } from '../src/risk/ofac/sdn-xml.js';
import { fixturePath } from '../src/testing/fixtures.js';

const sample = readFileSync(new URL('../../../scripts/sanctions/sample-sdn-advanced.xml', import.meta.url), 'utf8');

describe('the generator reads sdn_advanced.xml with the refresh parser (scripts/sanctions)', () => {
  const parse = (xml: string) => parseOfacXml([xml], { maxAddresses: 1000 });

  test('the sample: TRON addresses of every Digital Currency Address tag, primary names, date of issue', async () => {
    const list = (await parse(sample))._unsafeUnwrap();
    assert.equal(list.format, 'sdn_advanced');
    assert.equal(list.publishedAt.toISOString(), '2025-11-26T00:00:00.000Z');
    assert.deepEqual(list.entries, [
      { address: 'TA3941uFAvmVibSkQ6fMJXxmaSNovX86mz', tag: 'USDT', name: 'CHEIL CREDIT BANK' },
      { address: 'TAYhjpL8pPs8T84FSM329nffQpc6jD8GBM', tag: 'TRX', name: 'Grinex' },
      { address: 'TBcLqqqyZjNj1ptuXFgj5H768NhNU5nDyn', tag: 'TRX', name: 'Sokolovski Rolan' },
      { address: 'TC8axQvzJEVR3NKN6mZnJtGy7537GEmh38', tag: 'TRX', name: 'Grinex' },
    ]);
    assert.deepEqual(list.rejected, ['TA3941uFAvmVibSkQ6fMJXxmaSNovX86mZ'], 'a TRON-shaped value failing the checksum');
  });

  test('a TRON address OFAC files under another tag (XBT) is taken, with that tag', async () => {
    const xbt = sample.replace('12QtD5BFwRsdNsAZY76UVE1xyCGNTojH9h', 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8');
    const entry = (await parse(xbt))
      ._unsafeUnwrap()
      .entries.find((e) => e.address === 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8');
    assert.deepEqual(entry, {
      address: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8',
      tag: 'XBT',
      name: 'Bitcoin & Only Holder',
    });
  });

  test('broken or foreign input is an error, not an empty list', async () => {
    assert.match((await parse(sample.replace('</DistinctParties>', '')))._unsafeUnwrapErr(), /malformed XML/);
    assert.match(
      (await parse(sample.replace(/<DateOfIssue>[\s\S]*?<\/DateOfIssue>/, '')))._unsafeUnwrapErr(),
      /DateOfIssue/,
    );
    assert.match(
      (await parse(sample.replaceAll('Digital Currency Address - ', 'Other - ')))._unsafeUnwrapErr(),
      /no FeatureType/,
    );
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
