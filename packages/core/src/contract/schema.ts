import * as t from 'io-ts';

/**
 * JSON Schema fragments attached to codecs. io-ts carries no constraints a schema can read
 * (a refinement is an opaque predicate), so every constrained primitive registers the
 * schema it enforces here, next to its own `validate`: the two cannot drift apart silently
 * because the OpenAPI tests validate real responses against the generated document.
 */
export type JsonSchema = { [key: string]: unknown };

const annotations = new WeakMap<t.Mixed, JsonSchema>();

export function annotate<C extends t.Mixed>(codec: C, schema: JsonSchema): C {
  annotations.set(codec, schema);
  return codec;
}

export function annotationOf(codec: t.Mixed): JsonSchema | undefined {
  return annotations.get(codec);
}

const tolerated = new WeakMap<t.Mixed, t.Mixed>();

/**
 * An enum the server emits strictly but clients must read tolerantly (the spec: "consumers must
 * tolerate future codes"). Decodes exactly as `codec`; its schema is `codec` or any other string.
 */
export function toleratingFutureValues<C extends t.Mixed>(codec: C): C {
  const open = new t.Type<t.TypeOf<C>, t.OutputOf<C>, unknown>(
    `${codec.name} or a future value`,
    codec.is,
    codec.validate,
    codec.encode,
  ) as unknown as C;
  tolerated.set(open, codec);
  return open;
}

export function toleratedEnumOf(codec: t.Mixed): t.Mixed | undefined {
  return tolerated.get(codec);
}

/** A string codec checked by a predicate, with the schema that describes the same rule. */
export function constrainedString(
  name: string,
  predicate: (s: string) => boolean,
  schema: JsonSchema,
): t.Type<string, string, unknown> {
  const codec = new t.Type<string, string, unknown>(
    name,
    (u): u is string => typeof u === 'string' && predicate(u),
    (u, c) => (typeof u === 'string' && predicate(u) ? t.success(u) : t.failure(u, c)),
    t.identity,
  );
  return annotate(codec, { type: 'string', ...schema });
}

/** A plain (unbranded) integer, optionally bounded. */
export function integer(
  name = 'integer',
  bounds: { minimum?: number; maximum?: number } = {},
): t.Type<number, number, unknown> {
  const ok = (u: unknown): u is number =>
    typeof u === 'number' &&
    Number.isSafeInteger(u) &&
    (bounds.minimum === undefined || u >= bounds.minimum) &&
    (bounds.maximum === undefined || u <= bounds.maximum);
  const codec = new t.Type<number, number, unknown>(
    name,
    ok,
    (u, c) => (ok(u) ? t.success(u) : t.failure(u, c)),
    t.identity,
  );
  return annotate(codec, { type: 'integer', ...bounds });
}

/** An array codec with an item count range; it keeps the `ArrayType` tag for the schema walker. */
export function boundedArray<C extends t.Mixed>(name: string, item: C, bounds: { minItems: number; maxItems: number }) {
  const array = t.array(item);
  const inRange = (n: number) => n >= bounds.minItems && n <= bounds.maxItems;
  const codec = new t.ArrayType<C, t.TypeOf<C>[], t.OutputOf<C>[], unknown>(
    name,
    (u): u is t.TypeOf<C>[] => array.is(u) && inRange(u.length),
    (u, c) =>
      Array.isArray(u) && !inRange(u.length)
        ? t.failure(u, c, `expected ${bounds.minItems} to ${bounds.maxItems} items`)
        : array.validate(u, c),
    array.encode,
    item,
  );
  return annotate(codec, bounds);
}

export const nullable = <C extends t.Mixed>(codec: C) => t.union([codec, t.null]);

/** An enum of string values, kept in declaration order for the schema. */
export function enumOf<const V extends readonly [string, ...string[]]>(name: string, values: V) {
  const keys = Object.fromEntries(values.map((v) => [v, null])) as { [K in V[number]]: null };
  return t.keyof(keys, name);
}

/**
 * An object codec that fails on unknown properties (io-ts `exact` only strips them).
 * It keeps the `ExactType` tag, so the schema walker emits `additionalProperties: false`.
 */
export function strictObject<R extends t.Props, O extends t.Props>(name: string, required: R, optional: O) {
  const inner = t.intersection([t.type(required), t.partial(optional)]);
  const allowed = new Set([...Object.keys(required), ...Object.keys(optional)]);
  const exact = t.exact(inner);
  const unknownKeysOf = (u: unknown) =>
    typeof u === 'object' && u !== null && !Array.isArray(u) ? Object.keys(u).filter((k) => !allowed.has(k)) : [];
  const is = (u: unknown): u is t.TypeOf<typeof inner> =>
    exact.is(u) && Object.keys(u as object).every((k) => allowed.has(k));
  return new t.ExactType<typeof inner, t.TypeOf<typeof inner>, t.OutputOf<typeof inner>, unknown>(
    name,
    is,
    (u, c) => {
      // A valid value is its own decoding (it has no key to strip); only a failure needs the contexts.
      if (is(u)) return t.success(u);
      const unknownKeys = unknownKeysOf(u);
      if (unknownKeys.length > 0) {
        return t.failure(u, c, `unknown field${unknownKeys.length > 1 ? 's' : ''}: ${unknownKeys.join(', ')}`);
      }
      return exact.validate(u, c);
    },
    exact.encode,
    inner,
  );
}

export const isoDateTime = constrainedString(
  'DateTime',
  (s) => /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?Z$/.test(s) && !Number.isNaN(Date.parse(s)),
  { format: 'date-time' },
);
