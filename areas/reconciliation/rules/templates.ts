import { checkExpression, evaluateFilter } from '../../orchestration';
import { validationError } from '../../../lib/errors';
import { stringifyJson } from '../../../lib/json';
import type { Outcome, TemplateKind } from './model';

/**
 * The four rule templates: what each spec holds, the sources it reads and how a read becomes per-fingerprint outcomes.
 *
 * Every check is computed on exact integers (BigInt): amounts have no size limit on this platform, while CEL's ints are
 * 64-bit. A rule's `condition` (optional, CEL, the trigger engine of areas/orchestration) replaces the template's
 * pass predicate; it sees one fingerprint's figures as `event` and must give a bool. `explanationCEL` is the
 * condition in effect: the rule's own, or the template's representative one (which the platform runs in BigInt).
 */

export interface LedgerSource {
  type: 'ledger';
  ledger: string;
  /** An address or a pattern (`users:`, `users:...`), as the ledger's volumes list takes. */
  address?: string;
  /** Formance's JSON filter over the volumes' fields (address, asset, balance, metadata[key]), as text. */
  query?: string;
}
export interface PoolSource {
  type: 'pool';
  poolID: string;
}
export type Source = LedgerSource | PoolSource;

export type ThresholdOperator = 'lt' | 'lte' | 'gt' | 'gte';

export type Template =
  | { kind: 'ledger_vs_pool_drift'; ledger: LedgerSource; pool: PoolSource; assets?: string[]; tolerance: bigint; condition?: string }
  | { kind: 'ledger_invariant'; ledger: LedgerSource; assets?: string[]; condition?: string }
  | { kind: 'account_threshold'; ledger: LedgerSource; asset: string; operator: ThresholdOperator; threshold: bigint; condition?: string }
  | { kind: 'source_parity'; left: Source; right: Source; assets?: string[]; tolerance: bigint; condition?: string };

/** What a source read: a ledger's balances per account and asset, or a pool's per asset. */
export type SourceRead =
  { type: 'ledger'; balances: Array<{ account: string; asset: string; balance: bigint }> } | { type: 'pool'; balances: Map<string, bigint> };

type Spec = Record<string, unknown>;
const at = (field: string) => `body.templateSpec.${field}`;

function onlyFields(spec: Spec, allowed: string[], prefix = ''): void {
  for (const key of Object.keys(spec)) {
    if (!allowed.includes(key)) throw validationError(`${at(prefix + key)}: unknown field (allowed: ${allowed.join(', ')})`);
  }
}

function text(spec: Spec, field: string, required: boolean, prefix = ''): string | undefined {
  const value = spec[field];
  if (value === undefined) {
    if (required) throw validationError(`${at(prefix + field)}: required`);
    return undefined;
  }
  if (typeof value !== 'string' || value.length === 0 || value.length > 1000)
    throw validationError(`${at(prefix + field)}: must be a non-empty string of at most 1000 characters`);
  return value;
}

function integer(spec: Spec, field: string, options: { required: boolean; nonNegative?: boolean }, prefix = ''): bigint | undefined {
  const value = spec[field];
  if (value === undefined) {
    if (options.required) throw validationError(`${at(prefix + field)}: required`);
    return undefined;
  }
  let parsed: bigint | undefined;
  if (typeof value === 'bigint') parsed = value;
  else if (typeof value === 'number' && Number.isSafeInteger(value)) parsed = BigInt(value);
  else if (typeof value === 'string' && /^-?\d{1,200}$/.test(value)) parsed = BigInt(value);
  if (parsed === undefined) throw validationError(`${at(prefix + field)}: must be an integer (a JSON integer or a string of digits)`);
  if (options.nonNegative && parsed < 0n) throw validationError(`${at(prefix + field)}: must be 0 or more`);
  return parsed;
}

function assetsOf(spec: Spec): string[] | undefined {
  const value = spec.assets;
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0 || value.length > 100 || value.some((a) => typeof a !== 'string' || a.length === 0)) {
    throw validationError(`${at('assets')}: must be a list of 1 to 100 asset names`);
  }
  return value as string[];
}

function ledgerSource(spec: Spec, prefix = ''): LedgerSource {
  const ledger = text(spec, 'ledger', true, prefix)!;
  const address = text(spec, 'address', false, prefix);
  const query = spec.query;
  let queryText: string | undefined;
  if (query !== undefined) {
    if (typeof query === 'string') queryText = query;
    else if (query !== null && typeof query === 'object' && !Array.isArray(query)) queryText = stringifyJson(query);
    else throw validationError(`${at(prefix + 'query')}: must be a ledger filter object (e.g. {"$match": {"address": "banks:"}})`);
  }
  return { type: 'ledger', ledger, ...(address ? { address } : {}), ...(queryText ? { query: queryText } : {}) };
}

