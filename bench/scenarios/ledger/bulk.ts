import type { Scenario } from '..';
import { authJson, call, settle, withDb } from '../../lib/helpers';
import { httpLoad } from '../../lib/http-load';
import { interleavedRounds } from '../../lib/rounds';
import type { Measurement } from '../../lib/stats';
import { cpuPerOperation } from '../../lib/cpu';
import type { BenchPlatform } from '../../lib/platform';
import { ASSET, FUNDS, dstAccount, srcAccount } from './floor';

/** Transactions per bulk and clients, as issue 38's comparison. */
const BULK = 50;
const CLIENTS = 32;
/**
 * Funded source accounts of the pair shape: a bulk takes BULK consecutive pairs after the previous one's, so the
 * CLIENTS bulks in flight touch disjoint accounts (independent pairs) until the range wraps.
 */
const PAIRS = BULK * CLIENTS;
/** Bulks per row and round at BENCH_SCALE=1. */
const BULKS = 200;
/** Each row runs once in each position of the cycle. */
const ROUNDS = 4;
const ROWS = ['pairs atomic', 'pairs non-atomic', 'world atomic', 'world non-atomic'] as const;
type Row = (typeof ROWS)[number];

let nextPair = 0;

/** One bulk of BULK one-posting transactions of 1 USD/2: between independent pairs, or from `world`. */
function bulkBody(row: Row): string {
  const fromWorld = row.startsWith('world');
  const elements = Array.from({ length: BULK }, () => {
    const k = nextPair++ % PAIRS;
    return {
      action: 'CREATE_TRANSACTION',
      data: { postings: [{ source: fromWorld ? 'world' : srcAccount(k), destination: dstAccount(k), amount: 1, asset: ASSET }] },
    };
  });
  return JSON.stringify(elements);
}

/**
 * What a committed ledger must hold after the rows: every acknowledged transaction (`acknowledged`), and at most `unknown`
 * more (bulks that timed out or failed may have committed), with dense txids and log ids, and every volume equal to
 * the sum of the postings that moved it. @returns the problems found, empty when exact.
 */
async function checkLedger(platform: BenchPlatform, ledger: string, acknowledged: number, unknown: number): Promise<string[]> {
  return withDb(
    platform,
    async (db) => {
      const problems: string[] = [];
      const ids = await db.raw(
        `SELECT (SELECT count(*)::int FROM ledger_transactions WHERE ledger = :ledger) AS txs,
                (SELECT (max(id) - min(id) + 1)::int FROM ledger_transactions WHERE ledger = :ledger) AS tx_span,
                (SELECT count(*)::int FROM ledger_logs WHERE ledger = :ledger) AS logs,
                (SELECT (max(id) - min(id) + 1)::int FROM ledger_logs WHERE ledger = :ledger) AS log_span`,
        { ledger },
      );
      const { txs, tx_span: txSpan, logs, log_span: logSpan } = ids.rows[0];
      if (txs < acknowledged || txs > acknowledged + unknown) problems.push(`${txs} transactions, ${acknowledged} acknowledged, ${unknown} unknown`);
      if (txSpan !== txs || logSpan !== logs) problems.push(`ids not dense: ${txs} transactions over ${txSpan} ids, ${logs} logs over ${logSpan}`);
      const volumes = await db.raw(
        `WITH p AS (
           SELECT e->>'source' AS s, e->>'destination' AS d, e->>'asset' AS asset, (e->>'amount')::numeric AS a
           FROM ledger_transactions t, jsonb_array_elements(t.postings::jsonb) AS e WHERE t.ledger = :ledger
         ), m AS (
           SELECT address, asset, sum(i) AS input, sum(o) AS output FROM (
             SELECT s AS address, asset, 0 AS i, a AS o FROM p UNION ALL SELECT d, asset, a, 0 FROM p
           ) x GROUP BY address, asset
         )
         SELECT count(*)::int AS wrong FROM m FULL JOIN (SELECT * FROM ledger_volumes WHERE ledger = :ledger AND (input <> 0 OR output <> 0)) v
           ON v.address = m.address AND v.asset = m.asset
         WHERE m.input IS DISTINCT FROM v.input OR m.output IS DISTINCT FROM v.output`,
        { ledger },
      );
      if (volumes.rows[0].wrong > 0) problems.push(`${volumes.rows[0].wrong} volume rows differ from the sum of their postings`);
      return problems;
    },
    1,
  );
}

/**
 * `ledger-bulk`: `POST /api/ledger/v2/{ledger}/_bulk` of BULK one-posting transactions at CLIENTS clients, between
 * independent pairs of funded accounts and from `world`, atomic and not, in ROUNDS interleaved rounds. Throughput and
 * CPU are per committed transaction; the ledger's transaction count, dense ids and exact volumes are checked at the end.
 */
export const ledgerBulkScenario: Scenario = {
  name: 'ledger-bulk',
  async run(platform, scale) {
    const ledger = `bench-bulk-${Date.now().toString(36)}`;
    const token = await platform.token();
    await call(platform, token, 'POST', `/api/ledger/v2/${ledger}`);
    const funding = Array.from({ length: PAIRS }, (_, k) => ({ source: 'world', destination: srcAccount(k), amount: Number(FUNDS), asset: ASSET }));
    for (let i = 0; i < funding.length; i += 500) {
      await call(platform, token, 'POST', `/api/ledger/v2/${ledger}/transactions`, { postings: funding.slice(i, i + 500) });
    }
    let acknowledged = Math.ceil(PAIRS / 500);
    let unknown = 0;
    const bulks = Math.max(CLIENTS, Math.round(BULKS * scale));
    const name = (row: Row) => `ledger bulk of ${BULK} ${row} c=${CLIENTS} (HTTP, ${ROUNDS} interleaved rounds)`;
    await settle(platform);
    const measured = await interleavedRounds(
      ROUNDS,
      ROWS,
      async (row) => {
        const round = await httpLoad({
          scenario: name(row),
          url: `${platform.apiUrl}/api/ledger/v2/${ledger}/_bulk${row.endsWith(' atomic') ? '?atomic=true' : ''}`,
          method: 'POST',
          connections: CLIENTS,
          amount: bulks,
          headers: authJson(token),
          requestBody: () => bulkBody(row),
        });
        // The warm-up's bulks (two per client) commit too; a bulk that timed out or failed may have committed or not.
        acknowledged += (bulks + 2 * CLIENTS - round.errors) * BULK;
        unknown += round.errors * BULK;
        return round;
      },
      // Outside the rounds' CPU count: the previous round's events are dispatched before the next starts.
      () => settle(platform),
    );
    const problems = await checkLedger(platform, ledger, acknowledged, unknown);
    return ROWS.map((row): Measurement => {
      const { measurement, cpu } = measured[row];
      const txs = measurement.operations * BULK;
      return {
        ...measurement,
        unit: 'tx/s',
        throughput: measurement.throughput * BULK,
        operations: txs,
        notes: `CPU ms/tx during the rounds: ${cpuPerOperation(new Map(), cpu, txs)}; ${problems.length ? `LEDGER CHECK FAILED: ${problems.join('; ')}` : 'counts, dense ids and volumes exact'}`,
      };
    });
  },
};
