import { ApiError } from '../lib/errors';

/** SQLSTATE codes worth translating; everything else stays an internal error. */
const UNIQUE_VIOLATION = '23505';
const FOREIGN_KEY_VIOLATION = '23503';
const NUMERIC_OUT_OF_RANGE = '22003';
const CHARACTER_NOT_IN_REPERTOIRE = '22021';
const UNTRANSLATABLE_CHARACTER = '22P05';
const SERIALIZATION_FAILURE = '40001';
const DEADLOCK_DETECTED = '40P01';
const CONNECTION_CODES = new Set([
  // The socket: refused, reset, timed out, written after the server closed it, host gone or name not resolvable.
  'ECONNREFUSED',
  'ECONNRESET',
  'ETIMEDOUT',
  'EPIPE',
  'ECONNABORTED',
  'EHOSTUNREACH',
  'ENETUNREACH',
  'EAI_AGAIN',
  // PostgreSQL: admin shutdown, crash shutdown, cannot connect now, and the connection exception class.
  '57P01',
  '57P02',
  '57P03',
  '08000',
  '08001',
  '08003',
  '08004',
  '08006',
]);
/**
 * Messages of node-postgres errors that carry no code: a connection that died under a pooled client, or a client used
 * after its connection failed (what a request hits first when PostgreSQL restarts under load), or a connect that timed
 * out ("timeout expired", node-postgres's connectionTimeoutMillis).
 */
const CONNECTION_MESSAGES = /Connection terminated|not queryable|Connection closed|connection timeout|timeout expired/i;

interface PgError {
  code?: string;
  message?: string;
  name?: string;
}

const asPgError = (error: unknown): PgError => (typeof error === 'object' && error !== null ? (error as PgError) : {});

export function isRetryableTransactionError(error: unknown): boolean {
  const code = asPgError(error).code;
  return code === SERIALIZATION_FAILURE || code === DEADLOCK_DETECTED;
}

export function isUniqueViolation(error: unknown): boolean {
  return asPgError(error).code === UNIQUE_VIOLATION;
}

export function isDatabaseUnavailable(error: unknown): boolean {
  const e = asPgError(error);
  return (e.code !== undefined && CONNECTION_CODES.has(e.code)) || e.name === 'KnexTimeoutError' || CONNECTION_MESSAGES.test(e.message ?? '');
}

/**
 * Turns a driver error into the platform's error type at the db edge. Constraint names and SQL never reach the client:
 * they describe our schema, not the caller's mistake.
 */
export function translateDbError(error: unknown, messages: { conflict?: string; reference?: string } = {}): unknown {
  if (error instanceof ApiError) return error;
  const code = asPgError(error).code;
  if (code === UNIQUE_VIOLATION) return new ApiError('CONFLICT', messages.conflict ?? 'resource already exists', { cause: error });
  if (code === FOREIGN_KEY_VIOLATION) {
    return new ApiError('VALIDATION', messages.reference ?? 'a referenced resource does not exist', { cause: error });
  }
  // A number the caller sent that the column cannot hold (a transaction id beyond 2^63 - 1): their input, not our fault.
  if (code === NUMERIC_OUT_OF_RANGE) return new ApiError('VALIDATION', 'a number in the request is out of range', { cause: error });
  // Text PostgreSQL cannot store (a NUL byte, say from `%00` in a path): the caller's input, whatever the column.
  if (code === CHARACTER_NOT_IN_REPERTOIRE || code === UNTRANSLATABLE_CHARACTER) {
    return new ApiError('VALIDATION', 'the request holds a character that cannot be stored (such as a NUL byte)', { cause: error });
  }
  // A deadlock or serialization failure that outlived inTransaction's retries: contention, not a fault. The transaction
  // was rolled back whole, so the client may send the same request again.
  if (isRetryableTransactionError(error)) {
    return new ApiError('SERVICE_UNAVAILABLE', 'the write kept conflicting with concurrent writes and was not applied, retry later', {
      cause: error,
      headers: { 'Retry-After': '1' },
    });
  }
  if (isDatabaseUnavailable(error)) {
    return new ApiError('SERVICE_UNAVAILABLE', 'the database is unavailable, retry later', { cause: error, headers: { 'Retry-After': '1' } });
  }
  return error;
}

/**
 * Runs `work` in a transaction and retries it when PostgreSQL aborts it for a deadlock or a serialization failure:
 * both mean "nothing was written, try again", so a retry cannot apply a change twice.
 */
export async function inTransaction<T>(
  db: import('knex').Knex,
  work: (trx: import('knex').Knex.Transaction) => Promise<T>,
  options: { attempts?: number; isolationLevel?: 'read committed' | 'repeatable read' | 'serializable' } = {},
): Promise<T> {
  const attempts = options.attempts ?? 5;
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.transaction(work, options.isolationLevel ? { isolationLevel: options.isolationLevel } : undefined);
    } catch (error) {
      if (attempt < attempts && isRetryableTransactionError(error)) {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
        continue;
      }
      throw translateDbError(error);
    }
  }
}

/**
 * Runs one SQL statement on its own: atomic without BEGIN/COMMIT round trips (a data-modifying CTE chain commits or
 * fails whole), retried on deadlock or serialization failure and translated at the db edge, as inTransaction does.
 */
export async function inStatement(db: import('knex').Knex, sql: string, bindings: readonly unknown[], messages: { conflict?: string } = {}) {
  for (let attempt = 1; ; attempt++) {
    try {
      return await db.raw(sql, bindings as import('knex').Knex.RawBinding[]);
    } catch (error) {
      if (attempt < 5 && isRetryableTransactionError(error)) {
        await new Promise((resolve) => setTimeout(resolve, Math.random() * 10 * attempt));
        continue;
      }
      throw translateDbError(error, messages);
    }
  }
}
