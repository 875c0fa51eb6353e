/** What a reconciliation concludes from the two sides' balances. Pure: reconcile.ts reads, this decides. */
export interface ReconciliationOutcome {
  status: 'OK' | 'NOT_OK';
  /** The same assets on both sides: an asset one side lacks is 0 there. */
  ledgerBalances: Record<string, bigint>;
  paymentsBalances: Record<string, bigint>;
  /** |ledger + payments| per asset. */
  driftBalances: Record<string, bigint>;
  /** Every reason the status is NOT_OK, in asset order, joined by "; "; empty when OK. */
  error: string;
}

const abs = (n: bigint) => (n < 0n ? -n : n);

/**
 * Formance's rule: the selected ledger accounts and the pool must cancel each other out. The ledger side is the
 * ledger's view of the money held at the provider (the accounts money came from when it entered, e.g. `@world` or a
 * `bank:` account, which go negative by what the provider holds), the payments side is what the provider holds, so
 * their sum is 0 when they agree and its absolute value is the drift. An asset present on one side only, with a
 * balance other than 0, is reported as missing on the other side (its drift is that balance).
 */
export function computeDrift(ledger: Record<string, bigint>, payments: Record<string, bigint>): ReconciliationOutcome {
  const assets = [...new Set([...Object.keys(ledger), ...Object.keys(payments)])].sort();
  const outcome: ReconciliationOutcome = { status: 'OK', ledgerBalances: {}, paymentsBalances: {}, driftBalances: {}, error: '' };
  const reasons: string[] = [];
  for (const asset of assets) {
    const l = ledger[asset];
    const p = payments[asset];
    const drift = abs((l ?? 0n) + (p ?? 0n));
    outcome.ledgerBalances[asset] = l ?? 0n;
    outcome.paymentsBalances[asset] = p ?? 0n;
    outcome.driftBalances[asset] = drift;
    if (drift === 0n) continue;
    if (l === undefined) reasons.push(`missing asset ${asset} in ledgerBalances`);
    else if (p === undefined) reasons.push(`missing asset ${asset} in paymentsBalances`);
    else reasons.push(`balance drift for asset ${asset}`);
  }
  if (reasons.length > 0) {
    outcome.status = 'NOT_OK';
    outcome.error = reasons.join('; ');
  }
  return outcome;
}
