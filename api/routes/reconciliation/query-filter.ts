import { validationError } from '../../../lib/errors';
import { parseJson } from '../../../lib/json';

/**
 * Formance's SDK sends a reconciliation list's filters as one `query` parameter holding a JSON object
 * (`query={"ruleID":"…","status":"OPEN"}`). Each member must be one the list knows, with a value `allowed` accepts; any
 * other is 400, so a misspelt filter does not list everything.
 */
export function listFilters<K extends string>(
  query: string | undefined,
  allowed: Record<K, readonly string[] | 'string' | 'boolean'>,
): Partial<Record<K, string | boolean>> {
  if (query === undefined) return {};
  let parsed: unknown;
  try {
    parsed = parseJson(query);
  } catch {
    throw validationError('query.query: must be a JSON object');
  }
  if (parsed === null || typeof parsed !== 'object' || Array.isArray(parsed)) throw validationError('query.query: must be a JSON object');
  const filters: Partial<Record<K, string | boolean>> = {};
  for (const [key, value] of Object.entries(parsed)) {
    if (!Object.hasOwn(allowed, key)) throw validationError(`query.query.${key}: unknown filter (known: ${Object.keys(allowed).join(', ')})`);
    const rule = allowed[key as K];
    if (rule === 'boolean') {
      if (typeof value !== 'boolean') throw validationError(`query.query.${key}: must be a boolean`);
    } else if (typeof value !== 'string' || (rule !== 'string' && !rule.includes(value))) {
      throw validationError(`query.query.${key}: must be ${rule === 'string' ? 'a string' : `one of ${rule.join(', ')}`}`);
    }
    filters[key as K] = value as string | boolean;
  }
  return filters;
}
