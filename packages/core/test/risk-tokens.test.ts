import assert from 'node:assert/strict';
import fc from 'fast-check';
import { mkdtempSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { describe, test } from 'node:test';
import { createRiskProviders, riskConfigFromEnv } from '../src/risk/providers.js';
import { OFFICIAL_TRON_TOKENS } from '../src/risk/data/official-tokens.js';
import { skeleton } from '../src/risk/impersonation.js';
import {
  createTokenAuthenticityProvider,
  createTokenRegistry,
  loadTokenRegistryFile,
  type TokenRegistry,
} from '../src/risk/token-registry.js';
import type { AssetRef, TokenRef } from '../src/risk/signals.js';
import { isTronAddress } from '../src/tron/address.js';
import { ADDR, check, codes, facts, signals, usdt } from './assessment-support.js';

const registry: TokenRegistry = createTokenRegistry()._unsafeUnwrap();
const provider = createTokenAuthenticityProvider(registry);
const ctx = { signal: new AbortController().signal };
const OTHER = 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv8';
const USDT = 'TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t';
const SECOND = 'TBHTJqAy4DhHhmT3dNceJYNRz4SdLofLre';

async function verdict(token: TokenRef): Promise<string> {
  const before = Date.now();
  const answer = await provider.assess(token, ctx);
  assert.equal(answer.status, 'answered');
  const asOf = (answer as { asOf: Date }).asOf.getTime();
  assert.ok(asOf >= before && asOf <= Date.now(), 'a verdict is as of when it is given, not the registry date');
  return (answer as { authenticity: string }).authenticity;
}
const trc20 = (contract: string, symbol: string | null, name: string | null = null): TokenRef => ({
  asset: { kind: 'trc20', contract },
  symbol,
  name,
});

describe('official tokens', () => {
  test('every registry entry (TRX native included) is official, with a valid contract and its decimals', async () => {
    assert.equal(OFFICIAL_TRON_TOKENS.length, 19);
    for (const token of registry.tokens) {
      if (token.asset.kind === 'trc20') assert.ok(isTronAddress(token.asset.contract), token.symbol);
      assert.equal(
        await verdict({ asset: token.asset, symbol: token.symbol, name: token.name }),
        'official',
        token.symbol,
      );
    }
    assert.equal(registry.find({ kind: 'trc20', contract: USDT })?.decimals, 6);
    assert.equal(registry.find({ kind: 'trc20', contract: 'TXDk8mbtRbXeYuMNS83CfKPaYYT8XWv9Hz' })?.decimals, 18);
    assert.equal(await verdict({ asset: { kind: 'trx' }, symbol: 'TRX', name: null }), 'official');
  });

  test('the official contract stays official whatever its metadata says (or when unreadable)', async () => {
    assert.equal(await verdict(trc20(USDT, 'USDT', 'Tether USD')), 'official');
    assert.equal(await verdict(trc20(USDT, null, null)), 'official');
    assert.equal(await verdict(trc20(USDT, 'USDТ')), 'official');
  });

  test('the original BTT, TRC10 1002000, is official; its symbol on another TRC10 id or contract is fake', async () => {
    const btt10 = { kind: 'trc10', tokenId: '1002000' } as const;
    assert.equal(await verdict({ asset: btt10, symbol: 'BTT', name: 'BitTorrent' }), 'official');
    assert.equal(await verdict({ asset: btt10, symbol: 'BTTOLD', name: 'BitTorrent Old' }), 'official');
    assert.equal(registry.find(btt10)?.decimals, 6);
    assert.equal(
      await verdict({ asset: { kind: 'trc10', tokenId: '1002001' }, symbol: 'BTT', name: 'BitTorrent' }),
      'fake',
    );
    assert.equal(await verdict(trc20(OTHER, 'BTTOLD', 'BitTorrent Old')), 'fake');
  });

  test('A registry token is never judged fake: WBTT, the original SUN and BUSD on TRON at their contracts, whatever their metadata', async () => {
    const cases: [string, string, string][] = [
      ['TKfjV9RNKJJCqPvBtK8L7Knykh7DNWvnYt', 'WBTT', 'Wrapped BitTorrent'],
      ['TKkeiboTkxXKJpbmVFbv4a8ov5rAfRDMf9', 'SUN', 'SUN'], // its symbol and name before the redenomination
      ['TKkeiboTkxXKJpbmVFbv4a8ov5rAfRDMf9', 'SUNOLD', 'SUNOLD'],
      ['TMz2SWatiAtZVVcH2ebpsbVtYwUPT9EdjH', 'BUSD', 'BUSD Token'],
      ['TXpw8XeWYeTUd4quDskoUqeQPowRh4jY65', 'WBTC', 'Wrapped BTC'],
    ];
    for (const [contract, symbol, name] of cases)
      assert.equal(await verdict(trc20(contract, symbol, name)), 'official', `${symbol} at ${contract}`);
    // Every registry token, carrying the symbol and name of any other registry token, stays official.
    for (const token of registry.tokens)
      for (const other of registry.tokens)
        assert.equal(await verdict({ asset: token.asset, symbol: other.symbol, name: other.name }), 'official');
    // Their marks are protected elsewhere.
    assert.equal(await verdict(trc20(OTHER, 'WBTT', null)), 'fake');
    assert.equal(registry.find({ kind: 'trc20', contract: 'TKfjV9RNKJJCqPvBtK8L7Knykh7DNWvnYt' })?.decimals, 6);
  });

  test('the contracts public code gets wrong are not official', async () => {
    // Passes base58check but is not USDC's contract (risk-data.md §3).
    assert.equal(await verdict(trc20('TLZSucJRjnqBKwvQz6n5hd29gbS4P7u7w8', 'USDC', 'USD Coin')), 'fake');
  });
});

describe('impersonations are fake', () => {
  const impostors: [string | null, string | null][] = [
    ['USDT', null], // the same symbol on another contract
    ['usdt', null], // case
    ['UsDt', 'Tether USD'],
    ['USDТ', null], // Cyrillic Т
    ['UЅDT', null], // Cyrillic Ѕ
    ['ՍSDT', null], // Armenian Ս
    ['USDΤ', null], // Greek Τ
    ['ＵＳＤＴ', null], // full-width
    ['USD₮', null], // tugrik sign
    ['U S D T', null], // spacing
    ['U\u200BSDT', null], // zero-width space
    ['USDT.e', null], // bridge suffix
    ['USDT-TRC20', null],
    ['TRC20-USDT', null],
    ['USDT0', null],
    ['U$DT', null],
    ['USDC.e', null],
    ['ᴜꜱᴅᴄ', null], // small capitals
    [null, 'Tether USD'], // name only
    ['TUSDT', 'Теther USD'], // Cyrillic е in the name
    ['SUN', 'SUN'],
    ['WIN.e', null],
    ['wlN', null], // l for I
    ['BTT', 'BitTorrent'],
    ['JST', null],
    ['TRX', 'TRON'],
    ['WTRX', null],
    ['USDD', 'Decentralized USD'],
    ['USDJ', null],
    ['TUSD', null],
    ['SUN Token', null],
    ['XYZ', 'BitTorrent (TRON)'],
    ['AIRDROP', 'USDT TRC20 voucher'],
    ['ꓴSDT', null], // Lisu ꓴ (in the table)
    ['ꓴꓢꓓꓔ', null], // all Lisu
    ['Uꮪꭰꭲ', null], // Cherokee small letters
    // Letters outside the look-alike table stand in for one character of an official mark.
    ['ႮSDT', null], // Georgian Ⴎ
    ['ƲSDT', null], // Latin V with hook
    ['Ʉ SDT', null], // Latin U bar, spaced
    ['USᎧT', null], // Cherokee Ꭷ inside
    ['ΣUN', null], // Greek Σ for S (in the table)
    [null, 'Tetheɽ USD'], // a name
    // Characters that render as nothing are dropped, the Hangul fillers (letters) included.
    ['U\u115FS\u115FD\u115FT', null], // choseong filler
    ['U\u3164S\u3164D\u3164C', null], // compatibility filler
    ['SU\uFFA0N', null], // half-width filler
    ['B\u1160TT', 'Bit\u115FTorrent'], // jungseong filler
    [null, 'Teth\u3164er USD'],
    ['US\uFE0FDT', null], // a variation selector
    // Bidi controls: judged as displayed too.
    ['\u202ETDSU', null], // a right-to-left override shows USDT
    ['US\u202ETD\u202C', null], // an override inside
    ['\u2067\u202ENUS\u2069', null], // inside an isolate
    [null, '\u202EDSU rehteT'],
    // Control characters as the decoder shows them (U+FFFD): what is left is judged.
    ['USDT\uFFFD', null],
    ['SUN\uFFFD', null],
    ['US\uFFFDDT', 'Tether USD\uFFFD'],
  ];
  for (const [symbol, name] of impostors) {
    test(`${JSON.stringify(symbol)} / ${JSON.stringify(name)} on another contract → fake`, async () => {
      assert.equal(await verdict(trc20(OTHER, symbol, name)), 'fake');
    });
  }

  test('the look-alike table maps Lisu and Cherokee letters to Latin; an unmapped letter leaves no trace in the skeleton', () => {
    assert.equal(skeleton('ꓴꓢꓓꓔ'), 'USDT');
    assert.equal(skeleton('ꮪᏌꓠ'), 'SN', 'Cherokee SA is no Latin letter');
    assert.equal(skeleton('Uꮪꭰꭲ'), 'USDT');
    assert.equal(skeleton('ႮSDT'), 'SDT');
  });

  test('Token authenticity: an impostor spelled with invisible letters is TOKEN_FAKE and HIGH_RISK, not TOKEN_UNKNOWN', async () => {
    const [symbol, name] = ['U\u115FS\u115FD\u115FT', 'Teth\u3164er USD'];
    const token = await provider.assess({ asset: { kind: 'trc20', contract: ADDR.fakeUsdt }, symbol, name }, ctx);
    const paid = usdt(0, ADDR.alice, ADDR.bob, 1n, {
      tokenContract: ADDR.fakeUsdt,
      tokenSymbol: symbol,
      tokenName: name,
    });
    const response = check({ facts: facts({ transfers: [paid] }), signals: signals({ token }) });
    assert.deepEqual([response.overall_state, response.token_authenticity], ['HIGH_RISK', 'fake']);
    assert.ok(codes(response).includes('TOKEN_FAKE'), codes(response).join());
  });

  test('TRC10 tokens imitating official ones are fake too', async () => {
    assert.equal(
      await verdict({ asset: { kind: 'trc10', tokenId: '1000001' }, symbol: 'USDT', name: 'Tether' }),
      'fake',
    );
  });
});

describe('other tokens are unknown', () => {
  const plain: [string | null, string | null][] = [
    ['PEPE', 'Pepe'],
    ['SUNDOG', 'Sundog'],
    ['WINNER', 'Winner Coin'],
    ['JUSTICE', 'Justice'],
    ['BTTC', null], // not a tag the rule knows: limits documented
    ['USD1', 'World Liberty Financial USD'],
    ['USTD', null], // a misspelling: outside the rule (documented limit)
    [null, null], // metadata unreadable
    ['', '   '], // nothing readable
    ['代币', '代币'],
    // One unmapped letter is not enough on its own: the rest of a 4+ character mark must match.
    ['ႮΣN', null],
    ['Ʉ', 'ႮΣD'],
    ['ႮƩDT', null], // two unmapped letters: beyond a near-match (documented limit)
    ['ΨSUNFLOWER', null], // a short mark does not match inside a word
    // A 3-character mark gets no wildcard: one foreign letter beside two of its own is chance (audit false positives).
    ['太UN', null],
    ['ẞUN', null],
    ['T币X', null],
    ['WIЖ', null],
    ['\u3164', '\u115F\u1160'], // fillers alone: nothing readable
    ['\u202EEPEP', 'Pepe'], // a reversed reading that imitates nothing
  ];
  for (const [symbol, name] of plain) {
    test(`${JSON.stringify(symbol)} / ${JSON.stringify(name)} → unknown`, async () => {
      assert.equal(await verdict(trc20(OTHER, symbol, name)), 'unknown');
    });
  }
});

describe('registry extension by configuration', () => {
  const jusdt = { symbol: 'jUSDT', name: 'JustLend USDT', contract: 'TXJgMdjVX5dKiQaUi9QobwNxtSQaFqccvd', decimals: 8 };

  test('an added token is official at its contract, and imitations of it are fake', async () => {
    const extended = createTokenRegistry([
      jusdt,
      { symbol: 'ACME', name: 'Acme Pay', contract: OTHER, decimals: 6 },
    ])._unsafeUnwrap();
    const p = createTokenAuthenticityProvider(extended);
    const asset: AssetRef = { kind: 'trc20', contract: jusdt.contract };
    const { asOf, ...answer } = (await p.assess({ asset, symbol: 'jUSDT', name: null }, ctx)) as { asOf: Date };
    assert.deepEqual(answer, { status: 'answered', authenticity: 'official', officialDecimals: 8 });
    assert.ok(asOf instanceof Date);
    const copy = await p.assess(trc20('TBHTJqAy4DhHhmT3dNceJYNRz4SdLofLre', 'ACME', null), ctx);
    assert.equal((copy as { authenticity: string }).authenticity, 'fake');
  });

  test('invalid entries are rejected at load', () => {
    assert.match(
      createTokenRegistry([{ ...jusdt, contract: 'TXJgMdjVX5dKiQaUi9QobwNxtSQaFqccvD' }])._unsafeUnwrapErr(),
      /not a valid TRON address/,
    );
    assert.match(createTokenRegistry([{ ...jusdt, decimals: 1.5 }])._unsafeUnwrapErr(), /decimals/);
    assert.match(
      createTokenRegistry([{ symbol: 'X', name: 'X', decimals: 6 }])._unsafeUnwrapErr(),
      /contract or a tokenId/,
    );
    assert.match(createTokenRegistry([{ ...jusdt, tokenId: '1002000' }])._unsafeUnwrapErr(), /not both/);
  });

  test('an extra token contradicting the bundled registry or an earlier one is refused; a restatement stays one token', async () => {
    assert.match(
      createTokenRegistry([{ symbol: 'BTT', name: 'BitTorrent', tokenId: '1002000', decimals: 18 }])._unsafeUnwrapErr(),
      /^extra token 0 \("BTT" at TRC10 1002000\): 18 decimals, but the bundled registry pins 6$/,
    );
    assert.match(
      createTokenRegistry([jusdt, { ...jusdt, symbol: 'JUSDT' }])._unsafeUnwrapErr(),
      /^extra token 1 .*symbol "JUSDT", but extra token 0 pins "jUSDT"$/,
    );
    const acme = { symbol: 'ACME', name: 'Acme Pay', contract: OTHER, decimals: 6 };
    const restated = createTokenRegistry([acme, { ...acme, name: 'Roadrunner Coin' }])._unsafeUnwrap();
    assert.equal(restated.tokens.length, registry.tokens.length + 1, 'one token, however often it is declared');
    const p = createTokenAuthenticityProvider(restated);
    const copy = await p.assess(trc20('TBHTJqAy4DhHhmT3dNceJYNRz4SdLofLre', null, 'Roadrunner Coin'), ctx);
    assert.equal((copy as { authenticity: string }).authenticity, 'fake', "a restatement's name is protected too");
  });
});

describe('impersonation property', () => {
  test('any official symbol disguised by case, look-alikes and separators is fake on another contract', async () => {
    const lookAlike: Record<string, string[]> = {
      A: ['А', 'Α', 'ᴀ'],
      B: ['В', 'Β'],
      C: ['С', 'ᴄ'],
      D: ['ᴅ'],
      E: ['Е', 'Ε'],
      I: ['І', 'Ι', 'l', '1'],
      J: ['Ј'],
      N: ['Ν', 'ɴ'],
      O: ['О', 'Ο', '0'],
      S: ['Ѕ', '$', '5'],
      T: ['Т', 'Τ', '₮'],
      U: ['Ս', 'υ', 'ᴜ'],
      W: ['Ԝ', 'ᴡ'],
      X: ['Х', 'Χ'],
    };
    const symbols = registry.tokens.map((t) => t.symbol);
    const disguised = fc
      .constantFrom(...symbols)
      .chain((symbol) =>
        fc
          .tuple(
            ...[...symbol].map((ch) =>
              fc.tuple(
                fc.constantFrom(
                  ch,
                  ch.toLowerCase(),
                  ...(lookAlike[ch] ?? []),
                  String.fromCharCode(ch.charCodeAt(0) + 0xfee0),
                ),
                fc.constantFrom('', '', ' ', '.', '-', '\u200B'),
              ),
            ),
          )
          .map((parts) => parts.map(([c, sep]) => c + sep).join('')),
      );
    await fc.assert(
      fc.asyncProperty(disguised, async (symbol) => (await verdict(trc20(OTHER, symbol))) === 'fake'),
      { numRuns: 300 },
    );
  });
});

describe('TOKEN_REGISTRY_FILE', () => {
  const dir = mkdtempSync(join(tmpdir(), 'token-registry-'));
  const file = (name: string, body: string) => {
    const path = join(dir, name);
    writeFileSync(path, body);
    return path;
  };
  const acme = { contract: OTHER, symbol: 'ACME', decimals: 6, name: 'Acme Pay' };

  test("a deployment's own tokens are official at their contract; imitations of them are fake", async () => {
    const path = file('ok.json', JSON.stringify([acme]));
    const config = riskConfigFromEnv({ TOKEN_REGISTRY_FILE: path })._unsafeUnwrap();
    assert.equal(config.tokenRegistryFile, path);
    const { tokens } = createRiskProviders(config)._unsafeUnwrap();
    const at = (contract: string, symbol: string) => tokens.assess(trc20(contract, symbol, null), ctx);
    assert.equal(((await at(OTHER, 'ACME')) as { authenticity: string }).authenticity, 'official');
    assert.equal(((await at(USDT, 'USDT')) as { authenticity: string }).authenticity, 'official');
    const copy = await at('TBHTJqAy4DhHhmT3dNceJYNRz4SdLofLre', 'ACME');
    assert.equal((copy as { authenticity: string }).authenticity, 'fake');
  });

  test('a bad file is refused at load with a message naming the variable, the file and the entry', () => {
    const refused = (body: string) => {
      const path = file(`bad-${Math.random()}.json`, body);
      const error = createRiskProviders({ tokenRegistryFile: path })._unsafeUnwrapErr();
      assert.deepEqual([error.option, error.variable], ['tokenRegistryFile', 'TOKEN_REGISTRY_FILE']);
      assert.ok(error.message.startsWith(path), error.message);
      return error.message;
    };
    assert.match(refused('{"contract":'), /cannot read a JSON token registry/);
    assert.match(refused(JSON.stringify(acme)), /must be a JSON array/);
    assert.match(refused(JSON.stringify([{ ...acme, decimals: '6' }])), /entry 0: needs contract/);
    assert.match(refused(JSON.stringify([acme, { ...acme, decimal: 6 }])), /entry 1: unknown field "decimal"/);
    assert.match(
      refused(JSON.stringify([{ ...acme, contract: 'TJRabPrwbZy45sbavfcjinPJC18kjpRTv9' }])),
      /not a valid TRON address/,
    );
    assert.match(loadTokenRegistryFile(join(dir, 'missing.json'))._unsafeUnwrapErr(), /cannot read/);
  });

  test('a file that redeclares a bundled contract with other decimals or another symbol is refused at load, naming the entry', () => {
    const usdt = { contract: USDT, symbol: 'USDT', decimals: 6, name: 'Tether USD' };
    const refused = (entries: object[]) => {
      const path = file(`redeclared-${Math.random()}.json`, JSON.stringify(entries));
      const error = createRiskProviders({ tokenRegistryFile: path })._unsafeUnwrapErr();
      assert.deepEqual([error.option, error.variable], ['tokenRegistryFile', 'TOKEN_REGISTRY_FILE']);
      assert.ok(error.message.startsWith(path), error.message);
      return error.message;
    };
    assert.match(
      refused([acme, { ...usdt, decimals: 18 }]),
      /entry 1 \("USDT" at TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t\): 18 decimals, but the bundled registry pins 6/,
    );
    assert.match(
      refused([{ ...usdt, symbol: 'USDT0' }]),
      /entry 0 .*symbol "USDT0", but the bundled registry pins "USDT"/,
    );
    assert.match(refused([acme, { ...acme, decimals: 2 }]), /entry 1 .*2 decimals, but entry 0 of this file pins 6/);
    // Saying again what the registry says (a deployment's complete list) is no contradiction.
    const same = file('same.json', JSON.stringify([usdt, { ...usdt, name: 'Tether' }, acme]));
    assert.ok(createRiskProviders({ tokenRegistryFile: same }).isOk());
  });

  test('an entry at another contract named as a bundled token, or by tags alone, is refused at load; one containing a bundled mark is accepted with a warning', () => {
    const refused = (entries: object[]) =>
      loadTokenRegistryFile(file(`named-${Math.random()}.json`, JSON.stringify(entries)))._unsafeUnwrapErr();
    assert.match(
      refused([{ ...acme, symbol: 'USDT' }]),
      /: entry 0 \("USDT" at TJRab.*\): symbol "USDT" is the bundled USDT's, which is at TR7NHqjeKQxGTCi8q8ZY4pL8otSzgjLj6t$/,
    );
    assert.match(refused([{ ...acme, name: 'Tether USD' }]), /entry 0 .*name "Tether USD" is the bundled USDT's/);
    assert.match(refused([{ ...acme, symbol: 'ＵＳＤＴ.e' }]), /entry 0 .*is the bundled USDT's/);
    assert.match(refused([acme, { ...acme, contract: SECOND, symbol: 'SUN' }]), /entry 1 .*is the bundled SUN's/);
    assert.match(refused([{ ...acme, name: 'Token' }]), /entry 0 .*name "Token" is only a chain or version tag/);
    assert.match(refused([{ ...acme, symbol: 'NEW', name: 'New Token' }]), /only a chain or version tag/);
    assert.match(
      createTokenRegistry([{ ...acme, symbol: 'USDT' }])._unsafeUnwrapErr(),
      /^extra token 0 .*is the bundled USDT's/,
      'configured extra tokens too',
    );

    const warnings: string[] = [];
    const derivative = { ...acme, contract: SECOND, symbol: 'jUSDT', name: 'JustLend USDT' };
    const path = file('derivative.json', JSON.stringify([acme, derivative]));
    assert.ok(loadTokenRegistryFile(path, { onWarning: (w) => warnings.push(w) }).isOk());
    assert.deepEqual(warnings, [
      `entry 1 ("jUSDT" at ${SECOND}): symbol "jUSDT" contains the bundled USDT's mark: accepted as a derivative, official at this contract only`,
    ]);
  });

  test('an entry giving a field twice is refused at load, naming the entry and the field (JSON keeps only the last)', () => {
    const body = (second: string) => `[${JSON.stringify(acme)}, ${second}]`;
    const load = (text: string) => loadTokenRegistryFile(file(`twice-${Math.random()}.json`, text));
    const twice = `{"contract": "${SECOND}", "symbol": "B", "decimals": 6, "name": "B", "decimals": 0}`;
    assert.match(load(body(twice))._unsafeUnwrapErr(), /: entry 1: field "decimals" is given twice$/);
    const escaped = `{"contract": "${SECOND}", "symbol": "B", "decimals": 6, "name": "B", "dec\\u0069mals": 0}`;
    assert.match(load(body(escaped))._unsafeUnwrapErr(), /entry 1: field "decimals" is given twice/);
    // Keys inside values, and punctuation inside strings, are no keys.
    const tricky = { contract: SECOND, symbol: 'B', decimals: 6, name: 'B "name": {"symbol": 1}, [x]' };
    assert.deepEqual(load(body(JSON.stringify(tricky)))._unsafeUnwrap(), [acme, tricky]);
  });
});

describe("Token authenticity: a deployment's own token is official only while the chain names it as its entry does", () => {
  // An entry at a look-alike's contract (a typo in the file): the registry must not vouch for it.
  const IMPOSTOR = SECOND;
  const acme = { contract: IMPOSTOR, symbol: 'ACME', decimals: 6, name: 'Acme Dollar', aliases: ['Acme'] };
  const own = createTokenAuthenticityProvider(createTokenRegistry([acme])._unsafeUnwrap());
  const answerOf = async (symbol: string | null, name: string | null, contract = IMPOSTOR) => {
    const { asOf: _, ...answer } = (await own.assess(trc20(contract, symbol, name), ctx)) as { asOf: Date };
    return answer;
  };

  test('named as declared (its name, an alias, or no name at all): official, its decimals pinned', async () => {
    for (const name of ['Acme Dollar', 'Acme', null]) {
      assert.deepEqual(await answerOf('ACME', name), {
        status: 'answered',
        authenticity: 'official',
        officialDecimals: 6,
      });
    }
  });

  test('the chain calls it USDT / Tether USD: fake (TOKEN_FAKE, HIGH_RISK), as without the entry', async () => {
    assert.deepEqual(await answerOf('USDT', 'Tether USD'), { status: 'answered', authenticity: 'fake' });
    assert.deepEqual(await answerOf('ACME', 'Tether USD'), { status: 'answered', authenticity: 'fake' });
    const response = check({
      facts: facts({ transfers: [usdt(0, ADDR.alice, ADDR.bob, 5_000_000n, { tokenContract: IMPOSTOR })] }),
      signals: signals({ token: { ...(await answerOf('USDT', 'Tether USD')), asOf: new Date() } as never }),
    });
    assert.deepEqual([response.token_authenticity, response.overall_state], ['fake', 'HIGH_RISK']);
    assert.ok(codes(response).includes('TOKEN_FAKE'), codes(response).join());
  });

  test('another symbol or name: unknown, and the contradiction is TX_FACTS_DISAGREE (LIMITED_DATA, never CLEAR)', async () => {
    assert.deepEqual(await answerOf('ROAD', 'Roadrunner'), {
      status: 'answered',
      authenticity: 'unknown',
      contradiction: `the chain calls the token at ${IMPOSTOR} "ROAD"; the registry says "ACME"`,
    });
    const renamed = await answerOf('ACME', 'Wile Coin');
    assert.deepEqual(renamed, {
      status: 'answered',
      authenticity: 'unknown',
      contradiction: `the chain names the token at ${IMPOSTOR} "Wile Coin"; the registry says "Acme Dollar"`,
    });
    const transfer = usdt(0, ADDR.alice, ADDR.bob, 5_000_000n, {
      tokenContract: IMPOSTOR,
      tokenSymbol: 'ACME',
      tokenName: 'Wile Coin',
    });
    const response = check({
      facts: facts({ transfers: [transfer] }),
      signals: signals({ token: { ...renamed, asOf: new Date() } as never }),
    });
    assert.deepEqual([response.token_authenticity, response.overall_state], ['unknown', 'LIMITED_DATA']);
    assert.ok(codes(response).includes('TX_FACTS_DISAGREE'), codes(response).join());
  });

  test('no symbol from the chain: unknown (nothing vouches for the entry), without a contradiction', async () => {
    assert.deepEqual(await answerOf(null, 'Acme Dollar'), { status: 'answered', authenticity: 'unknown' });
  });

  test('the symbol compared is the one its contract answers (chainSymbol); a bundled token stays official whatever the chain calls it', async () => {
    const listed = createTokenRegistry([{ ...acme, chainSymbol: 'ACME2' }])._unsafeUnwrap();
    const p = createTokenAuthenticityProvider(listed);
    const authenticity = async (symbol: string) =>
      ((await p.assess(trc20(IMPOSTOR, symbol, null), ctx)) as { authenticity: string }).authenticity;
    assert.deepEqual([await authenticity('ACME2'), await authenticity('ACME')], ['official', 'unknown']);
    assert.deepEqual(await answerOf('XYZ', 'Not Tether', USDT), {
      status: 'answered',
      authenticity: 'official',
      officialDecimals: 6,
    });
  });
});
