import {
  anyObjectSchema,
  arraySchema,
  booleanSchema,
  dateTimeSchema,
  ignoredParam,
  int64IdSchema,
  integerSchema,
  listQuerySchema,
  objectSchema,
  stringSchema,
} from './common';
import { queryFilterParam } from './ledger';

/** Formance's V2Log; `hash` is "" until the hasher has reached the log (docs/ledger.md, "The log"). */
export const logSchema = objectSchema(
  {
    id: int64IdSchema('Log id: per ledger, dense, from 0.'),
    type: stringSchema({ enum: ['NEW_TRANSACTION', 'SET_METADATA', 'REVERTED_TRANSACTION', 'DELETE_METADATA', 'INSERTED_SCHEMA'] }),
    data: anyObjectSchema({
      description:
        "Formance's V2Log data of the type: V2LogDataNewTransaction, V2LogDataSetMetadata, V2LogDataRevertedTransaction, V2LogDataDeleteMetadata or V2LogDataInsertedSchema.",
    }),
    date: dateTimeSchema,
    hash: stringSchema({
      description:
        'base64 of SHA-256(previous log hash || canonical JSON of {id, type, date, data}); "" until hashed (Formance\'s model requires the field).',
    }),
  },
  ['id', 'type', 'data', 'date', 'hash'],
);

export const listLogsQuery = {
  ...listQuerySchema({
    startTime: { ...dateTimeSchema, description: 'Only logs dated at or after startTime.' },
    endTime: { ...dateTimeSchema, description: 'Only logs dated before endTime.' },
    query: queryFilterParam,
    pit: ignoredParam({ ...dateTimeSchema, description: 'Logs are immutable: every list is current.' }),
    sort: ignoredParam(stringSchema({ description: 'The list is always newest first.' })),
  }),
  additionalProperties: false,
};

const logId = integerSchema({ minimum: -1, description: 'A log id; -1 when there is none.' });

export const logChainSchema = objectSchema(
  {
    logs: integerSchema({ minimum: 0, description: 'Logs written (ids 0..logs-1).' }),
    lastHashedLogId: logId,
    lastHash: stringSchema({ description: 'The hash of lastHashedLogId, base64.' }),
    lag: integerSchema({ minimum: 0, description: 'Logs not hashed yet (0 when the ledger does not hash its logs).' }),
    hashing: stringSchema({
      enum: ['ASYNC', 'DISABLED'],
      description: "The ledger's HASH_LOGS: ASYNC (hashed behind the commit) or DISABLED (no chain).",
    }),
  },
  ['logs', 'lastHashedLogId', 'lag', 'hashing'],
);

export const logVerificationSchema = objectSchema(
  {
    valid: booleanSchema(),
    logs: integerSchema({ minimum: 0, description: 'Logs read.' }),
    hashed: integerSchema({ minimum: 0, description: 'Logs whose hash was recomputed and matched; the others wait for the hasher.' }),
    checkpoints: integerSchema({
      minimum: 0,
      description: "Signed checkpoints whose signature verified under one of the platform's log signing keys.",
    }),
    lastCheckpointId: int64IdSchema('The last log a verified checkpoint covers, with every log before it.'),
    firstBroken: objectSchema({ id: int64IdSchema('The first log that breaks the chain.'), reason: stringSchema() }, ['id', 'reason']),
    mismatches: arraySchema(
      objectSchema(
        {
          kind: stringSchema({ enum: ['HASH_MISMATCH', 'SEQUENCE_GAP', 'VOLUME_MISMATCH', 'METADATA_MISMATCH', 'TRANSACTION_MISMATCH'] }),
          reason: stringSchema(),
          logId: int64IdSchema('The log concerned (for a SEQUENCE_GAP, the first missing id).'),
          account: stringSchema(),
          asset: stringSchema(),
          transactionId: int64IdSchema('The transaction concerned.'),
          field: stringSchema({ description: 'The member of the transaction that differs: postings, timestamp, reference, reverted or metadata.' }),
          expected: { description: "What the log, replayed through the ledger's rules, gives (null: nothing)." },
          actual: { description: 'What is stored (null: nothing).' },
        },
        ['kind', 'reason'],
      ),
      { description: 'Differences between the log and the stored state, the first 100; each names its log, account, asset or transaction.' },
    ),
    mismatchCount: integerSchema({ minimum: 0, description: 'All the differences found (the list stops at 100).' }),
  },
  ['valid', 'logs', 'hashed', 'checkpoints', 'mismatches', 'mismatchCount'],
);

export const importLogsQuery = objectSchema({
  publicKey: stringSchema({
    pattern: '^[A-Za-z0-9_=-]+(,[A-Za-z0-9_=-]+)*$',
    maxLength: 2000,
    description:
      "A foreign export: the signer's Ed25519 public keys (raw 32 bytes, base64url; several separated by commas), as its deployment's GET /api/ledger/v2/_/log-signing-keys serves them. They replace the platform's own keys for this import.",
  }),
});

export const logSigningKeySchema = objectSchema(
  {
    keyId: stringSchema({
      description: "The key's fingerprint: the first 16 characters of base64url(SHA-256(raw public key)); checkpoints name it.",
    }),
    algorithm: stringSchema({ enum: ['Ed25519'] }),
    publicKey: stringSchema({ description: "The raw 32-byte Ed25519 public key, base64url (a JWK's `x`)." }),
    createdAt: dateTimeSchema,
    current: booleanSchema({ description: 'The key new checkpoints are signed with; the others verify older checkpoints.' }),
  },
  ['keyId', 'algorithm', 'publicKey', 'createdAt', 'current'],
);
export const logSigningKeysSchema = arraySchema(logSigningKeySchema);
