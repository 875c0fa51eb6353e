import { compileNumscript, NumscriptError, runNumscript, type NumscriptStore } from '../../../numscript';
import { colored } from '../../../numscript/interpreter';
import { loadCorpus, type CorpusCase, type CorpusPosting } from '../../support/numscript-corpus';

/**
 * Formance's Numscript conformance corpus (182 cases that Formance's own interpreter passes) through our interpreter:
 * same postings in the same order, same metadata, same refusals for missing funds. Prints pass/fail per folder.
 */
class CorpusStore implements NumscriptStore {
  constructor(private readonly test: CorpusCase) {}
  async getBalance(account: string, asset: string): Promise<bigint> {
    return this.test.balances.find((b) => b.account === account && coloredAsset(b) === asset)?.amount ?? 0n;
  }
  async getAccountMetadata(account: string, key: string): Promise<string | undefined> {
    return this.test.metadata[account]?.[key];
  }
  async getScaledBalances(account: string, baseAsset: string): Promise<Record<string, bigint>> {
    const scaled = this.test.balances.filter(
      (b) => b.account === account && !b.color && (b.asset === baseAsset || b.asset.startsWith(`${baseAsset}/`)),
    );
    return Object.fromEntries(scaled.map((b) => [b.asset, b.amount]));
  }
}

/** Formance names a colored balance's asset `COIN_RED` (`USD_COL/4` with a precision); the store is asked by that name. */
const coloredAsset = (b: { asset: string; color?: string }) => (b.color ? colored(b.asset, b.color) : b.asset);

type Outcome = { ok: true } | { ok: false; why: string };

const show = (p: CorpusPosting) => `${p.source}>${p.destination}:${p.amount} ${p.asset}`;

async function runCase(test: CorpusCase): Promise<Outcome> {
  let result;
  try {
    result = await runNumscript(compileNumscript(test.source, { features: test.featureFlags }), test.variables, new CorpusStore(test));
  } catch (error) {
    if (test.expect.missingFunds && error instanceof NumscriptError && error.code === 'INSUFFICIENT_FUND') return { ok: true };
    return { ok: false, why: `threw ${error instanceof Error ? error.message : String(error)}` };
  }
  if (test.expect.missingFunds) return { ok: false, why: `expected missing funds, got ${result.postings.map(show).join(', ')}` };
  if (test.expect.postings) {
    const got = result.postings.map(show);
    const want = test.expect.postings.map(show);
    if (got.join('|') !== want.join('|')) return { ok: false, why: `postings ${got.join(', ')} instead of ${want.join(', ')}` };
  }
  if (test.expect.txMetadata && JSON.stringify(result.txMetadata) !== JSON.stringify(sorted(test.expect.txMetadata))) {
    if (JSON.stringify(sorted(result.txMetadata)) !== JSON.stringify(sorted(test.expect.txMetadata))) {
      return { ok: false, why: `tx metadata ${JSON.stringify(result.txMetadata)} instead of ${JSON.stringify(test.expect.txMetadata)}` };
    }
  }
  if (test.expect.metadata) {
    const got = Object.fromEntries(Object.entries(result.accountMetadata).map(([a, m]) => [a, sorted(m)]));
    const want = Object.fromEntries(Object.entries(test.expect.metadata).map(([a, m]) => [a, sorted(m)]));
    if (JSON.stringify(sorted(got)) !== JSON.stringify(sorted(want)))
      return { ok: false, why: `account metadata ${JSON.stringify(got)} instead of ${JSON.stringify(want)}` };
  }
  if (test.expect.movements) {
    const sum = new Map<string, bigint>();
    for (const p of result.postings)
      sum.set(`${p.source}>${p.destination} ${p.asset}`, (sum.get(`${p.source}>${p.destination} ${p.asset}`) ?? 0n) + p.amount);
    const got = [...sum.entries()].map(([k, v]) => `${k}:${v}`).sort();
    const want = test.expect.movements.map((m) => `${m.source}>${m.destination} ${m.asset}:${m.amount}`).sort();
    if (got.join('|') !== want.join('|')) return { ok: false, why: `movements ${got.join(', ')} instead of ${want.join(', ')}` };
  }
  const end = test.expect.endBalances ?? test.expect.endBalancesInclude;
  if (end) {
    for (const b of end) {
      const asset = coloredAsset(b);
      const start = test.balances.find((x) => x.account === b.account && coloredAsset(x) === asset)?.amount ?? 0n;
      const moved = result.postings.reduce(
        (acc, p) => acc + (p.asset === asset ? (p.destination === b.account ? p.amount : 0n) - (p.source === b.account ? p.amount : 0n) : 0n),
        0n,
      );
      if (start + moved !== b.amount) return { ok: false, why: `end balance of ${b.account} ${b.asset}: ${start + moved} instead of ${b.amount}` };
    }
  }
  return { ok: true };
}

function sorted<T>(map: Record<string, T>): Record<string, T> {
  return Object.fromEntries(Object.entries(map).sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0)));
}

const corpus = loadCorpus();

describe("Formance's Numscript conformance corpus", () => {
  const outcomes = new Map<string, Outcome>();
  afterAll(() => {
    const byFolder = new Map<string, { pass: number; fail: number }>();
    for (const test of corpus) {
      const row = byFolder.get(test.folder) ?? { pass: 0, fail: 0 };
      if (outcomes.get(test.name)?.ok) row.pass += 1;
      else row.fail += 1;
      byFolder.set(test.folder, row);
    }
    const lines = [...byFolder.entries()].map(
      ([folder, { pass, fail }]) => `  ${folder.padEnd(58)} ${String(pass).padStart(3)} pass ${String(fail).padStart(3)} fail`,
    );
    process.stdout.write(`\nNumscript conformance by folder:\n${lines.join('\n')}\n`);
  });

  it('holds the 182 cases Formance publishes', () => {
    expect(corpus.length).toBe(182);
  });

  it.each(corpus.map((test) => [test.name, test] as const))('%s', async (_name, test) => {
    const outcome = await runCase(test);
    outcomes.set(test.name, outcome);
    expect(outcome).toEqual({ ok: true });
  });
});
