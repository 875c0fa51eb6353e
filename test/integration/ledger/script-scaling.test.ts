import { randomBytes } from 'node:crypto';
import { api } from '../../support/http';
import { newLedger, postTransaction, posting } from '../../support/ledger';

const SCALING = `#![feature("experimental-asset-scaling")]
send [EUR/2 400] (
  source = @src with scaling through @swap
  destination = @dest
)`;

const balances = async (ledger: string, address: string) =>
  (await api('GET', `/api/ledger/v2/${ledger}/accounts/${address}?expand=volumes`)).body.data.volumes;

/** `with scaling through` reads every scale of the asset the account holds (getScaledBalances of the ledger's store). */
describe('Numscript asset scaling on the ledger', () => {
  it('converts the other scales of the asset through the swap account (Formance conformance case "scaling")', async () => {
    const ledger = await newLedger('scaling');
    // A scale of another asset whose name starts the same, and an asset whose suffix is not a scale, are not read.
    const funding = [
      posting('world', 'src', 99, 'EUR'),
      posting('world', 'src', 1, 'EUR/2'),
      posting('world', 'src', 7, 'EURO/2'),
      posting('world', 'src', 5, 'EUR_X'),
    ];
    expect((await postTransaction(ledger, { postings: funding })).status).toBe(200);
    const res = await postTransaction(ledger, { script: { plain: SCALING } });
    expect(res.status).toBe(200);
    expect(res.body.data.postings).toEqual([
      { source: 'src', destination: 'swap', amount: 4, asset: 'EUR' },
      { source: 'swap', destination: 'src', amount: 400, asset: 'EUR/2' },
      { source: 'src', destination: 'dest', amount: 400, asset: 'EUR/2' },
    ]);
    expect(await balances(ledger, 'src')).toMatchObject({
      EUR: { balance: 95 },
      'EUR/2': { balance: 1 },
      'EURO/2': { balance: 7 },
      EUR_X: { balance: 5 },
    });
    expect((await balances(ledger, 'dest'))['EUR/2']).toMatchObject({ balance: 400 });
  });

  it('downscales from a finer scale, and refuses with INSUFFICIENT_FUND when every scale together falls short', async () => {
    const ledger = await newLedger('scaling');
    expect((await postTransaction(ledger, { postings: [posting('world', 'src', 4000, 'EUR/3')] })).status).toBe(200);
    const res = await postTransaction(ledger, { script: { plain: SCALING } });
    expect(res.status).toBe(200);
    expect(res.body.data.postings).toEqual([
      { source: 'src', destination: 'swap', amount: 4000, asset: 'EUR/3' },
      { source: 'swap', destination: 'src', amount: 400, asset: 'EUR/2' },
      { source: 'src', destination: 'dest', amount: 400, asset: 'EUR/2' },
    ]);

    const short = await newLedger('scaling');
    const funding = [posting('world', 'src', 1, 'EUR'), posting('world', 'src', 200, 'EUR/2'), posting('world', 'src', 10, 'EUR/3')];
    expect((await postTransaction(short, { postings: funding })).status).toBe(200);
    const refused = await postTransaction(short, { script: { plain: SCALING } });
    expect(refused.status).toBe(400);
    expect(refused.body.errorCode).toBe('INSUFFICIENT_FUND');
    expect((await api('GET', `/api/ledger/v2/${short}/transactions`)).body.cursor.data).toHaveLength(1);
  });

  it('runs on a ledger created with the feature, without the pragma; bulk and dry run too', async () => {
    const ledger = `scaling-feature-${randomBytes(6).toString('hex')}`;
    expect((await api('POST', `/api/ledger/v2/${ledger}`, { body: { features: { 'experimental-asset-scaling': 'ON' } } })).status).toBe(204);
    expect((await postTransaction(ledger, { postings: [posting('world', 'src', 5, 'EUR')] })).status).toBe(200);
    const plain = SCALING.split('\n').slice(1).join('\n');
    const dry = await postTransaction(ledger, { script: { plain } }, {}, '?dryRun=true');
    expect(dry.status).toBe(200);
    expect(dry.body.data.postings[0]).toEqual({ source: 'src', destination: 'swap', amount: 4, asset: 'EUR' });
    const res = await api('POST', `/api/ledger/v2/${ledger}/_bulk?atomic=true`, {
      body: [{ action: 'CREATE_TRANSACTION', data: { script: { plain } } }],
    });
    expect(res.status).toBe(200);
    expect(res.body.data[0].data.postings).toHaveLength(3);
    expect(await balances(ledger, 'src')).toMatchObject({ EUR: { balance: 1 }, 'EUR/2': { balance: 0 } });
  });
});
