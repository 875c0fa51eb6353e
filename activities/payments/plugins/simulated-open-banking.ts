import fs from 'node:fs/promises';
import path from 'node:path';
import { providerRejected, type OpenBankingPlugin } from './plugin';
import { parseAccounts, parseBalances, parsePayments } from './provider-data';
import { fileName, readJson, writeJson } from './simulated-files';

/**
 * The simulated bank behind the simulated connector's open banking (docs/payments.md): every end user who consents
 * gets the accounts, balances and payments of `psu-accounts.json`, `psu-balances.json` and `psu-payments.json` (same
 * formats as accounts.json, balances.json and payments.json), their references prefixed by the connection id so that
 * two connections never share an account or a payment.
 * The users it knows and the connections it granted are files under `open-banking/`, as a real provider's records.
 */
export function simulatedOpenBanking(directory: string): OpenBankingPlugin {
  const userFile = (psuID: string) => path.join(directory, 'open-banking', 'users', fileName(psuID));
  const connectionFile = (connectionID: string) => path.join(directory, 'open-banking', 'connections', fileName(connectionID));

  return {
    async createUser(user) {
      await writeJson(userFile(user.id), { id: user.id, name: user.name, ...(user.email ? { email: user.email } : {}) });
    },

    async completeUserLink({ psuID, connectionID, attemptID }) {
      if ((await readJson(userFile(psuID))) === undefined) throw providerRejected(`user ${psuID} is not known to the simulated bank`);
      const accounts = parseAccounts((await readJson(path.join(directory, 'psu-accounts.json'))) ?? [], 'psu-accounts.json');
      const balances = parseBalances((await readJson(path.join(directory, 'psu-balances.json'))) ?? [], 'psu-balances.json');
      const payments = parsePayments((await readJson(path.join(directory, 'psu-payments.json'))) ?? [], 'psu-payments.json');
      await writeJson(connectionFile(connectionID), { connectionID, psuID, attemptID });
      const scoped = (reference: string) => `${connectionID}/${reference}`;
      return {
        accounts: accounts.map((a) => ({ ...a, reference: scoped(a.reference) })),
        balances: balances.map((b) => ({ ...b, accountReference: scoped(b.accountReference) })),
        payments: payments.map((p) => ({
          ...p,
          reference: scoped(p.reference),
          ...(p.sourceAccountReference ? { sourceAccountReference: scoped(p.sourceAccountReference) } : {}),
          ...(p.destinationAccountReference ? { destinationAccountReference: scoped(p.destinationAccountReference) } : {}),
        })),
      };
    },

    async deleteUserConnection({ connectionID }) {
      await fs.rm(connectionFile(connectionID), { force: true });
    },

    async deleteUser(psuID) {
      await fs.rm(userFile(psuID), { force: true });
    },
  };
}
