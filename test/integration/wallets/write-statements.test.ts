import { randomUUID } from 'node:crypto';
import { createDb, type Db } from '../../../db/knex';
import { confirmHold, debitWallet, getHold, holdAccount, voidHold } from '../../../areas/wallets';
import { holdRows } from '../../../areas/wallets/hold-rows';
import { lockVolumes } from '../../../areas/ledger/reads/volumes';
import { api } from '../../support/http';
import { backendPid, blockedOnLock } from '../../support/locks';
import { ledgerViolations } from '../../support/ledger-invariants';
import { credit, debit, mainBalance, newWallet } from '../../support/wallets';

const usd = (amount: bigint) => ({ asset: 'USD/2', amount });

/** The statements `work` sends through `db`, in order (BEGIN and COMMIT included). */
async function statementsOf(db: Db, work: () => Promise<unknown>): Promise<string[]> {
  const seen: string[] = [];
  const listener = (query: { sql: string }) => seen.push(query.sql.replace(/\s+/g, ' ').trim());
  db.on('query', listener);
  try {
    await work();
  } finally {
    db.off('query', listener);
  }
  return seen;
}

describe('wallet writes: statements per call', () => {
  let db: Db;
  beforeAll(() => {
    db = createDb(process.env.TEST_DATABASE_URL!, { poolMax: 4 });
  });
  afterAll(() => db.destroy());

  it("a pending debit and its confirm send only their batch's statements once the process knows the wallet and the hold", async () => {
    const wallet = await newWallet();
    await credit(wallet, 10);
    await debitWallet(db, wallet, { amount: usd(1n) }); // this process now knows the wallet

    let holdId = '';
    const debitStatements = await statementsOf(db, async () => {
      holdId = (await debitWallet(db, wallet, { amount: usd(3n), pending: true }))!.id;
    });
    // BEGIN, the balance the script's lock-free first run reads (so its pairs join the batch's one sorted lock), the
    // volume locks, the ledger row bump, the transaction insert (which also writes the hold row), COMMIT.
    expect(debitStatements[0]).toBe('BEGIN;');
    expect(debitStatements[1]).toMatch(/^select \(input - output\)::text AS balance from "ledger_volumes"/);
    expect(debitStatements).toHaveLength(6);
    expect(debitStatements.filter((sql) => /wallet_holds/.test(sql))).toHaveLength(1);

    const confirmStatements = await statementsOf(db, () => confirmHold(db, holdId));
    // The same: the hold row is locked and read within the volume-lock statement, after the volume rows.
    expect(confirmStatements[0]).toBe('BEGIN;');
    expect(confirmStatements).toHaveLength(5);
    expect(confirmStatements[1]).toMatch(/INSERT INTO ledger_volumes .* FROM wallet_holds .* FOR UPDATE/);

    expect(await getHold(db, holdId)).toMatchObject({ originalAmount: 3n, remaining: 0n, closed: true });
    expect(await mainBalance(wallet)).toBe(6);
    expect(await ledgerViolations(db, 'wallets')).toEqual([]);
  });

  it('a known wallet or hold never hides an unknown one: those are still 404', async () => {
    const wallet = await newWallet();
    await credit(wallet, 10);
    const hold = (await debit(wallet, 2, { pending: true })).body.data.id as string;
    for (let round = 0; round < 2; round++) {
      const unknownWallet = await debit(randomUUID(), 1, { pending: true });
      expect(unknownWallet.status).toBe(404);
      expect(unknownWallet.body.errorCode).toBe('NOT_FOUND');
      expect((await credit(randomUUID(), 1)).status).toBe(404);
      expect((await debit(wallet, 1, { destination: { type: 'WALLET', identifier: randomUUID() } })).status).toBe(404);
      const unknownHold = await api('POST', `/api/wallets/holds/${randomUUID()}/confirm`);
      expect(unknownHold.status).toBe(404);
      expect(unknownHold.body.errorCode).toBe('NOT_FOUND');
      expect((await api('POST', `/api/wallets/holds/${randomUUID()}/void`)).status).toBe(404);
      expect((await api('POST', '/api/wallets/holds/not-a-hold/confirm')).status).toBe(404);
    }
    expect((await api('POST', `/api/wallets/holds/${hold}/confirm`)).status).toBe(204);
    expect(await mainBalance(wallet)).toBe(8);
  });

  it('settles a hold named in upper case as the same hold, exactly once', async () => {
    const wallet = await newWallet();
    await credit(wallet, 10);
    const hold = (await debit(wallet, 4, { pending: true })).body.data.id as string;
    const results = await Promise.all([
      api('POST', `/api/wallets/holds/${hold.toUpperCase()}/confirm`, { body: { amount: 1 } }),
      api('POST', `/api/wallets/holds/${hold}/void`),
      api('POST', `/api/wallets/holds/${hold.toUpperCase()}/void`),
    ]);
    const [confirmed, ...voids] = results;
    // One void wins; the confirm went through only if it came first (then 3 came back, else all 4).
    expect(voids.map((r) => r.status).sort()).toEqual([204, 400]);
    expect([204, 400]).toContain(confirmed.status);
    for (const refused of results.filter((r) => r.status === 400)) expect(refused.body.errorCode).toBe('HOLD_CLOSED');
    expect((await api('GET', `/api/wallets/holds/${hold}`)).body.data).toMatchObject({ remaining: 0, closed: true });
    expect(await mainBalance(wallet)).toBe(confirmed.status === 204 ? 9 : 10);
  });

  it('a hold read from its row by a process that did not create it settles as one it created', async () => {
    const wallet = await newWallet();
    await credit(wallet, 10);
    // Created through the API process: this (test) process learns its terms from its row.
    const hold = (await debit(wallet, 5, { pending: true })).body.data.id as string;
    await confirmHold(db, hold, { amount: 2n });
    await expect(confirmHold(db, hold, { amount: 4n })).rejects.toMatchObject({ code: 'INSUFFICIENT_FUND' });
    await voidHold(db, hold);
    await expect(voidHold(db, hold)).rejects.toMatchObject({ code: 'HOLD_CLOSED' });
    expect(await getHold(db, hold)).toMatchObject({ remaining: 0n, closed: true });
    expect(await mainBalance(wallet)).toBe(8);
  });

  it('reads a hold row within the volume-lock statement as it is once the volume locks are taken, not as it was when the statement began', async () => {
    const wallet = await newWallet();
    await credit(wallet, 10);
    const hold = (await debit(wallet, 5, { pending: true })).body.data.id as string;
    const pair: [string, string] = [holdAccount(hold), 'USD/2'];
    const closer = await db.transaction();
    const reader = await db.transaction();
    try {
      await lockVolumes(closer, 'wallets', [pair]);
      await closer('wallet_holds').where({ id: hold }).update({ closed_at: closer.fn.now() });
      const readerPid = await backendPid(reader);
      let closed: unknown;
      let done = false;
      // Its snapshot is taken now, while the hold is still open for every other transaction; it waits on the volume row.
      const read = { ...holdRows.lock([hold]), apply: (rows: Array<Record<string, unknown>>) => (closed = rows[0]?.closed) };
      const reading = lockVolumes(reader, 'wallets', [pair], new Map(), [read]).then(() => (done = true));
      // The statement is under way and blocked by the closer's volume lock when PostgreSQL shows its backend waiting.
      await blockedOnLock(db, readerPid);
      expect(done).toBe(false);
      await closer.commit();
      await reading;
      expect(closed).toBe(true);
    } finally {
      if (!closer.isCompleted()) await closer.rollback();
      await reader.rollback();
    }
  });

  it('a pending debit under an Idempotency-Key (one transaction of its own) writes its hold once, and a replay answers that hold', async () => {
    const wallet = await newWallet();
    await credit(wallet, 10);
    const key = `debit-${randomUUID()}`;
    const send = () =>
      api('POST', `/api/wallets/wallets/${wallet}/debit`, {
        body: { amount: { asset: 'USD/2', amount: 3 }, pending: true },
        headers: { 'Idempotency-Key': key },
      });
    const [first, second] = await Promise.all([send(), send()]);
    expect([first.status, second.status]).toEqual([201, 201]);
    expect(second.body.data.id).toBe(first.body.data.id);
    expect(await db('wallet_holds').where({ wallet_id: wallet }).select('id', 'original_amount')).toEqual([
      { id: first.body.data.id, original_amount: '3' },
    ]);
    expect((await send()).body.data.id).toBe(first.body.data.id);
    expect((await api('POST', `/api/wallets/holds/${first.body.data.id}/confirm`, { headers: { 'Idempotency-Key': key } })).status).toBe(204);
    expect((await api('GET', `/api/wallets/holds/${first.body.data.id}`)).body.data).toMatchObject({ remaining: 0, closed: true });
    expect(await mainBalance(wallet)).toBe(7);
  });
});
