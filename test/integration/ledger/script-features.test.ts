import { randomBytes } from 'node:crypto';
import { api } from '../../support/http';
import { newLedger, postTransaction } from '../../support/ledger';

const ONEOF = `send [USD/2 10] (
  source = oneof {
    @empty
    @world
  }
  destination = @users:1
)`;
const PRAGMA = `#![feature("experimental-oneof")]\n${ONEOF}`;

async function ledgerWith(features: Record<string, string>): Promise<string> {
  const name = `features-${randomBytes(6).toString('hex')}`;
  const res = await api('POST', `/api/ledger/v2/${name}`, { body: { features } });
  expect(res.status).toBe(204);
  return name;
}

const bulk = (ledger: string, plain: string) =>
  api('POST', `/api/ledger/v2/${ledger}/_bulk`, { body: [{ action: 'CREATE_TRANSACTION', data: { script: { plain } } }] });

/** Numscript's experimental flags are ledger features (or the script's own pragma), on every script path. */
describe('ledger features reach the Numscript interpreter', () => {
  it('refuses an experimental construct on a ledger without its feature, on every script path, naming the flag', async () => {
    const ledger = await newLedger('features-off');
    for (const res of [
      await postTransaction(ledger, { script: { plain: ONEOF } }),
      await postTransaction(ledger, { script: { plain: ONEOF } }, {}, '?dryRun=true'),
    ]) {
      expect(res.status).toBe(400);
      expect(res.body).toMatchObject({ errorCode: 'COMPILATION_FAILED', errorMessage: expect.stringContaining('"experimental-oneof"') });
    }
    const element = await bulk(ledger, ONEOF);
    expect(element.status).toBe(400);
    expect(element.body).toMatchObject({ errorCode: 'COMPILATION_FAILED', errorDetails: { index: 0 } });
    expect((await api('GET', `/api/ledger/v2/${ledger}/transactions`)).body.cursor.data).toEqual([]);
  });

  it('accepts it with the pragma on any ledger', async () => {
    const ledger = await newLedger('features-pragma');
    const res = await postTransaction(ledger, { script: { plain: PRAGMA } });
    expect(res.status).toBe(200);
    expect(res.body.data.postings).toEqual([{ source: 'world', destination: 'users:1', amount: 10, asset: 'USD/2' }]);
  });

  it('accepts it on a ledger created with the feature ON, on every script path, and lists the feature', async () => {
    const ledger = await ledgerWith({ 'experimental-oneof': 'ON', HASH_LOGS: 'ASYNC' });
    const features = (await api('GET', `/api/ledger/v2/${ledger}`)).body.data.features;
    expect(features).toMatchObject({ 'experimental-oneof': 'ON', HASH_LOGS: 'ASYNC', MOVES_HISTORY: 'ON' });
    const dry = await postTransaction(ledger, { script: { plain: ONEOF } }, {}, '?dryRun=true');
    expect(dry.status).toBe(200);
    const res = await postTransaction(ledger, { script: { plain: ONEOF } });
    expect(res.status).toBe(200);
    expect(res.body.data).toMatchObject({ id: 0, postings: [{ source: 'world', destination: 'users:1', amount: 10, asset: 'USD/2' }] });
    const element = await bulk(ledger, ONEOF);
    expect(element.status).toBe(200);
    expect(element.body.data[0]).toMatchObject({ responseType: 'CREATE_TRANSACTION', data: { id: 1 } });
    // Another flag stays off.
    const overdraft = await postTransaction(ledger, {
      script: { plain: 'vars {\n  monetary $m = overdraft(@users:1, USD/2)\n}\nsend $m (\n  source = @world\n  destination = @users:2\n)' },
    });
    expect(overdraft.body).toMatchObject({
      errorCode: 'COMPILATION_FAILED',
      errorMessage: expect.stringContaining('"experimental-overdraft-function"'),
    });
  });

  it('a feature OFF is listed and refuses the construct; an unknown value is a 400 naming the field', async () => {
    const ledger = await ledgerWith({ 'experimental-oneof': 'OFF' });
    expect((await api('GET', `/api/ledger/v2/${ledger}`)).body.data.features['experimental-oneof']).toBe('OFF');
    expect((await postTransaction(ledger, { script: { plain: ONEOF } })).body.errorCode).toBe('COMPILATION_FAILED');
    const bad = await api('POST', `/api/ledger/v2/features-bad-${randomBytes(4).toString('hex')}`, {
      body: { features: { 'experimental-oneof': 'YES' } },
    });
    expect(bad.status).toBe(400);
    expect(bad.body).toMatchObject({ errorCode: 'VALIDATION', errorMessage: expect.stringContaining('features.experimental-oneof') });
    const plain = (await api('GET', `/api/ledger/v2/${await newLedger('features-none')}`)).body.data.features;
    expect(Object.keys(plain).some((name) => name.startsWith('experimental-'))).toBe(false);
  });
});
