import fs from 'node:fs';
import path from 'node:path';
import { simulatedOpenBanking } from '../../../activities/payments/plugins/simulated-open-banking';
import { stringifyJson } from '../../../lib/json';
import { testTempDir } from '../../support/temp-dir';

describe('the simulated bank behind open banking', () => {
  let dir: string;
  beforeEach(() => {
    dir = testTempDir('sim-ob-');
  });
  afterEach(() => fs.rmSync(dir, { recursive: true, force: true }));
  const write = (name: string, value: unknown) => fs.writeFileSync(path.join(dir, name), stringifyJson(value));

  it("grants a known user the bank's accounts, balances and payments, scoped to the connection", async () => {
    write('psu-accounts.json', [{ reference: 'checking', name: 'Checking' }]);
    write('psu-balances.json', [{ accountReference: 'checking', asset: 'EUR/2', amount: 10 }]);
    write('psu-payments.json', [
      {
        reference: 'p1',
        type: 'PAY-IN',
        status: 'SUCCEEDED',
        amount: 5,
        asset: 'EUR/2',
        createdAt: '2024-01-01T00:00:00Z',
        destinationAccountReference: 'checking',
      },
    ]);
    const bank = simulatedOpenBanking(dir);
    await bank.createUser({ id: 'u1', name: 'Ada' });
    const data = await bank.completeUserLink({ psuID: 'u1', connectionID: 'c1', attemptID: 'a1' });
    expect(data.accounts.map((a) => [a.reference, a.name])).toEqual([['c1/checking', 'Checking']]);
    expect(data.balances).toEqual([{ accountReference: 'c1/checking', asset: 'EUR/2', amount: 10n }]);
    expect(data.payments.map((p) => [p.reference, p.destinationAccountReference, p.sourceAccountReference])).toEqual([
      ['c1/p1', 'c1/checking', undefined],
    ]);
    expect(fs.readdirSync(path.join(dir, 'open-banking', 'connections'))).toHaveLength(1);

    await bank.deleteUserConnection({ psuID: 'u1', connectionID: 'c1' });
    expect(fs.readdirSync(path.join(dir, 'open-banking', 'connections'))).toEqual([]);
    await bank.deleteUser('u1');
    await bank.deleteUser('u1'); // already gone: still done
    expect(fs.readdirSync(path.join(dir, 'open-banking', 'users'))).toEqual([]);
  });

  it('refuses a user it does not know, for good (not retried), and grants nothing when its files are absent', async () => {
    const bank = simulatedOpenBanking(dir);
    await expect(bank.completeUserLink({ psuID: 'nobody', connectionID: 'c1', attemptID: 'a1' })).rejects.toMatchObject({
      type: 'PROVIDER_REJECTED',
      nonRetryable: true,
      message: 'user nobody is not known to the simulated bank',
    });
    await bank.createUser({ id: 'u2', name: 'Bob' });
    expect(await bank.completeUserLink({ psuID: 'u2', connectionID: 'c2', attemptID: 'a2' })).toEqual({ accounts: [], balances: [], payments: [] });
  });

  it('a malformed bank file is invalid data, not retried', async () => {
    fs.writeFileSync(path.join(dir, 'psu-accounts.json'), '{not json');
    const bank = simulatedOpenBanking(dir);
    await bank.createUser({ id: 'u3', name: 'Cy' });
    await expect(bank.completeUserLink({ psuID: 'u3', connectionID: 'c3', attemptID: 'a3' })).rejects.toMatchObject({
      type: 'INVALID_ARGUMENT',
      nonRetryable: true,
    });
  });
});
