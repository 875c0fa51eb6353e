import { api, getToken } from '../../support/http';
import { newLedger, postTransaction } from '../../support/ledger';

/**
 * Inputs an attacker tries on a money API, beyond the fuzzer's random ones: amounts in every disguise, enormous numbers,
 * look-alike characters in addresses, hostile filter keys and replays across ledgers. Each must end in a 4xx (or a
 * harmless 2xx) and move no money.
 */
describe('attacker probes', () => {
  let ledger: string;
  const send = (amount: unknown, extra: Record<string, unknown> = {}) =>
    api('POST', `/api/ledger/v2/${ledger}/transactions`, {
      rawBody: `{"postings":[{"source":"world","destination":"users:1","amount":${String(amount)},"asset":"COIN"}]${
        Object.keys(extra).length
          ? `,${Object.entries(extra)
              .map(([k, v]) => `"${k}":${v}`)
              .join(',')}`
          : ''
      }}`,
      headers: { 'Content-Type': 'application/json' },
    });
  const balance = async () => (await api('GET', `/api/ledger/v2/${ledger}/accounts/users:1?expand=volumes`)).body.data?.volumes?.COIN?.balance ?? 0;

  beforeAll(async () => {
    ledger = await newLedger('probe');
  });

  it.each(['"100"', '-1', '-0.0', '1.5', '1e3', '0x10', 'null', 'true', '[1]', '{"v":1}', 'NaN', 'Infinity'])(
    'amount %s is refused with 400 and moves nothing',
    async (amount) => {
      const res = await send(amount);
      expect(res.status).toBe(400);
      expect(res.body.errorCode).toBe('VALIDATION');
      expect(await balance()).toBe(0);
    },
  );

  it('an amount of 1,000 digits is either stored exactly or refused, never a 500', async () => {
    const huge = `9${'0'.repeat(999)}`;
    const res = await send(huge);
    expect([200, 400]).toContain(res.status);
    if (res.status === 200) expect(res.text).toContain(`"amount":${huge}`);
  });

  it.each(['users:ｕ', 'users:1\u0000', 'users:1;DROP TABLE ledger_accounts', 'users::1', ':users', 'users:1 '])(
    'address %j is refused with 400',
    async (address) => {
      const res = await postTransaction(ledger, { postings: [{ source: 'world', destination: address, amount: 1, asset: 'COIN' }] });
      expect(res.status).toBe(400);
    },
  );

  it('hostile metadata filter keys and values are data, not SQL', async () => {
    for (const key of ["a'b", 'a"b', 'a\\b', 'a%b', 'a_b', '$.a', 'a) OR (1=1']) {
      const res = await api(
        'GET',
        `/api/ledger/v2/${ledger}/transactions?metadata[${encodeURIComponent(key)}]=${encodeURIComponent("x' OR '1'='1")}`,
      );
      expect(res.status).toBeLessThan(500);
      if (res.status === 200) expect(res.body.cursor.data).toEqual([]);
    }
  });

  it('a transaction of one ledger cannot be reverted or annotated through another ledger', async () => {
    const other = await newLedger('probe-other');
    const tx = await postTransaction(ledger, { postings: [{ source: 'world', destination: 'users:2', amount: 5, asset: 'COIN' }] });
    expect(tx.status).toBe(200);
    const id = tx.body.data.id;
    // The other ledger has no transaction with that id yet: the id is not a global handle.
    expect((await api('POST', `/api/ledger/v2/${other}/transactions/${id}/revert`)).status).toBe(404);
    expect((await api('POST', `/api/ledger/v2/${other}/transactions/${id}/metadata`, { body: { k: 'v' } })).status).toBe(404);
    expect((await api('GET', `/api/ledger/v2/${ledger}/transactions/${id}`)).body.data.reverted).toBe(false);
  });

  it('a write scope of one area does not open another area', async () => {
    const res = await api('GET', '/api/auth/clients', { token: await getToken('ledger:write') });
    expect(res.status).toBe(403);
  });
});
