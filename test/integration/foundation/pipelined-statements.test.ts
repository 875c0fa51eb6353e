import { createDb, type Db } from '../../../db/knex';
import { PIPELINED_APPLICATION_NAME_SUFFIX, pipelinedRows } from '../../../db/pipelined-statements';
import { isTruthy, pollUntil } from '../../support/eventually';

const APPLICATION_NAME = `pipelined-test-${process.pid}`;

/** Backends of this test's pipelined connections, seen from another connection. */
async function pipelinedBackends(observer: Db): Promise<number[]> {
  const { rows } = await observer.raw('SELECT pid FROM pg_stat_activity WHERE application_name = ?', [`${APPLICATION_NAME}${PIPELINED_APPLICATION_NAME_SUFFIX}`]);
  return rows.map((row: { pid: number }) => row.pid);
}

/** Waits (a second at most) for the backends of this test's pipelined connections to be gone, and lists what is left. */
async function remainingBackends(observer: Db): Promise<number[]> {
  await pollUntil(async () => (await pipelinedBackends(observer)).length === 0, isTruthy, { timeoutMs: 1000, what: 'the pipelined connection to close' }).catch(() => undefined);
  return pipelinedBackends(observer);
}

describe('pipelined statements', () => {
  let db: Db;
  let observer: Db;
  const previousName = process.env.APP_NAME;

  beforeEach(() => {
    process.env.APP_NAME = APPLICATION_NAME;
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 1 });
    process.env.APP_NAME = previousName;
    observer = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 1 });
  });
  afterEach(async () => {
    await db.destroy();
    await observer.destroy();
  });

  it('answers statements sent together on one connection each with its own rows, a failing one failing alone', async () => {
    const [first, failing, last] = await Promise.allSettled([
      pipelinedRows<{ n: number }>(db, undefined, 'SELECT $1::int AS n', [1]),
      pipelinedRows(db, undefined, 'SELECT 1 / $1::int AS n', [0]),
      pipelinedRows<[number]>(db, 'pipelined-test-array', 'SELECT $1::int + 1', [2], 'array'),
    ]);
    expect(first).toEqual({ status: 'fulfilled', value: [{ n: 1 }] });
    expect(failing).toMatchObject({ status: 'rejected', reason: { code: '22012' } });
    expect(last).toEqual({ status: 'fulfilled', value: [[3]] });
    expect(await pipelinedBackends(observer)).toHaveLength(1);
  });

  it('answers on a new connection when its backend was terminated, and closes the connection with the pool', async () => {
    await pipelinedRows(db, undefined, 'SELECT 1', []);
    const [terminated] = await pipelinedBackends(observer);
    await observer.raw('SELECT pg_terminate_backend(?)', [terminated]);
    expect(await pipelinedRows(db, undefined, 'SELECT 2 AS n', [])).toEqual([{ n: 2 }]);
    const backends = await pipelinedBackends(observer);
    expect(backends).toHaveLength(1);
    expect(backends[0]).not.toBe(terminated);

    await db.destroy();
    expect(await remainingBackends(observer)).toEqual([]);
    // A read after the pool was destroyed opens nothing that would hold a stopping process open.
    await expect(pipelinedRows(db, undefined, 'SELECT 3', [])).rejects.toThrow('Unable to acquire a connection');
    expect(await pipelinedBackends(observer)).toEqual([]);
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 1 });
  });

  it('refuses a read once the pool was destroyed, even when no read had opened the connection before', async () => {
    await db.destroy();
    await expect(pipelinedRows(db, undefined, 'SELECT 1', [])).rejects.toThrow('Unable to acquire a connection');
    expect(await pipelinedBackends(observer)).toEqual([]);
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 1 });
  });

  it('closes a connection still being opened when the pool is destroyed, and the read waiting for it settles', async () => {
    const read = pipelinedRows(db, undefined, 'SELECT 4 AS n', []);
    await db.destroy();
    // The read either ran before the connection closed or failed as a stopped pool's read does; it never hangs.
    const outcome = await read.then((rows) => rows, (error: Error) => error.message);
    expect([[{ n: 4 }], 'Unable to acquire a connection']).toContainEqual(outcome);
    expect(await remainingBackends(observer)).toEqual([]);
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 1 });
  });
});
