import path from 'node:path';
import type { ProviderAccount } from '../../../areas/payments';
import type { ProviderPayment } from '../../../areas/payments';
import { providerRejected, type BankAccountRequest, type ConnectorPlugin, type InitiationRequest } from './plugin';
import { parseAccount, parseAccounts, parseBalances, parsePayment, parsePayments } from './provider-data';
import { parseConversions, parseOrders } from './provider-data';
import { fileName, readFolder, readJson, writeJson } from './simulated-files';
import { simulatedReversal } from './simulated-reversal';
import { simulatedOpenBanking } from './simulated-open-banking';

/**
 * The simulated provider: a directory the user fills with accounts.json, balances.json, payments.json, conversions.json
 * and orders.json. Transfers and payouts are settled at once by the rules in docs/payments.md and written to
 * `initiated/`, their reversals to `reversed/`; forwarded bank accounts are written to `created-accounts/`. These folders
 * are read back by the next fetch like the user's own files.
 */
export function simulatedPlugin(directory: string): ConnectorPlugin {
  const file = (name: string) => path.join(directory, name);
  const accounts = async (): Promise<ProviderAccount[]> => [
    ...parseAccounts((await readJson(file('accounts.json'))) ?? [], 'accounts.json'),
    ...(await readFolder(file('created-accounts'))).map((f) => parseAccount(f.data as Record<string, unknown>, `created-accounts/${f.name}`)),
  ];
  const balances = async () => parseBalances((await readJson(file('balances.json'))) ?? [], 'balances.json');
  const payments = async (): Promise<ProviderPayment[]> => [
    ...parsePayments((await readJson(file('payments.json'))) ?? [], 'payments.json'),
    ...(await readFolder(file('initiated'))).map((f) => parsePayment(f.data as Record<string, unknown>, `initiated/${f.name}`)),
    ...(await readFolder(file('reversed'))).map((f) => parsePayment(f.data as Record<string, unknown>, `reversed/${f.name}`)),
  ];

  return {
    openBanking: simulatedOpenBanking(directory),
    fetchAccounts: accounts,
    fetchBalances: balances,
    fetchPayments: payments,
    fetchConversions: async () => parseConversions((await readJson(file('conversions.json'))) ?? [], 'conversions.json'),
    fetchOrders: async () => parseOrders((await readJson(file('orders.json'))) ?? [], 'orders.json'),
    reversePayment: (request) => simulatedReversal({ directory, payments }, request),

    async initiatePayment(request: InitiationRequest): Promise<ProviderPayment> {
      const target = path.join(file('initiated'), fileName(request.idempotencyKey));
      const existing = await readJson(target);
      if (existing !== undefined) return parsePayment(existing as Record<string, unknown>, `initiated/${path.basename(target)}`);
      const known = new Set((await accounts()).map((a) => a.reference));
      if (!known.has(request.destinationAccountReference))
        throw providerRejected(`unknown destination account ${request.destinationAccountReference}`);
      if (request.sourceAccountReference) {
        if (!known.has(request.sourceAccountReference)) throw providerRejected(`unknown source account ${request.sourceAccountReference}`);
        const balance = (await balances()).find((b) => b.accountReference === request.sourceAccountReference && b.asset === request.asset);
        if (balance && balance.amount < request.amount)
          throw providerRejected(`insufficient funds on ${request.sourceAccountReference}: ${balance.amount} ${request.asset}`);
      }
      const item = {
        reference: `sim-${path.basename(target, '.json')}`,
        type: request.type,
        status: 'SUCCEEDED',
        amount: request.amount,
        asset: request.asset,
        scheme: 'other',
        createdAt: new Date().toISOString(),
        ...(request.sourceAccountReference ? { sourceAccountReference: request.sourceAccountReference } : {}),
        destinationAccountReference: request.destinationAccountReference,
        metadata: { ...request.metadata, reference: request.reference },
      };
      await writeJson(target, item);
      return parsePayment(item, `initiated/${path.basename(target)}`);
    },

    async createBankAccount(request: BankAccountRequest): Promise<ProviderAccount> {
      const item = {
        reference: request.reference,
        type: 'EXTERNAL',
        name: request.name,
        createdAt: new Date().toISOString(),
        metadata: request.metadata,
      };
      const target = path.join(file('created-accounts'), fileName(request.reference));
      const existing = await readJson(target);
      if (existing !== undefined) return parseAccount(existing as Record<string, unknown>, `created-accounts/${path.basename(target)}`);
      await writeJson(target, item);
      return parseAccount(item, `created-accounts/${path.basename(target)}`);
    },
  };
}
