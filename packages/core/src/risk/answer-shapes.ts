import * as t from 'io-ts';
import { ExposureType, TokenAuthenticity } from '../contract/enums.js';
import { enumOf } from '../contract/schema.js';
import { AML_LEVELS } from './aml-levels.js';
import type { AmlAnswer, SanctionsAnswer, TokenAuthenticityAnswer } from './signals.js';

/**
 * The shapes a provider promises to answer in. A host's own provider is outside code: an answer it
 * gives in any other shape (a status of its own, an answered without a valid time) is no answer.
 */
const ValidDate = new t.Type<Date, Date, unknown>(
  'ValidDate',
  (u): u is Date => u instanceof Date && !Number.isNaN(u.getTime()),
  (u, c) => (u instanceof Date && !Number.isNaN(u.getTime()) ? t.success(u) : t.failure(u, c)),
  t.identity,
);

const Unavailable = t.type({ status: t.literal('unavailable'), reason: t.string });

const Exposure = t.type({
  category: t.string,
  exposureType: ExposureType,
  hops: t.number,
  percent: t.union([t.string, t.null]),
});

const AmlAnswerShape = t.union([
  t.intersection([
    t.type({
      status: t.literal('answered'),
      level: enumOf('AmlLevel', AML_LEVELS),
      exposures: t.array(Exposure),
      asOf: ValidDate,
    }),
    t.partial({ incomplete: t.boolean }),
  ]),
  Unavailable,
]);

const SanctionsAnswerShape = t.union([
  t.intersection([
    t.type({
      status: t.literal('answered'),
      hits: t.array(t.type({ address: t.string, source: t.string, name: t.union([t.string, t.null]) })),
      asOf: ValidDate,
    }),
    t.partial({ incomplete: t.boolean }),
  ]),
  t.intersection([Unavailable, t.partial({ asOf: ValidDate })]),
]);

const TokenAnswerShape = t.union([
  t.intersection([
    t.type({ status: t.literal('answered'), authenticity: TokenAuthenticity, asOf: ValidDate }),
    t.partial({ officialDecimals: t.number, contradiction: t.string }),
  ]),
  Unavailable,
]);

// Typed as the answers they check, so a change to an answer type that the shape misses fails to compile.
export const isAmlAnswer: (u: unknown) => u is AmlAnswer = AmlAnswerShape.is;
export const isSanctionsAnswer: (u: unknown) => u is SanctionsAnswer = SanctionsAnswerShape.is;
export const isTokenAnswer: (u: unknown) => u is TokenAuthenticityAnswer = TokenAnswerShape.is;
