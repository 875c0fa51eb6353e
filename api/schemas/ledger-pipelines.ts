import { anyObjectSchema, booleanSchema, dateTimeSchema, int64IdSchema, listQuerySchema, objectSchema, stringSchema } from './common';

const ledgerName = () => stringSchema({ minLength: 1, maxLength: 63 });
const idOf = (what: string) => stringSchema({ minLength: 1, maxLength: 64, description: `The ${what}'s id (a UUID).` });

/** Formance's V2ExporterConfiguration: the driver (`http` or `postgres` here) and its configuration. */
export const exporterConfigurationSchema = objectSchema(
  {
    driver: stringSchema({
      description: 'The driver: `http` (batches POSTed to `config.url`) or `postgres` (rows in a table of the database `config.url`).',
    }),
    config: anyObjectSchema({
      description:
        "The driver's configuration: http `{url, batching?}`, postgres `{url, table?, batching?}`; `batching` is `{maxItems?, flushInterval?}`.",
    }),
  },
  ['driver', 'config'],
);

/** Formance's V2Exporter; a database password in `config.url` reads as `********`. */
export const exporterSchema = objectSchema({ id: stringSchema(), driver: stringSchema(), config: anyObjectSchema(), createdAt: dateTimeSchema }, [
  'id',
  'driver',
  'config',
  'createdAt',
]);

export const exporterParams = objectSchema({ exporterID: idOf('exporter') }, ['exporterID']);
export const exportersListQuery = { ...listQuerySchema(), additionalProperties: false };

export const createPipelineBodySchema = objectSchema({ exporterID: idOf('exporter') }, ['exporterID']);

/** Formance's V2Pipeline; `lastLogID` is absent until the first batch is delivered. */
export const pipelineSchema = objectSchema(
  {
    id: stringSchema(),
    ledger: stringSchema(),
    exporterID: stringSchema(),
    enabled: booleanSchema(),
    lastLogID: int64IdSchema('The last log the target holds.'),
    createdAt: dateTimeSchema,
  },
  ['id', 'ledger', 'exporterID', 'enabled', 'createdAt'],
);

export const pipelineParams = objectSchema({ ledger: ledgerName(), pipelineID: idOf('pipeline') }, ['ledger', 'pipelineID']);
export const pipelinesListQuery = { ...listQuerySchema(), additionalProperties: false };