function poolSource(spec: Spec, prefix = ''): PoolSource {
  return { type: 'pool', poolID: text(spec, 'poolID', true, prefix)! };
}

function anySource(spec: Spec, field: 'left' | 'right'): Source {
  const value = spec[field];
  if (value === null || typeof value !== 'object' || Array.isArray(value))
    throw validationError(`${at(field)}: required, a source: {"ledger", "address"?, "query"?} or {"poolID"}`);
  const source = value as Spec;
  if (source.poolID !== undefined) {
    onlyFields(source, ['poolID'], `${field}.`);
    return poolSource(source, `${field}.`);
  }
  onlyFields(source, ['ledger', 'address', 'query'], `${field}.`);
  return ledgerSource(source, `${field}.`);
}

function conditionOf(spec: Spec): string | undefined {
  const condition = text(spec, 'condition', false);
  if (condition === undefined) return undefined;
  const problem = checkExpression(condition, 'RECONCILIATION_CHECK', 'filter');
  if (problem) throw validationError(`${at('condition')}: invalid CEL expression: ${problem}`);
  return condition;
}

const OPERATORS: ThresholdOperator[] = ['lt', 'lte', 'gt', 'gte'];

/** Validates a spec for its kind (400 naming the field) and returns the template the engine runs. */
export function parseTemplate(kind: TemplateKind, spec: Spec): Template {
  const common = ['condition', 'assets'];
  switch (kind) {
    case 'ledger_vs_pool_drift':
      onlyFields(spec, ['ledger', 'address', 'query', 'poolID', 'tolerance', ...common]);
      return {
        kind,
        ledger: ledgerSource(spec),
        pool: poolSource(spec),
        assets: assetsOf(spec),
        tolerance: integer(spec, 'tolerance', { required: false, nonNegative: true }) ?? 0n,
        condition: conditionOf(spec),
      };
    case 'ledger_invariant':
      onlyFields(spec, ['ledger', 'address', 'query', ...common]);
      return { kind, ledger: ledgerSource(spec), assets: assetsOf(spec), condition: conditionOf(spec) };
    case 'account_threshold': {
      onlyFields(spec, ['ledger', 'address', 'query', 'asset', 'operator', 'threshold', 'condition']);
      const ledger = ledgerSource(spec);
      if (!ledger.address) throw validationError(`${at('address')}: required (an account address, or a pattern for one alert per matching account)`);
      const operator = spec.operator;
      if (typeof operator !== 'string' || !OPERATORS.includes(operator as ThresholdOperator))
        throw validationError(`${at('operator')}: required, one of ${OPERATORS.join(', ')} (the side of the threshold that is a breach)`);
      return {
        kind,
        ledger,
        asset: text(spec, 'asset', true)!,
        operator: operator as ThresholdOperator,
        threshold: integer(spec, 'threshold', { required: true })!,
        condition: conditionOf(spec),
      };
    }
    case 'source_parity':
      onlyFields(spec, ['left', 'right', 'tolerance', ...common]);
      return {
        kind,
        left: anySource(spec, 'left'),
        right: anySource(spec, 'right'),
        assets: assetsOf(spec),
        tolerance: integer(spec, 'tolerance', { required: false, nonNegative: true }) ?? 0n,
        condition: conditionOf(spec),
      };
  }
}

const NOT_BREACH: Record<ThresholdOperator, string> = { lt: '>=', lte: '>', gt: '<=', gte: '<' };

/** The CEL that states when a fingerprint passes: the rule's condition, or the template's own predicate. */
export function explanationOf(template: Template): string {
  if (template.condition) return template.condition;
  switch (template.kind) {
    case 'ledger_vs_pool_drift':
    case 'source_parity':
      return 'event.drift <= event.tolerance && event.drift >= -event.tolerance';
    case 'ledger_invariant':
      return 'event.positive + event.negative == 0';
    case 'account_threshold':
      return `event.balance ${NOT_BREACH[template.operator]} event.threshold`;
  }
}

/** The template's sources, keyed as Formance echoes them in pitPerSource: `<label>#<index>`. */
export function sourcesOf(template: Template): Array<{ key: string; source: Source }> {
  const keyed = (sources: Source[]) =>
    sources.map((source, i) => ({ key: `${source.type === 'ledger' ? `ledger:${source.ledger}` : `pool:${source.poolID}`}#${i}`, source }));
  switch (template.kind) {
    case 'ledger_vs_pool_drift':
      return keyed([template.ledger, template.pool]);
    case 'ledger_invariant':
    case 'account_threshold':
      return keyed([template.ledger]);
    case 'source_parity':
      return keyed([template.left, template.right]);
  }
}

function perAsset(read: SourceRead): Map<string, bigint> {
  if (read.type === 'pool') return read.balances;
  const sums = new Map<string, bigint>();
  for (const row of read.balances) sums.set(row.asset, (sums.get(row.asset) ?? 0n) + row.balance);
  return sums;
}

