import { validationError } from '../../lib/errors';

/**
 * The wallets chart of accounts, in ledger `wallets` (see docs/wallets.md). Unlike Formance, ids
 * keep their dashes: addresses allow `-`, and stripping them could make two ids collide.
 */
export const WALLETS_LEDGER = 'wallets';
export const MAIN_BALANCE = 'main';

export const balanceAccount = (walletId: string, balance: string = MAIN_BALANCE): string => `wallets:${walletId}:${balance}`;
export const holdAccount = (holdId: string): string => `wallets:holds:${holdId}`;

export type Subject = { type: 'ACCOUNT'; identifier: string; ledger?: string } | { type: 'WALLET'; identifier: string; balance?: string };

/** The ledger address a subject designates. @throws ApiError VALIDATION for an account of another ledger */
export function subjectAccount(subject: Subject): string {
  if (subject.type === 'WALLET') return balanceAccount(subject.identifier, subject.balance || MAIN_BALANCE);
  if (subject.ledger && subject.ledger !== WALLETS_LEDGER) {
    throw validationError(`subject ledger "${subject.ledger}": wallets move money within ledger "${WALLETS_LEDGER}" only`);
  }
  return subject.identifier;
}

/** Tags every wallet transaction so op 9 can list them (Formance: `wallets/transaction=true`). */
export const walletTxMetadata = (walletId: string, metadata: Record<string, string> = {}): Record<string, string> => ({
  ...metadata,
  'wallets/transaction': 'true',
  'wallets/id': walletId,
});
