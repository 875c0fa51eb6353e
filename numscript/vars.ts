import type { Expr, VarDecl } from './ast';
import { compilationError, NumscriptError } from './errors';
import { balanceCalls, type Scope } from './evaluate';
import type { NumscriptStore } from './store';
import { EXPECTED_FORM, parseValue, type Value } from './values';

type Call = Extract<Expr, { kind: 'call' }>;

/**
 * Resolves the `vars` block in declaration order (so an origin may use the variables above it):
 * - a plain variable takes its value from the request's JSON, in Formance's string forms (monetary "USD/2 100",
 *   portion "1/3" or "25%", account "users:001", number "42" or 42, asset "USD/2"), written exactly (no padding);
 * - `meta(@acc, "key")` parses the account's metadata value with the same rules;
 * - any other origin is an expression: `balance(@acc, ASSET)` (must not be negative), `overdraft(@acc, ASSET)`,
 *   `get_asset(…)`, `get_amount(…)`, or with experimental-mid-script-function-call any expression (`1 + 2`).
 * Variables passed in JSON that the script does not declare are ignored, as Formance does.
 * @throws NumscriptError COMPILATION_FAILED (missing or ill-typed JSON value, a JSON value for a variable with an origin),
 *   VALIDATION (missing or ill-typed metadata, negative balance)
 */
export async function resolveVars(
  decls: VarDecl[],
  json: Record<string, unknown>,
  scope: Scope,
  store: NumscriptStore,
  prefetch: (calls: Call[]) => Promise<void>,
): Promise<void> {
  for (const decl of decls) {
    // As Formance's interpreter: a variable with an origin takes its value from it, and a value passed for it is ignored.
    const given = !decl.origin && Object.prototype.hasOwnProperty.call(json, decl.name) ? json[decl.name] : undefined;
    scope.set(decl.name, await resolveOne(decl, given, scope, store, prefetch));
  }
}

async function resolveOne(
  decl: VarDecl,
  given: unknown,
  scope: Scope,
  store: NumscriptStore,
  prefetch: (calls: Call[]) => Promise<void>,
): Promise<Value> {
  const origin = decl.origin;
  if (!origin) {
    if (given === undefined) throw compilationError(decl.pos, `variable $${decl.name}: missing value (expected ${EXPECTED_FORM[decl.type]})`);
    const value = parseValue(decl.type, given);
    if (!value) throw compilationError(decl.pos, `variable $${decl.name}: expected ${EXPECTED_FORM[decl.type]}`);
    return value;
  }
  if (origin.kind === 'call' && origin.name === 'meta') {
    const account = scope.account(origin.args[0]);
    const key = scope.string(origin.args[1]);
    const raw = await store.getAccountMetadata(account, key);
    if (raw === undefined) throw new NumscriptError('VALIDATION', `variable $${decl.name}: account @${account} has no metadata "${key}"`);
    const value = parseValue(decl.type, raw);
    if (!value) {
      throw new NumscriptError(
        'VALIDATION',
        `variable $${decl.name}: metadata "${key}" of @${account} is ${JSON.stringify(raw)}, not a ${EXPECTED_FORM[decl.type]}`,
      );
    }
    return value;
  }
  const calls: Call[] = [];
  balanceCalls(origin, calls);
  if (calls.length > 0) await prefetch(calls);
  try {
    return scope.value(origin);
  } catch (error) {
    if (error instanceof NumscriptError && error.code === 'VALIDATION') {
      throw new NumscriptError('VALIDATION', `variable $${decl.name}: ${error.message.replace(/^\d+:\d+: /, '')}`);
    }
    throw error;
  }
}
