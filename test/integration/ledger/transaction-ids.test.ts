import { api } from '../../support/http';
import { newLedger, postTransaction, posting } from '../../support/ledger';

const MAX = '9223372036854775807';
const ABOVE = '9223372036854775808';

/** Every transaction id route takes the whole documented range 0..2^63-1: an id in range that does not exist is a 404. */
describe('transaction ids over their whole range', () => {
  let ledger: string;

  beforeAll(async () => {
    ledger = await newLedger('ids');
    expect((await postTransaction(ledger, { postings: [posting('world', 'users:1', 100)] })).status).toBe(200);
  });

  const routes = (id: string): Array<[string, string, unknown?]> => [
    ['GET', `/api/ledger/v2/${ledger}/transactions/${id}`],
    ['POST', `/api/ledger/v2/${ledger}/transactions/${id}/revert`],
    ['POST', `/api/ledger/v2/${ledger}/transactions/${id}/metadata`, { a: 'b' }],
    ['DELETE', `/api/ledger/v2/${ledger}/transactions/${id}/metadata/a`],
    ['GET', `/api/ledger/${ledger}/transactions/${id}`],
  ];

  it('answer 404 NOT_FOUND for 2^63 - 1 on get, revert, metadata set and delete, v2 and v1', async () => {
    for (const [method, path, body] of routes(MAX)) {
      const res = await api(method, path, { body });
      expect({ method, path, status: res.status, errorCode: res.body.errorCode }).toEqual({ method, path, status: 404, errorCode: 'NOT_FOUND' });
    }
  });

  it('read an id beyond 2^53 exactly, not as the nearest double', async () => {
    // 2^53 + 1 rounds to 2^53 as a double; neither exists, and the message names the id that was asked for.
    const res = await api('GET', `/api/ledger/v2/${ledger}/transactions/9007199254740993`);
    expect(res.status).toBe(404);
    expect(res.body.errorMessage).toContain('9007199254740993');
  });

  it.each([ABOVE, '99999999999999999999999', '-1', '1e3', '0x10', '1.0', '12a'])('answer 400 VALIDATION for the id %s on every route', async (id) => {
    for (const [method, path, body] of routes(encodeURIComponent(id))) {
      const res = await api(method, path, { body });
      expect({ method, path, status: res.status, errorCode: res.body.errorCode }).toEqual({ method, path, status: 400, errorCode: 'VALIDATION' });
      expect(res.body.errorMessage).toMatch(/^path\.(id|txid): must be an integer from 0 to 9223372036854775807$/);
    }
  });

  it('still serve existing ids', async () => {
    expect((await api('GET', `/api/ledger/v2/${ledger}/transactions/0`)).body.data.id).toBe(0);
    expect((await api('GET', `/api/ledger/${ledger}/transactions/0`)).body.data.txid).toBe(0);
  });

  it('take 2^63 - 1 in bulk elements too, and refuse 2^63', async () => {
    const bulk = (element: string) =>
      api('POST', `/api/ledger/v2/${ledger}/_bulk`, { rawBody: `[${element}]`, headers: { 'Content-Type': 'application/json' } });
    const revert = await bulk(`{"action": "REVERT_TRANSACTION", "data": {"id": ${MAX}}}`);
    // A failed bulk answers 400 VALIDATION; the element's own code is in errorDetails (and in its result).
    expect(revert.body).toMatchObject({ errorCode: 'VALIDATION', errorDetails: { index: 0, errorCode: 'NOT_FOUND' } });
    const metadata = await bulk(`{"action": "ADD_METADATA", "data": {"targetType": "TRANSACTION", "targetId": ${MAX}, "metadata": {"a": "b"}}}`);
    expect(metadata.body).toMatchObject({ errorCode: 'VALIDATION', errorDetails: { index: 0, errorCode: 'NOT_FOUND' } });
    const above = await bulk(`{"action": "REVERT_TRANSACTION", "data": {"id": ${ABOVE}}}`);
    expect(above.status).toBe(400);
    expect(above.body.errorCode).toBe('VALIDATION');
    expect(above.body.errorDetails).toBeUndefined();
  });

  it('are documented with the exact bound 2^63 - 1 in the served OpenAPI document', async () => {
    const doc = await api('GET', '/api/openapi.json', { token: null });
    expect(doc.text).toContain(`"maximum":${MAX}`);
    expect(doc.text).not.toContain('9223372036854776000');
    const idParam = doc.body.paths['/api/ledger/v2/{ledger}/transactions/{id}'].get.parameters.find((p: any) => p.name === 'id');
    expect(idParam.schema).toMatchObject({ type: 'integer', format: 'int64', minimum: 0, maximum: BigInt(MAX) });
  });
});
