import type { LedgerTransaction } from '../types';
import { TRANSACTION_SHAPES } from './transaction-json';

/** JSON views of a transaction, derived from its shapes (transaction-json.ts): v2 (Formance's V2Tx, also the events' payload) and v1. */
export const v2TransactionView = (tx: LedgerTransaction) => TRANSACTION_SHAPES.v2.view(tx);
export const v1TransactionView = (tx: LedgerTransaction) => TRANSACTION_SHAPES.v1.view(tx);
