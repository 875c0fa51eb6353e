import { createHash } from 'node:crypto';
import fs from 'node:fs/promises';
import path from 'node:path';
import { parseJson, stringifyJson } from '../../../lib/json';
import { invalidData, providerRejected, type OpenBankingPlugin } from './plugin';
import { parseAccounts, parseBalances, parsePayments } from './provider-data';

const fileName = (id: string): string => `${createHash('sha256').update(id).digest('hex').slice(0, 40)}.json`;

async function readJson(file: string): Promise<unknown | undefined> {
  let text: string;
  try {
    text = await fs.readFile(file, 'utf8');
  } catch (error) {
    if ((error as NodeJS.ErrnoException).code === 'ENOENT') return undefined;
    throw error;
  }
  try {
    return parseJson(text);
  } catch {
    throw invalidData(`${path.basename(file)}: not valid JSON`);
  }
}

async function writeJson(file: string, value: unknown): Promise<void> {
  await fs.mkdir(path.dirname(file), { recursive: true });
  const temp = `${file}.${process.pid}.${Date.now()}.tmp`;
  await fs.writeFile(temp, stringifyJson(value, 2));
  await fs.rename(temp, file);
}

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
          ...p, reference: scoped(p.reference),
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
