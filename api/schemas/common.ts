import type { JsonSchema } from '../routing';

declare const accepts: unique symbol;

/**
 * A JSON schema that also carries, for the compiler only, the type of the values it accepts, so a route's input type is
 * derived from the schema that validates it instead of being written a second time (and drifting). `T` is the value in
 * a JSON body; `P` the value in a path or query parameter, which arrives as text: ajv coerces numbers and booleans, but
 * exact integers stay digit strings (api/validation.ts), so only they differ. A schema written as a plain literal
 * accepts `unknown`.
 */
export type Schema<T, P = T> = JsonSchema & { readonly [accepts]?: { body: T; param: P } };

/** What a schema accepts in a JSON body. */
export type BodyOf<S> = S extends { readonly [accepts]?: { body: infer T; param: unknown } } ? T : unknown;
/** What a schema accepts in a path or query parameter, after ajv's coercion. */
export type ParamOf<S> = S extends { readonly [accepts]?: { body: unknown; param: infer P } } ? P : unknown;

// Flattens intersections, so an input type reads as one object in editor hovers and error messages.
type Flat<T> = T extends infer O ? { [K in keyof O]: O[K] } : never;
type Members<P, R extends keyof P, Of extends 'body' | 'param'> = Flat<
  { [K in R]: Of extends 'body' ? BodyOf<P[K]> : ParamOf<P[K]> } & { [K in Exclude<keyof P, R>]?: Of extends 'body' ? BodyOf<P[K]> : ParamOf<P[K]> }
>;
export type ObjectSchema<P, R extends keyof P> = Schema<Members<P, R, 'body'>, Members<P, R, 'param'>>;

/** More keywords for a builder, without the ones its type is derived from: they would make that type a lie. */
type Extra<Derived extends string> = JsonSchema & { [K in Derived]?: never };

/** An object schema that refuses unknown members: a typo in a field name is a 400, not a silent no-op. */
export function objectSchema<P extends Record<string, JsonSchema>, const R extends keyof P & string = never>(
  properties: P,
  required: readonly R[] = [],
  extra: Extra<'type' | 'properties' | 'required' | 'additionalProperties'> = {},
): ObjectSchema<P, R> {
  return { type: 'object', properties, required, additionalProperties: false, ...extra };
}

/** An object schema with `base`'s members and more, e.g. a path with one more parameter. */
export function extendObject<T, Q, P extends Record<string, JsonSchema>, const R extends keyof P & string = never>(
  base: Schema<T, Q>,
  properties: P,
  required: readonly R[] = [],
): Schema<Flat<T & Members<P, R, 'body'>>, Flat<Q & Members<P, R, 'param'>>> {
  // A member both schemas require is listed once: OpenAPI refuses a `required` list with repeats.
  return objectSchema({ ...(base.properties as Record<string, JsonSchema>), ...properties }, [
    ...new Set([...(base.required as string[]), ...required]),
  ]);
}

/** `{[name]: schema}` with its name as a type: a computed key of a type parameter would widen to an index signature. */
export function member<const N extends string, S extends JsonSchema>(name: N, schema: S): { [K in N]: S } {
  return { [name]: schema } as { [K in N]: S };
}

/** A string; with `enum`, one of its values (the type is their union). */
export const stringSchema = <const E extends string = string>(extra: Extra<'type'> & { enum?: readonly E[] } = {}): Schema<E> => ({
  type: 'string',
  ...extra,
});
export const integerSchema = (extra: Extra<'type' | 'enum' | 'format'> = {}): Schema<number> => ({ type: 'integer', ...extra });
export const booleanSchema = (extra: Extra<'type' | 'enum'> = {}): Schema<boolean> => ({ type: 'boolean', ...extra });
/** Exactly `value`. */
export const constSchema = <const V extends string>(value: V): Schema<V> => ({ const: value });
/** One of `values`, of no declared type. */
export const enumSchema = <const E extends string>(values: readonly E[]): Schema<E> => ({ enum: values });

export const arraySchema = <S extends JsonSchema>(items: S, extra: Extra<'type' | 'items'> = {}): Schema<BodyOf<S>[], ParamOf<S>[]> => ({
  type: 'array',
  items,
  ...extra,
});

/** Any JSON object; its members are the service's to check. */
export const anyObjectSchema = (extra: Extra<'type'> = {}): Schema<Record<string, unknown>> => ({ type: 'object', ...extra });

/** An object of any keys whose values all match `values`. */
export const mapSchema = <S extends JsonSchema>(
  values: S,
  extra: Extra<'type' | 'properties' | 'additionalProperties'> = {},
): Schema<Record<string, BodyOf<S>>, Record<string, ParamOf<S>>> => ({
  type: 'object',
  additionalProperties: values,
  ...extra,
});

