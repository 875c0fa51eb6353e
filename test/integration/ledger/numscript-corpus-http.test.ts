import { randomBytes } from 'node:crypto';
import { ADDRESS_PATTERN, ASSET_PATTERN } from '../../../lib/grammar';
import { api } from '../../support/http';
import { loadCorpus, type CorpusCase } from '../../support/numscript-corpus';

/**
 * Formance's Numscript conformance corpus through the HTTP API: each case on a fresh ledger created with the case's
 * feature flags as ledger features, its balances set up by a real transaction from @world and its account metadata
 * through the API, then the script posted to POST .../transactions. The postings (in order), the transaction metadata
 * and the account metadata must be the corpus's, and a missing-funds case must be refused with nothing written.
 *
 * The sample is every case the ledger can set up with real writes: an expectation of postings or of missing funds,
 * at least one posting, and balances that are positive amounts of uncoloured assets on accounts other than @world
 * (a negative balance or @world's own cannot be funded by a transaction), with addresses and assets the ledger takes.
 */
const address = new RegExp(ADDRESS_PATTERN);
const asset = new RegExp(ASSET_PATTERN);

function reproducible(test: CorpusCase): boolean {
  if (!(test.expect.missingFunds || (test.expect.postings && test.expect.postings.length > 0))) return false;
  if (test.balances.some((b) => b.color !== undefined || b.account === 'world' || b.amount < 0n || !address.test(b.account) || !asset.test(b.asset)))
    return false;
  return Object.keys(test.metadata).every((a) => address.test(a));
}

const corpus = loadCorpus();
const sample = corpus.filter(reproducible);
const show = (p: { source: string; destination: string; amount: unknown; asset: string }) =>
  `${p.source}>${p.destination}:${String(p.amount)} ${p.asset}`;

async function run(test: CorpusCase): Promise<string | undefined> {
  const ledger = `corpus-${randomBytes(6).toString('hex')}`;
  const features = Object.fromEntries(test.featureFlags.map((flag) => [flag, 'ON']));
  const created = await api('POST', `/api/ledger/v2/${ledger}`, { body: { features } });
  if (created.status !== 204) return `creating the ledger: ${created.status} ${created.text}`;
  const funding = test.balances
    .filter((b) => b.amount > 0n)
    .map((b) => ({ source: 'world', destination: b.account, amount: b.amount, asset: b.asset }));
  if (funding.length > 0) {
    const funded = await api('POST', `/api/ledger/v2/${ledger}/transactions`, { body: { postings: funding } });
    if (funded.status !== 200) return `funding: ${funded.status} ${funded.text}`;
  }
  for (const [account, metadata] of Object.entries(test.metadata)) {
    const saved = await api('POST', `/api/ledger/v2/${ledger}/accounts/${account}/metadata`, { body: metadata });
    if (saved.status !== 204) return `metadata of ${account}: ${saved.status} ${saved.text}`;
  }
  const res = await api('POST', `/api/ledger/v2/${ledger}/transactions`, { body: { script: { plain: test.source, vars: test.variables } } });
  const written = funding.length > 0 ? 1 : 0;
  if (test.expect.missingFunds) {
    if (res.status !== 400 || res.body.errorCode !== 'INSUFFICIENT_FUND') return `expected INSUFFICIENT_FUND, got ${res.status} ${res.text}`;
    const listed = (await api('GET', `/api/ledger/v2/${ledger}/transactions`)).body.cursor.data.length;
    return listed === written ? undefined : `the refused script wrote a transaction`;
  }
  if (res.status !== 200) return `${res.status} ${res.text}`;
  const got = res.body.data.postings.map(show).join(', ');
  const want = test.expect.postings!.map(show).join(', ');
  if (got !== want) return `postings ${got} instead of ${want}`;
  if (test.expect.txMetadata) {
    for (const [key, value] of Object.entries(test.expect.txMetadata)) {
      if (res.body.data.metadata[key] !== value) return `transaction metadata ${key} is ${res.body.data.metadata[key]} instead of ${value}`;
    }
  }
  for (const [account, metadata] of Object.entries(test.expect.metadata ?? {})) {
    const stored = (await api('GET', `/api/ledger/v2/${ledger}/accounts/${account}`)).body.data.metadata;
    for (const [key, value] of Object.entries(metadata))
      if (stored[key] !== value) return `metadata ${key} of ${account} is ${stored[key]} instead of ${value}`;
  }
  return undefined;
}

describe("Formance's Numscript conformance corpus through the HTTP API", () => {
  it('samples every case the ledger can set up with real writes, across the folders, core and experimental', () => {
    expect(sample.length).toBeGreaterThanOrEqual(100);
    expect(sample.some((t) => t.featureFlags.length > 0)).toBe(true);
    expect(sample.some((t) => t.expect.missingFunds)).toBe(true);
  });

  it("posts each sampled case and gets the corpus's postings, metadata or refusal", async () => {
    const failures: string[] = [];
    const perFolder = new Map<string, { pass: number; fail: number }>();
    for (const test of sample) {
      const why = await run(test);
      const tally = perFolder.get(test.folder) ?? { pass: 0, fail: 0 };
      if (why) {
        tally.fail += 1;
        failures.push(`${test.name}: ${why}`);
      } else tally.pass += 1;
      perFolder.set(test.folder, tally);
    }
    process.stdout.write(
      `Numscript corpus through HTTP (${sample.length} of ${corpus.length} cases):\n${[...perFolder].map(([folder, t]) => `  ${folder}: ${t.pass} passed, ${t.fail} failed`).join('\n')}\n`,
    );
    expect(failures).toEqual([]);
  }, 600_000);
});
