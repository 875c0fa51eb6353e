import type { Db } from '../../db/knex';

type Vol = { input: bigint; output: bigint };

/**
 * The invariant sweep of reliability-perf.md §2.3 over one ledger, straight from the tables. Returns the list of
 * violations (empty when the ledger is sound), so a failing test shows all of them.
 */
export async function ledgerViolations(
  db: Db,
  ledger: string,
  overdraftAllowed: (address: string) => boolean = (a) => a === 'world',
): Promise<string[]> {
  const problems: string[] = [];
  const sums = await db('ledger_volumes').where({ ledger }).select('asset', db.raw('sum(input - output)::text AS total')).groupBy('asset');
  for (const s of sums) if (BigInt(s.total) !== 0n) problems.push(`asset ${s.asset} sums to ${s.total}, not 0`);

  const volumes = await db('ledger_volumes')
    .where({ ledger })
    .select('address', 'asset', db.raw('input::text AS input'), db.raw('output::text AS output'));
  const current = new Map<string, Vol>();
  for (const v of volumes) {
    current.set(`${v.address}|${v.asset}`, { input: BigInt(v.input), output: BigInt(v.output) });
    if (!overdraftAllowed(v.address) && BigInt(v.input) - BigInt(v.output) < 0n) problems.push(`${v.address} ${v.asset} is negative`);
  }

  const txs = await db('ledger_transactions').where({ ledger }).orderBy('id').select('id', 'postings', 'pre_commit_volumes', 'post_commit_volumes');
  txs.forEach((tx: any, index: number) => {
    if (BigInt(tx.id) !== BigInt(index)) problems.push(`txid ${tx.id} at position ${index}: txids are not dense from 0`);
  });
  // Replaying every transaction in txid order must reproduce each one's pre- and post-commit volumes and the final rows.
  const replay = new Map<string, Vol>();
  const get = (key: string) => replay.get(key) ?? { input: 0n, output: 0n };
  for (const tx of txs as any[]) {
    for (const [address, assets] of Object.entries<any>(tx.pre_commit_volumes)) {
      for (const [asset, v] of Object.entries<any>(assets)) {
        const seen = get(`${address}|${asset}`);
        if (seen.input !== BigInt(v.input) || seen.output !== BigInt(v.output))
          problems.push(`tx ${tx.id}: pre-commit ${address} ${asset} differs from the replay`);
      }
    }
    for (const p of tx.postings) {
      const s = get(`${p.source}|${p.asset}`);
      replay.set(`${p.source}|${p.asset}`, { input: s.input, output: s.output + BigInt(p.amount) });
      const d = get(`${p.destination}|${p.asset}`);
      replay.set(`${p.destination}|${p.asset}`, { input: d.input + BigInt(p.amount), output: d.output });
    }
    for (const [address, assets] of Object.entries<any>(tx.post_commit_volumes)) {
      for (const [asset, v] of Object.entries<any>(assets)) {
        const seen = get(`${address}|${asset}`);
        if (seen.input !== BigInt(v.input) || seen.output !== BigInt(v.output))
          problems.push(`tx ${tx.id}: post-commit ${address} ${asset} differs from pre + postings`);
      }
    }
  }
  for (const [key, v] of replay) {
    const row = current.get(key);
    if (!row || row.input !== v.input || row.output !== v.output) problems.push(`${key}: stored volumes differ from the replay of all transactions`);
  }
  return problems;
}

/**
 * Logs and events must match the committed transactions one for one, whatever was batched with what: each transaction
 * has one NEW_TRANSACTION log and COMMITTED_TRANSACTIONS event, or, for a revert, one REVERTED_TRANSACTION log and event.
 */
export async function logAndEventViolations(db: Db, ledger: string): Promise<string[]> {
  const problems: string[] = [];
  const txs = await db('ledger_transactions').where({ ledger }).orderBy('id').select('id');
  const logs = await db('ledger_logs')
    .where({ ledger })
    .whereIn('type', ['NEW_TRANSACTION', 'REVERTED_TRANSACTION'])
    .orderBy('id')
    .select('id', db.raw(`data->'transaction'->>'id' AS txid`));
  if (logs.length !== txs.length) problems.push(`${logs.length} transaction logs for ${txs.length} transactions`);
  logs.forEach((log: { id: string; txid: string }, i: number) => {
    if (log.txid !== txs[i]?.id) problems.push(`log ${log.id} names transaction ${log.txid}, expected ${txs[i]?.id}`);
  });
  const allLogs = await db('ledger_logs').where({ ledger }).orderBy('id').pluck('id');
  allLogs.forEach((id: string, i: number) => id !== String(i) && problems.push(`log id ${id} at position ${i}: not dense`));
  const events = await db('events_outbox')
    .whereIn('type', ['COMMITTED_TRANSACTIONS', 'REVERTED_TRANSACTION'])
    .whereRaw(`payload::jsonb->>'ledger' = ?`, [ledger])
    .count({ n: '*' });
  if (Number(events[0].n) !== txs.length) problems.push(`${events[0].n} transaction events for ${txs.length} transactions`);
  return problems;
}