/** Exactly one of `schemas` (the type is the union of theirs). */
export const oneOfSchema = <const S extends readonly JsonSchema[]>(
  schemas: S,
  extra: Extra<'oneOf' | 'type'> = {},
): Schema<BodyOf<S[number]>, ParamOf<S[number]>> => ({
  oneOf: schemas,
  ...extra,
});

/**
 * An integer of any size, exact. In a body the JSON parser gives a number when it is safe and a BigInt beyond
 * (lib/json.ts); a path or query parameter keeps its digits (api/validation.ts). Either way the service takes a BigInt.
 */
export type ExactInteger = Schema<number | bigint, string>;

/** A non-negative integer of any size: a JSON number on the wire, a BigInt in the service. */
export const bigIntegerSchema = (description = 'Integer of any size'): ExactInteger => ({
  type: 'integer',
  format: 'bigint',
  minimum: 0,
  description,
});

/** 2^63 - 1, the largest PostgreSQL bigint; a BigInt, so the document prints it exactly (lib/json.ts). */
export const MAX_INT64 = 9223372036854775807n;

/**
 * A database id (a bigint column), exact over its whole range 0..2^63-1: digits in a path, a JSON number in a body. An id
 * in range that does not exist is then a 404 from the service, never a database range error.
 */
export const int64IdSchema = (description: string): ExactInteger => ({
  type: 'integer',
  format: 'int64',
  minimum: 0,
  maximum: MAX_INT64,
  description,
});

export const metadataSchema = mapSchema(stringSchema(), { description: 'Free-form string key/value pairs.' });

export const dateTimeSchema = stringSchema({ format: 'date-time' });

export const errorSchema: JsonSchema = {
  type: 'object',
  required: ['errorCode', 'errorMessage'],
  properties: {
    errorCode: { type: 'string', description: 'UPPER_SNAKE error code, e.g. VALIDATION or NOT_FOUND.' },
    errorMessage: { type: 'string' },
    details: { type: 'string', description: 'Free text, as Formance sends it.' },
    errorDetails: { type: 'object', description: "The error's facts, by code (e.g. the failed bulk element's `index`)." },
  },
};

/** `{data: X}` */
export const dataOf = (schema: JsonSchema): JsonSchema => ({ type: 'object', required: ['data'], properties: { data: schema } });

/** The cursor envelope of every list. */
export const cursorOf = (item: JsonSchema): JsonSchema => ({
  type: 'object',
  required: ['cursor'],
  properties: {
    cursor: {
      type: 'object',
      required: ['pageSize', 'hasMore', 'previous', 'next', 'data'],
      properties: {
        pageSize: { type: 'integer' },
        hasMore: { type: 'boolean' },
        previous: { type: 'string' },
        next: { type: 'string' },
        data: { type: 'array', items: item },
      },
    },
  },
});

/**
 * Marks a list's query schema: the validator resolves its cursor and gives the route `input.list`
 * (api/middleware/validate.ts); the document drops the marker.
 */
export type Paginated = { readonly 'x-paginated': true };

const pageMembers = () => ({
  pageSize: integerSchema({ minimum: 1, maximum: 1000, default: 15, description: 'Items per page, 1..1000.' }),
  cursor: stringSchema({ description: 'The `next` or `previous` value of an earlier page; must be sent alone.' }),
});

/** Query schema of a paginated list: pageSize 1..1000 (default 15), an opaque cursor, and the list's own filters. */
export function listQuerySchema<F extends Record<string, JsonSchema> = Record<never, JsonSchema>>(
  filters?: F,
): ObjectSchema<ReturnType<typeof pageMembers> & F, never> & Paginated {
  return { type: 'object', 'x-paginated': true, properties: { ...pageMembers(), ...filters } };
}

/** `metadata[key]=value` query members, as Formance's v1 lists take them. */
export type MetadataFilters = { [key: `metadata[${string}]`]: string };

/** Adds `metadata[key]=value` filters to a query schema; any other unknown member is refused. */
export function withMetadataFilters<S extends JsonSchema>(
  schema: S,
): S & { readonly [accepts]?: { body: BodyOf<S> & MetadataFilters; param: ParamOf<S> & MetadataFilters } } {
  return { ...schema, patternProperties: { '^metadata\\[.+\\]$': { type: 'string' } }, additionalProperties: false };
}

/**
 * A query parameter Formance defines for the operation but this platform does not use: accepted (and type-checked) so
 * Formance's clients work unchanged, then ignored (api/middleware/validate.ts drops it before filters and cursors).
 */
export const ignoredParam = <S extends JsonSchema>(schema: S): S => ({
  ...schema,
  'x-ignored': true,
  description: `Formance's; accepted and ignored.${schema.description ? ` ${String(schema.description)}` : ''}`,
});
