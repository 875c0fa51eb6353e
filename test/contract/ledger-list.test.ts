import { api } from '../support/http';
import { newLedger } from '../support/ledger';
import { sdkClient } from './sdk-client';

/** ledger.v2.listLedgers through the official SDK: it always sends `includeDeleted`, a parameter we do not use. */
describe('contract: ledger.v2.listLedgers through the Formance SDK', () => {
  test('listLedgers', async () => {
    const name = await newLedger('contract');
    const listed = await sdkClient().ledger.v2.listLedgers({ pageSize: 1000 });
    expect(listed.v2LedgerListResponse!.cursor.data.map((l) => l.name)).toContain(name);
  });

  test('every query parameter Formance defines is accepted; an unknown one or a body field is still refused', async () => {
    expect((await api('GET', '/api/ledger/v2?includeDeleted=true&sort=id:desc&pageSize=5')).status).toBe(200);
    expect((await api('GET', '/api/ledger/v2?includeDeleted=maybe')).status).toBe(400);
  });
});
