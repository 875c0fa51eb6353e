import { anyObjectSchema, dateTimeSchema, extendObject, listQuerySchema, mapSchema, objectSchema, stringSchema } from './common';
import { ledgerParams } from './ledger';

export { ledgerParams };

/** A schema version, as Formance's path takes it. */
export const schemaParams = extendObject(ledgerParams, { version: stringSchema({ pattern: '^[a-zA-Z0-9_.+-]{1,64}$' }) }, ['version']);

const templateSchema = objectSchema(
  {
    script: stringSchema({ minLength: 1, maxLength: 100_000, description: 'Numscript, compiled when the schema is inserted.' }),
    description: stringSchema({ maxLength: 10_000 }),
    runtime: stringSchema({ enum: ['experimental-interpreter', 'machine'], description: 'Accepted; there is one Numscript interpreter.' }),
  },
  ['script'],
);

const schemaMembers = {
  chart: anyObjectSchema({
    description:
      'Chart of accounts: segments, `$variable` segments with `.pattern`, `.self`, `.metadata` ({key: {default?}}) and `.rules` ({}). Checked in full by the service.',
  }),
  transactions: mapSchema(templateSchema, { description: 'Transaction templates by name; a transaction names one with `script.template`.' }),
  queries: anyObjectSchema({ description: "Formance's query templates, run by runQuery (docs/ledger.md, Queries)." }),
};

/** Formance's V2SchemaData. */
export const schemaDataSchema = objectSchema(schemaMembers, ['chart']);

/** Formance's V2Schema. */
export const schemaSchema = objectSchema({ version: stringSchema(), createdAt: dateTimeSchema, ...schemaMembers }, ['version', 'createdAt', 'chart']);

export const listSchemasQuery = {
  ...listQuerySchema({
    order: stringSchema({ enum: ['asc', 'desc'] as const, description: 'By insertion (creation) order; newest first by default.' }),
    sort: stringSchema({ enum: ['created_at'] as const, description: 'The only sort key.' }),
  }),
  additionalProperties: false,
};
