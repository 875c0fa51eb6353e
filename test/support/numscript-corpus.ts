import fs from 'node:fs';
import path from 'node:path';
import { parseJson } from '../../lib/json';

/**
 * Formance's Numscript conformance corpus, read where the workplace keeps it (../shared/reference, beside the
 * checkout; NUMSCRIPT_CONFORMANCE_DIR overrides). Its README gives the format; the cases are data, never copied here.
 */
export const CORPUS_DIR = process.env.NUMSCRIPT_CONFORMANCE_DIR ? path.resolve(process.env.NUMSCRIPT_CONFORMANCE_DIR) : findShared();

/** `shared/reference/numscript-conformance` beside the checkout or beside one of its parents (a worktree elsewhere). */
function findShared(): string {
  const wanted = path.join('shared', 'reference', 'numscript-conformance');
  for (let dir = path.resolve(__dirname, '../../..'); ; dir = path.dirname(dir)) {
    if (fs.existsSync(path.join(dir, wanted))) return path.join(dir, wanted);
    if (path.dirname(dir) === dir) return path.resolve(__dirname, '../../..', wanted);
  }
}

export interface CorpusBalance {
  account: string;
  asset: string;
  amount: bigint;
  color?: string;
}
export interface CorpusPosting {
  source: string;
  destination: string;
  amount: bigint;
  asset: string;
}
export interface CorpusCase {
  /** `folder/file.num: it` */
  name: string;
  folder: string;
  file: string;
  source: string;
  featureFlags: string[];
  balances: CorpusBalance[];
  variables: Record<string, string>;
  metadata: Record<string, Record<string, string>>;
  expect: {
    postings?: CorpusPosting[];
    txMetadata?: Record<string, string>;
    metadata?: Record<string, Record<string, string>>;
    endBalances?: CorpusBalance[];
    endBalancesInclude?: CorpusBalance[];
    movements?: CorpusPosting[];
    missingFunds?: boolean;
  };
}

const toBig = (value: unknown): bigint => (typeof value === 'bigint' ? value : BigInt(value as number));
const balances = (list: unknown): CorpusBalance[] =>
  ((list as Array<Record<string, unknown>>) ?? []).map((b) => ({
    account: b.account as string,
    asset: b.asset as string,
    amount: toBig(b.amount),
    ...(b.color !== undefined ? { color: b.color as string } : {}),
  }));
const postings = (list: unknown): CorpusPosting[] =>
  (list as Array<Record<string, unknown>>).map((p) => ({
    source: p.source as string,
    destination: p.destination as string,
    amount: toBig(p.amount),
    asset: coloredName(p.asset as string, p.color as string | undefined),
  }));

/** A colored posting's asset as Formance names it: `COIN` in `RED` is `COIN_RED`, `USD/4` in `COL` is `USD_COL/4`. */
function coloredName(asset: string, color: string | undefined): string {
  if (!color) return asset;
  const [name, precision] = asset.split('/');
  return precision === undefined ? `${name}_${color}` : `${name}_${color}/${precision}`;
}

/** Balances of the file, then the case's: the case's entry for an (account, asset, color) replaces the file's. */
function mergeBalances(base: CorpusBalance[], over: CorpusBalance[]): CorpusBalance[] {
  const key = (b: CorpusBalance) => `${b.account}\u0000${b.asset}\u0000${b.color ?? ''}`;
  const merged = new Map(base.map((b) => [key(b), b]));
  for (const b of over) merged.set(key(b), b);
  return [...merged.values()];
}

function mergeMetadata(base: Record<string, Record<string, string>>, over: Record<string, Record<string, string>>) {
  const merged: Record<string, Record<string, string>> = {};
  for (const [account, values] of Object.entries(base)) merged[account] = { ...values };
  for (const [account, values] of Object.entries(over)) merged[account] = { ...(merged[account] ?? {}), ...values };
  return merged;
}

function walk(dir: string): string[] {
  return fs.readdirSync(dir, { withFileTypes: true }).flatMap((entry) => {
    const full = path.join(dir, entry.name);
    if (entry.isDirectory()) return walk(full);
    return entry.name.endsWith('.num') ? [full] : [];
  });
}

/** Every case of the corpus, in a stable order (folder, file, case). */
export function loadCorpus(dir = CORPUS_DIR): CorpusCase[] {
  if (!fs.existsSync(dir)) throw new Error(`Numscript conformance corpus not found at ${dir} (set NUMSCRIPT_CONFORMANCE_DIR)`);
  const cases: CorpusCase[] = [];
  for (const file of walk(dir).sort()) {
    const specsFile = `${file}.specs.json`;
    if (!fs.existsSync(specsFile)) continue;
    const specs = parseJson(fs.readFileSync(specsFile, 'utf8')) as Record<string, unknown>;
    const folder = path.relative(dir, path.dirname(file)) || '.';
    const source = fs.readFileSync(file, 'utf8');
    for (const test of (specs.testCases as Array<Record<string, unknown>>) ?? []) {
      const endBalances = test['expect.endBalances'];
      cases.push({
        name: `${folder}/${path.basename(file)}: ${test.it}`,
        folder,
        file: path.basename(file),
        source,
        featureFlags: [...((specs.featureFlags as string[]) ?? []), ...((test.featureFlags as string[]) ?? [])],
        balances: mergeBalances(balances(specs.balances), balances(test.balances)),
        variables: { ...((specs.variables as Record<string, string>) ?? {}), ...((test.variables as Record<string, string>) ?? {}) },
        metadata: mergeMetadata(
          (specs.metadata as Record<string, Record<string, string>>) ?? {},
          (test.metadata as Record<string, Record<string, string>>) ?? {},
        ),
        expect: {
          ...(test['expect.postings'] !== undefined ? { postings: postings(test['expect.postings']) } : {}),
          ...(test['expect.txMetadata'] !== undefined ? { txMetadata: test['expect.txMetadata'] as Record<string, string> } : {}),
          ...(test['expect.metadata'] !== undefined ? { metadata: test['expect.metadata'] as Record<string, Record<string, string>> } : {}),
          ...(Array.isArray(endBalances) ? { endBalances: balances(endBalances) } : {}),
          ...(endBalances && !Array.isArray(endBalances) ? { endBalancesInclude: balances((endBalances as { include: unknown }).include) } : {}),
          ...(test['expect.endBalances.include'] !== undefined ? { endBalancesInclude: balances(test['expect.endBalances.include']) } : {}),
          ...(test['expect.movements'] !== undefined ? { movements: postings(test['expect.movements']) } : {}),
          ...(test['expect.error.missingFunds'] === true ? { missingFunds: true } : {}),
        },
      });
    }
  }
  return cases;
}