const abs = (n: bigint) => (n < 0n ? -n : n);

/** Runs the rule's condition on one fingerprint's figures; throws with the fingerprint named when it cannot. */
function conditionPasses(condition: string, fingerprint: string, event: Record<string, unknown>): boolean {
  const result = evaluateFilter(condition, event);
  if (result.error) throw new Error(`condition on ${fingerprint}: ${result.error}`);
  return result.match;
}

const str = (n: bigint) => n.toString();

/**
 * The outcomes of one evaluation, one per fingerprint, sorted by fingerprint. `reads` are the sources' reads in the
 * order of sourcesOf(). Throws (an ERROR evaluation) when the rule's condition cannot be evaluated.
 */
export function outcomesOf(template: Template, reads: SourceRead[], explanation: string): Outcome[] {
  const outcomes: Outcome[] = [];
  const selected = (assets: Iterable<string>) =>
    [...new Set(assets)].filter((a) => !('assets' in template) || !template.assets || template.assets.includes(a)).sort();
  switch (template.kind) {
    case 'ledger_vs_pool_drift':
    case 'source_parity': {
      const [leftName, rightName] = template.kind === 'ledger_vs_pool_drift' ? ['ledger', 'pool'] : ['left', 'right'];
      const left = perAsset(reads[0]);
      const right = perAsset(reads[1]);
      for (const asset of selected([...left.keys(), ...right.keys(), ...(template.assets ?? [])])) {
        const l = left.get(asset) ?? 0n;
        const r = right.get(asset) ?? 0n;
        const drift = l - r;
        const fingerprint = `asset:${asset}`;
        const passed = template.condition
          ? conditionPasses(template.condition, fingerprint, { asset, [leftName]: l, [rightName]: r, drift, tolerance: template.tolerance })
          : abs(drift) <= template.tolerance;
        const balances = { [leftName]: str(l), [rightName]: str(r) };
        outcomes.push(
          passed
            ? { fingerprint, passed, proof: balances }
            : {
                fingerprint,
                passed,
                evidence: {
                  asset,
                  balances,
                  drift: str(drift),
                  tolerance: str(template.tolerance),
                  cel: explanation,
                  ...(!left.has(asset) || !right.has(asset) ? { missingOn: !left.has(asset) ? leftName : rightName } : {}),
                },
              },
        );
      }
      return outcomes;
    }
    case 'ledger_invariant': {
      const rows = reads[0].type === 'ledger' ? reads[0].balances : [];
      const sides = new Map<string, { positive: bigint; negative: bigint }>();
      for (const row of rows) {
        const side = sides.get(row.asset) ?? { positive: 0n, negative: 0n };
        if (row.balance > 0n) side.positive += row.balance;
        else side.negative += row.balance;
        sides.set(row.asset, side);
      }
      for (const asset of selected([...sides.keys(), ...(template.assets ?? [])])) {
        const { positive, negative } = sides.get(asset) ?? { positive: 0n, negative: 0n };
        const fingerprint = `asset:${asset}`;
        const passed = template.condition
          ? conditionPasses(template.condition, fingerprint, { asset, positive, negative, balance: positive + negative })
          : positive + negative === 0n;
        const proof = { positive: str(positive), negative: str(negative) };
        outcomes.push(
          passed
            ? { fingerprint, passed, proof }
            : { fingerprint, passed, evidence: { asset, balances: proof, balance: str(positive + negative), cel: explanation } },
        );
      }
      return outcomes;
    }
    case 'account_threshold': {
      const rows = reads[0].type === 'ledger' ? reads[0].balances.filter((r) => r.asset === template.asset) : [];
      const byAccount = new Map(rows.map((r) => [r.account, r.balance]));
      // An exact address with no movement yet holds 0: it is checked, not skipped.
      const address = template.ledger.address!;
      if (!address.includes(':...') && !address.endsWith(':') && !address.includes('*') && !byAccount.has(address)) byAccount.set(address, 0n);
      for (const account of [...byAccount.keys()].sort()) {
        const balance = byAccount.get(account)!;
        const fingerprint = `account:${account}|asset:${template.asset}`;
        const breach = {
          lt: balance < template.threshold,
          lte: balance <= template.threshold,
          gt: balance > template.threshold,
          gte: balance >= template.threshold,
        }[template.operator];
        const passed = template.condition
          ? conditionPasses(template.condition, fingerprint, { account, asset: template.asset, balance, threshold: template.threshold })
          : !breach;
        outcomes.push(
          passed
            ? { fingerprint, passed, proof: { balance: str(balance) } }
            : {
                fingerprint,
                passed,
                evidence: {
                  account,
                  asset: template.asset,
                  balances: { balance: str(balance) },
                  threshold: str(template.threshold),
                  operator: template.operator,
                  cel: explanation,
                },
              },
        );
      }
      return outcomes;
    }
  }
}
