import assert from 'node:assert/strict';
import { readFileSync } from 'node:fs';
import { describe, test } from 'node:test';
import { combineAmlAnswers } from '../src/risk/aml-combine.js';
import { levelFromChainalysis, levelFromPercentScore, levelFromTrm } from '../src/risk/aml-levels.js';
import { createNotConfiguredAmlProvider } from '../src/risk/aml-not-configured.js';
import { amlAnswerFromEntity } from '../src/risk/chainalysis-entity.js';
import type { AmlAnswer } from '../src/risk/signals.js';
import { fixturePath } from '../src/testing/fixtures.js';

describe('vendor scales → our levels (the interface fits TRM and AMLBot as well as Chainalysis)', () => {
  test('Chainalysis risk', () => {
    assert.deepEqual(['Severe', 'High', 'Medium', 'Low'].map(levelFromChainalysis), [
      'severe',
      'high',
      'moderate',
      'low',
    ]);
    assert.equal(levelFromChainalysis('Unknown'), null);
    assert.equal(levelFromChainalysis('severe'), null, 'the vendor capitalizes; anything else is not trusted');
  });

  test('TRM levels by name and by score (Severe 15, High 10, Medium 5, Low 1, Unknown 0)', () => {
    assert.deepEqual(['Severe', 'HIGH', 'medium', 'Low'].map(levelFromTrm), ['severe', 'high', 'moderate', 'low']);
    assert.deepEqual([15, 10, 5, 1].map(levelFromTrm), ['severe', 'high', 'moderate', 'low']);
    assert.equal(levelFromTrm('Unknown'), null);
    assert.equal(levelFromTrm(0), null, 'TRM Unknown is unavailable, never low');
    assert.equal(levelFromTrm(7), null);
  });

  test('AMLBot-style percentage scores: ≥75 severe, ≥50 high, ≥25 moderate, else low; bands tunable', () => {
    assert.deepEqual(
      [100, 75, 74.99, 50, 25, 24.9, 0].map((s) => levelFromPercentScore(s)),
      ['severe', 'severe', 'high', 'high', 'moderate', 'low', 'low'],
    );
    for (const bad of [null, -1, 101, Number.NaN]) assert.equal(levelFromPercentScore(bad), null);
    assert.equal(levelFromPercentScore(60, { severe: 90, high: 70, moderate: 40 }), 'moderate');
  });

  test('the recorded Alfa-bot (AMLBot-style) TRON report maps to severe with its sources of funds as shares', () => {
    const report = JSON.parse(
      readFileSync(fixturePath('vendors/alfabot-wellwallet-aml-report-recheck.json'), 'utf8'),
    ) as {
      data: { aml_score: number; params: { types_of_funding: Record<string, number> } };
    };
    const level = levelFromPercentScore(report.data.aml_score);
    assert.equal(level, 'severe');
    // Shares of funds with no hop count: reported as indirect (hops 2, the least indirect can be).
    const answer: AmlAnswer = {
      status: 'answered',
      level: level!,
      exposures: Object.entries(report.data.params.types_of_funding).map(([category, share]) => ({
        category,
        exposureType: 'indirect',
        hops: 2,
        percent: String(share),
      })),
      asOf: new Date(0),
    };
    assert.ok(
      answer.status === 'answered' &&
        answer.exposures.some((e) => e.category === 'OFSI Sanctions' && e.percent === '5.51'),
    );
  });
});

describe('Chainalysis body edge cases', () => {
  test('Vendor answers complete or unavailable: an assessment that is not COMPLETE, or says no status, is unavailable', () => {
    assert.deepEqual(amlAnswerFromEntity({ risk: 'Low', status: 'IN_PROGRESS' }, new Date(0)), {
      status: 'unavailable',
      reason: 'Chainalysis Entity API: assessment IN_PROGRESS',
    });
    assert.deepEqual(amlAnswerFromEntity({ risk: 'Low' }, new Date(0)), {
      status: 'unavailable',
      reason: 'Chainalysis Entity API: assessment status missing',
    });
    assert.equal(amlAnswerFromEntity({ risk: 'Low', status: 'COMPLETE' }, new Date(0)).status, 'answered');
  });
});

describe('combining counterparties and the not-configured provider', () => {
  const at = (level: 'low' | 'moderate' | 'high' | 'severe', asOf: number, category = 'exchange'): AmlAnswer => ({
    status: 'answered',
    level,
    exposures: [{ category, exposureType: 'direct', hops: 1, percent: '10' }],
    asOf: new Date(asOf),
  });
  const down: AmlAnswer = { status: 'unavailable', reason: 'rate limited (HTTP 429)' };

  test('highest level wins, exposures merged, oldest asOf', () => {
    const combined = combineAmlAnswers([at('low', 2000), at('high', 1000, 'gambling')]);
    assert.deepEqual(combined, {
      status: 'answered',
      level: 'high',
      exposures: [
        { category: 'exchange', exposureType: 'direct', hops: 1, percent: '10' },
        { category: 'gambling', exposureType: 'direct', hops: 1, percent: '10' },
      ],
      asOf: new Date(1000),
    });
  });

  test('a failed counterparty makes low/moderate unavailable, but a high or severe finding stands, incomplete (coverage partial)', () => {
    assert.deepEqual(combineAmlAnswers([at('low', 1), down]), {
      status: 'unavailable',
      reason: 'rate limited (HTTP 429)',
    });
    assert.equal(combineAmlAnswers([at('moderate', 1), down]).status, 'unavailable');
    assert.deepEqual(combineAmlAnswers([down, at('high', 1)]), { ...at('high', 1), incomplete: true });
    assert.deepEqual(combineAmlAnswers([at('low', 2), at('severe', 1)]), {
      ...at('severe', 1),
      exposures: [{ category: 'exchange', exposureType: 'direct', hops: 1, percent: '10' }],
    });
    assert.equal(combineAmlAnswers([down]).status, 'unavailable');
    assert.equal(combineAmlAnswers([]).status, 'unavailable');
  });

  test('an answer neither answered nor unavailable (a provider breaking the type) is a failed lookup, never clean', () => {
    const odd = { status: 'pending', reason: 'still assessing' } as unknown as AmlAnswer;
    assert.deepEqual(combineAmlAnswers([at('low', 1), odd]), { status: 'unavailable', reason: 'still assessing' });
    assert.deepEqual(combineAmlAnswers([odd]), { status: 'unavailable', reason: 'still assessing' });
  });

  test('no AML vendor configured: always unavailable, never low', async () => {
    const p = createNotConfiguredAmlProvider();
    assert.equal(p.supportsAsset({ kind: 'trx' }), true);
    assert.deepEqual(
      await p.assessAddress('TAYhjpL8pPs8T84FSM329nffQpc6jD8GBM', { signal: new AbortController().signal }),
      {
        status: 'unavailable',
        reason: 'AML vendor not configured',
      },
    );
  });
});
