import { ApiError } from '../../../lib/errors';
import { inTransaction, isDatabaseUnavailable, translateDbError } from '../../../db/errors';

const withCode = (code: string, message = 'x') => Object.assign(new Error(message), { code });

/** A database that is down or restarting must answer 503 with Retry-After, never a bare 500. */
describe('database errors at the db edge', () => {
  it.each([
    ['refused', withCode('ECONNREFUSED')],
    ['reset', withCode('ECONNRESET')],
    ['write after close', withCode('EPIPE')],
    ['admin shutdown', withCode('57P01', 'terminating connection due to administrator command')],
    ['cannot connect now', withCode('57P03', 'the database system is starting up')],
    ['connection failure class', withCode('08006')],
    ['pool timeout', Object.assign(new Error('Knex: Timeout acquiring a connection'), { name: 'KnexTimeoutError' })],
    ['connection died', new Error('Connection terminated unexpectedly')],
    ['client after a failure', new Error('Client has encountered a connection error and is not queryable')],
    ['connect timeout of a client', new Error('timeout expired')],
  ])('%s is SERVICE_UNAVAILABLE with Retry-After', (_label, error) => {
    expect(isDatabaseUnavailable(error)).toBe(true);
    const translated = translateDbError(error) as ApiError;
    expect(translated).toBeInstanceOf(ApiError);
    expect(translated.code).toBe('SERVICE_UNAVAILABLE');
    expect(translated.status).toBe(503);
    expect(translated.headers).toEqual({ 'Retry-After': '1' });
  });

  it.each([
    ['deadlock', withCode('40P01', 'deadlock detected')],
    ['serialization failure', withCode('40001', 'could not serialize access due to concurrent update')],
  ])('a %s that outlived the retries is SERVICE_UNAVAILABLE with Retry-After, not a 500', (_label, error) => {
    const translated = translateDbError(error) as ApiError;
    expect([translated.code, translated.status, translated.headers]).toEqual(['SERVICE_UNAVAILABLE', 503, { 'Retry-After': '1' }]);
  });

  it('inTransaction retries a deadlock, then answers 503 once its attempts are spent', async () => {
    let calls = 0;
    const db = { transaction: async (work: () => Promise<unknown>) => work() } as unknown as import('knex').Knex;
    const flaky = () => {
      calls += 1;
      if (calls < 3) throw withCode('40P01', 'deadlock detected');
      return Promise.resolve('done');
    };
    await expect(inTransaction(db, flaky)).resolves.toBe('done');
    expect(calls).toBe(3);
    calls = -100;
    await expect(inTransaction(db, flaky, { attempts: 4 })).rejects.toMatchObject({ code: 'SERVICE_UNAVAILABLE', status: 503 });
    expect(calls).toBe(-96);
  });

  it('keeps constraint violations as client errors and other errors as they are', () => {
    expect((translateDbError(withCode('23505')) as ApiError).code).toBe('CONFLICT');
    expect((translateDbError(withCode('23503')) as ApiError).code).toBe('VALIDATION');
    expect((translateDbError(withCode('22003', 'value "2841417428787861127168" is out of range for type bigint')) as ApiError).status).toBe(400);
    const syntax = withCode('42601', 'syntax error');
    expect(translateDbError(syntax)).toBe(syntax);
    expect(isDatabaseUnavailable(syntax)).toBe(false);
  });
});
