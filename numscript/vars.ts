import type { VarDecl } from './ast';
import { compilationError, NumscriptError } from './errors';
import type { Scope } from './evaluate';
import type { NumscriptStore } from './store';
import { EXPECTED_FORM, formatValue, parseValue, type Value } from './values';

/**
 * Resolves the `vars` block in declaration order (so an origin may use the variables above it):
 * - a plain variable takes its value from the request's JSON, in Formance's string forms (monetary "USD/2 100",
 *   portion "1/3" or "25%", account "users:001", number "42" or 42, asset "USD/2");
 * - `meta(@acc, "key")` parses the account's metadata value with the same rules;
 * - `balance(@acc, ASSET)` reads the (locked) balance and gives a monetary; a negative balance cannot be one.
 * Variables passed in JSON that the script does not declare are ignored, as Formance does.
 * @throws NumscriptError COMPILATION_FAILED (missing or ill-typed JSON value, a JSON value for a variable with an origin),
 *   VALIDATION (missing or ill-typed metadata, negative balance)
 */
export async function resolveVars(decls: VarDecl[], json: Record<string, unknown>, scope: Scope, store: NumscriptStore) {
  for (const decl of decls) {
    const given = Object.prototype.hasOwnProperty.call(json, decl.name) ? json[decl.name] : undefined;
    if (decl.origin && given !== undefined) {
      throw compilationError(decl.pos, `variable $${decl.name} gets its value from ${decl.origin.kind}() and cannot be passed`);
    }
    scope.set(decl.name, await resolveOne(decl, given, scope, store));
  }
}

async function resolveOne(decl: VarDecl, given: unknown, scope: Scope, store: NumscriptStore): Promise<Value> {
  const origin = decl.origin;
  if (!origin) {
    if (given === undefined) throw compilationError(decl.pos, `variable $${decl.name}: missing value (expected ${EXPECTED_FORM[decl.type]})`);
    const value = parseValue(decl.type, given);
    if (!value) throw compilationError(decl.pos, `variable $${decl.name}: expected ${EXPECTED_FORM[decl.type]}`);
    return value;
  }
  const account = scope.account(origin.account);
  if (origin.kind === 'meta') {
    const key = scope.string(origin.key);
    const raw = await store.getAccountMetadata(account, key);
    if (raw === undefined) throw new NumscriptError('VALIDATION', `variable $${decl.name}: account @${account} has no metadata "${key}"`);
    const value = parseValue(decl.type, raw);
    if (!value) {
      throw new NumscriptError('VALIDATION', `variable $${decl.name}: metadata "${key}" of @${account} is ${JSON.stringify(raw)}, not a ${EXPECTED_FORM[decl.type]}`);
    }
    return value;
  }
  const asset = scope.asset(origin.asset);
  const amount = await store.getBalance(account, asset);
  if (amount < 0n) {
    const shown = formatValue({ type: 'monetary', value: { asset, amount } });
    throw new NumscriptError('VALIDATION', `variable $${decl.name}: balance of @${account} is negative (${shown}), not a monetary`);
  }
  return { type: 'monetary', value: { asset, amount } };
}
