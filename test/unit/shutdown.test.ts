import { ApiError } from '../../lib/errors';
import { isExpectedShutdownError } from '../../db/shutdown';

const pgError = (code: string, message = 'error') => Object.assign(new Error(message), { code, severity: 'FATAL' });

describe('isExpectedShutdownError', () => {
  it.each([
    [
      'admin_shutdown (57P01), the error of every connection when PostgreSQL stops',
      pgError('57P01', 'terminating connection due to administrator command'),
    ],
    ['cannot_connect_now (57P03) while PostgreSQL shuts down', pgError('57P03', 'the database system is shutting down')],
    ['57P01 wrapped by the platform error type', new ApiError('SERVICE_UNAVAILABLE', 'the database is unavailable', { cause: pgError('57P01') })],
  ])('is true for %s, stopping or not', (_name, error) => {
    expect(isExpectedShutdownError(error, false)).toBe(true);
    expect(isExpectedShutdownError(error, true)).toBe(true);
  });

  it.each([
    ['a connection cut under a client', new Error('Connection terminated unexpectedly')],
    ['a client used after its connection ended', new Error('Client was closed and is not queryable')],
    ['a refused reconnection', Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:54329'), { code: 'ECONNREFUSED' })],
    ['a pending acquire of a destroyed pool', new Error('aborted')],
    ['an acquire after the pool was destroyed', new Error('Unable to acquire a connection')],
    ['a crash of PostgreSQL (57P02)', pgError('57P02', 'terminating connection because of crash of another server process')],
  ])('is true for %s only once the process is stopping', (_name, error) => {
    expect(isExpectedShutdownError(error, true)).toBe(true);
    expect(isExpectedShutdownError(error, false)).toBe(false);
  });

  it.each([
    ['a unique violation', pgError('23505', 'duplicate key value violates unique constraint')],
    ['a syntax error', pgError('42601', 'syntax error at or near "SELCT"')],
    ['a bug', new TypeError("Cannot read properties of undefined (reading 'id')")],
    ['something that is not an error', 'aborted'],
  ])('is false for %s, even while stopping: real errors still print', (_name, error) => {
    expect(isExpectedShutdownError(error, false)).toBe(false);
    expect(isExpectedShutdownError(error, true)).toBe(false);
  });
});
