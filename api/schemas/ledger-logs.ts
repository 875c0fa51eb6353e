import type { JsonSchema } from '../routing';
import { dateTimeSchema, int64IdSchema, listQuerySchema, objectSchema } from './common';

/** Formance's V2Log; `hash` appears once the hasher has reached the log (docs/ledger.md, "The log"). */
export const logSchema = objectSchema(
  {
    id: int64IdSchema('Log id: per ledger, dense, from 0.'),
    type: { type: 'string', enum: ['NEW_TRANSACTION', 'SET_METADATA', 'REVERTED_TRANSACTION', 'DELETE_METADATA'] },
    data: { type: 'object', description: "Formance's V2Log data of the type: V2LogDataNewTransaction, V2LogDataSetMetadata, V2LogDataRevertedTransaction or V2LogDataDeleteMetadata." },
    date: dateTimeSchema,
    hash: { type: 'string', description: 'base64 of SHA-256(previous log hash || canonical JSON of {id, type, date, data}); absent until hashed.' },
  },
  ['id', 'type', 'data', 'date'],
);

export const listLogsQuery: JsonSchema = {
  ...listQuerySchema({
    startTime: { ...dateTimeSchema, description: 'Only logs dated at or after startTime.' },
    endTime: { ...dateTimeSchema, description: 'Only logs dated before endTime.' },
  }),
  additionalProperties: false,
};

const logId = { type: 'integer', minimum: -1, description: 'A log id; -1 when there is none.' };

export const logChainSchema = objectSchema(
  {
    logs: { type: 'integer', minimum: 0, description: 'Logs written (ids 0..logs-1).' },
    lastHashedLogId: logId,
    lastHash: { type: 'string', description: 'The hash of lastHashedLogId, base64.' },
    lag: { type: 'integer', minimum: 0, description: 'Logs not hashed yet.' },
  },
  ['logs', 'lastHashedLogId', 'lag'],
);

export const logVerificationSchema = objectSchema(
  {
    valid: { type: 'boolean' },
    logs: { type: 'integer', minimum: 0, description: 'Logs read.' },
    hashed: { type: 'integer', minimum: 0, description: 'Logs whose hash was recomputed and matched; the others wait for the hasher.' },
    firstBroken: objectSchema({ id: int64IdSchema('The first log that breaks the chain.'), reason: { type: 'string' } }, ['id', 'reason']),
  },
  ['valid', 'logs', 'hashed'],
);

export const importLogsResultSchema = objectSchema({ logs: { type: 'integer', minimum: 0, description: 'Logs replayed.' } }, ['logs']);
