import type { JsonSchema } from '../routing';

/** An object schema that refuses unknown members: a typo in a field name is a 400, not a silent no-op. */
export function objectSchema(properties: Record<string, JsonSchema>, required: string[] = [], extra: JsonSchema = {}): JsonSchema {
  return { type: 'object', properties, required, additionalProperties: false, ...extra };
}

/** A non-negative integer of any size: a JSON number on the wire, a BigInt in the service. */
export const bigIntegerSchema = (description = 'Integer of any size'): JsonSchema => ({
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
export const int64IdSchema = (description: string): JsonSchema => ({ type: 'integer', format: 'int64', minimum: 0, maximum: MAX_INT64, description });

export const metadataSchema: JsonSchema = {
  type: 'object',
  additionalProperties: { type: 'string' },
  description: 'Free-form string key/value pairs.',
};

export const dateTimeSchema: JsonSchema = { type: 'string', format: 'date-time' };

export const errorSchema: JsonSchema = {
  type: 'object',
  required: ['errorCode', 'errorMessage'],
  properties: {
    errorCode: { type: 'string', description: 'UPPER_SNAKE error code, e.g. VALIDATION or NOT_FOUND.' },
    errorMessage: { type: 'string' },
    details: {},
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

/** Query schema of a paginated list: pageSize 1..1000 (default 15), an opaque cursor, and the list's own filters. */
/**
 * A query parameter Formance defines for the operation but this platform does not use: accepted (and type-checked) so
 * Formance's clients work unchanged, then ignored (api/middleware/validate.ts drops it before filters and cursors).
 */
export const ignoredParam = (schema: JsonSchema): JsonSchema => ({
  ...schema,
  'x-ignored': true,
  description: `Formance's; accepted and ignored.${schema.description ? ` ${schema.description}` : ''}`,
});

export function listQuerySchema(filters: Record<string, JsonSchema> = {}): JsonSchema {
  return {
    type: 'object',
    'x-paginated': true,
    properties: {
      pageSize: { type: 'integer', minimum: 1, maximum: 1000, default: 15, description: 'Items per page, 1..1000.' },
      cursor: { type: 'string', description: 'The `next` or `previous` value of an earlier page; must be sent alone.' },
      ...filters,
    },
  };
}
