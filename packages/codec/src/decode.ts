import { isLeft } from 'fp-ts/lib/Either.js';
import * as t from 'io-ts';
import { err, ok, type Result } from 'neverthrow';

// The one place outside data meets its codec: io-ts's `Either` (and fp-ts) stay in this module,
// everyone else gets a neverthrow `Result` and one error shape.

/** Why a value is not what its codec says: the first wrong place, what belongs there and what is there. */
export interface DecodeError {
  /** The first wrong place, `organizations[0].plan.version`; '' when the value itself is wrong. */
  readonly path: string;
  /** The codec's name for what belongs there (`string`, `PlanVersion`, `"tron"`), at most 60 characters. */
  readonly expected: string;
  /**
   * What is there, by kind: `nothing` (missing), `null`, a number or boolean as written, else `a
   * string`, `an array`, `an object`. Never a string's text: rows and files carry secrets.
   */
  readonly found: string;
  /** The top-level field of every wrong place, first failure first, each once (a precedence order's input). */
  readonly fields: readonly string[];
}

/** Decodes `value` through `codec`: the value as the codec types it, or where and how it differs. */
export function decode<A>(codec: t.Decoder<unknown, A>, value: unknown): Result<A, DecodeError> {
  const decoded = codec.decode(value);
  return isLeft(decoded) ? err(decodeError(decoded.left, codec.name)) : ok(decoded.right);
}

/** The one wording of a decode error: `plans[0].version: expected PlanVersion, found 0`. */
export function formatDecodeError(error: DecodeError): string {
  return `${error.path || 'the top level'}: expected ${error.expected}, found ${error.found}`;
}

function decodeError(errors: t.Errors, codecName: string): DecodeError {
  const paths = errors.map((e) => segments(e.context));
  const first = errors[0];
  const expected = first?.context.at(-1)?.type.name ?? codecName;
  return {
    path: render(paths[0] ?? []),
    expected: expected.length > 60 ? `${expected.slice(0, 59)}…` : expected,
    found: describeFound(first?.value),
    fields: [...new Set(paths.flatMap((p) => (p.length > 0 ? [String(p[0])] : [])))],
  };
}

/**
 * The keys from the top down, as a reader of the document names them: a union's or an
 * intersection's member index is not a key, an array's index is a number.
 */
function segments(context: t.Context): Array<string | number> {
  const keys: Array<string | number> = [];
  for (let i = 1; i < context.length; i++) {
    const parent = unwrap(context[i - 1]!.type);
    const key = context[i]!.key;
    if (key === '' || parent instanceof t.UnionType || parent instanceof t.IntersectionType) continue;
    const indexed =
      parent instanceof t.ArrayType || parent instanceof t.ReadonlyArrayType || parent instanceof t.TupleType;
    keys.push(indexed ? Number(key) : key);
  }
  return keys;
}

/** Exact, refinement, readonly and recursive codecs validate in their inner codec's context entry. */
function unwrap(codec: t.Decoder<unknown, unknown>): t.Decoder<unknown, unknown> {
  let inner = codec;
  while (
    inner instanceof t.ExactType ||
    inner instanceof t.RefinementType ||
    inner instanceof t.ReadonlyType ||
    inner instanceof t.RecursiveType
  ) {
    inner = (inner as { type: t.Decoder<unknown, unknown> }).type;
  }
  return inner;
}

function render(keys: ReadonlyArray<string | number>): string {
  return keys.map((k, i) => (typeof k === 'number' ? `[${k}]` : i === 0 ? k : `.${k}`)).join('');
}

function describeFound(value: unknown): string {
  if (value === undefined) return 'nothing';
  if (value === null) return 'null';
  if (typeof value === 'number' || typeof value === 'boolean') return String(value);
  if (typeof value === 'string') return 'a string';
  if (Array.isArray(value)) return 'an array';
  return typeof value === 'object' ? 'an object' : `a ${typeof value}`;
}
