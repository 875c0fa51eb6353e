import { createDb, type Db } from '../../../db/knex';
import { PIPELINED_APPLICATION_NAME_SUFFIX, pipelinedRows } from '../../../db/pipelined-statements';

const APPLICATION_NAME = `pipelined-test-${process.pid}`;

/** Backends of this test's pipelined connections, seen from another connection. */
async function pipelinedBackends(observer: Db): Promise<number[]> {
  const { rows } = await observer.raw('SELECT pid FROM pg_stat_activity WHERE application_name = ?', [`${APPLICATION_NAME}${PIPELINED_APPLICATION_NAME_SUFFIX}`]);
  return rows.map((row: { pid: number }) => row.pid);
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
    for (let attempt = 0; attempt < 50 && (await pipelinedBackends(observer)).length > 0; attempt += 1) await new Promise((resolve) => setTimeout(resolve, 20));
    expect(await pipelinedBackends(observer)).toEqual([]);
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 1 });
  });
});
