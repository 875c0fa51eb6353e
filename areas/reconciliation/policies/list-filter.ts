import { validationError } from '../../../lib/errors';
import { MAX_JSON_DEPTH, parseJson } from '../../../lib/json';

/**
 * The `query` of Formance's reconciliation lists (JSON in the query string): `{}`, `{"$match": {field: value}}`, or an
 * `$and` of such matches, on the list's own fields. Anything else is refused with 400 rather than ignored: an ignored
 * filter answers the whole list as if it were the filtered one.
 * @returns column → value equalities
 */
export function parseListFilter(text: string | undefined, columns: Record<string, string>): Record<string, string> {
  if (text === undefined || text === '') return {};
  let expression: unknown;
  try {
    expression = parseJson(text, { maxDepth: MAX_JSON_DEPTH });
  } catch {
    throw validationError('query: not valid JSON');
  }
  const out: Record<string, string> = {};
  const fields = Object.keys(columns).join(', ');
  const visit = (node: unknown): void => {
    if (!node || typeof node !== 'object' || Array.isArray(node)) throw validationError('query: each expression is an object');
    const entries = Object.entries(node);
    if (entries.length === 0) return;
    if (entries.length !== 1) throw validationError('query: each expression has exactly one operator');
    const [op, operand] = entries[0];
    if (op === '$and') {
      if (!Array.isArray(operand)) throw validationError('query: $and takes an array');
      operand.forEach(visit);
      return;
    }
    if (op !== '$match') throw validationError(`query: unknown operator ${op}; this list takes $match and $and`);
    if (!operand || typeof operand !== 'object' || Array.isArray(operand) || Object.keys(operand).length !== 1)
      throw validationError('query: $match takes an object with exactly one field');
    const [field, value] = Object.entries(operand)[0];
    if (!Object.hasOwn(columns, field)) throw validationError(`query: unknown field "${field}"; the fields are ${fields}`);
    if (typeof value !== 'string') throw validationError(`query: field "${field}" takes a string`);
    out[columns[field]] = value;
  };
  visit(expression);
  return out;
}
