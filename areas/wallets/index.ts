/**
 * The wallets area's in-process API, all on the ledger `wallets`: routes and orchestration
 * activities call these functions.
 */
export { holdAccount, type Subject } from './chart';
export { createWallet, getWallet, listWallets, updateWalletMetadata, type Wallet } from './wallets';
export { createBalance, listBalances, getBalance, type WalletBalance } from './balances';
export { creditWallet, debitWallet, type WalletDebitResult } from './movements';
export { confirmHold, voidHold, getHold, listHolds, type Hold } from './holds';
export { getWalletSummary, type WalletSummary } from './summary';
export { listWalletTransactions, walletTransactionView } from './transactions';
