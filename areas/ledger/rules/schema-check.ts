import { validationError } from '../../../lib/errors';
import { defaultMetadata, findAccount } from './chart';
import type { ParsedSchema } from './schemas';
import type { Posting } from '../types';

/** The 400 of a write that breaks its schema version: Formance answers VALIDATION, naming the rule here. */
const violation = (schema: ParsedSchema, where: string, address: string, rule: string) =>
  validationError(`${where}: account "${address}" is not allowed by schema "${schema.version}": ${rule}`);

/** Every account of every posting must be an account of the chart. @throws ApiError VALIDATION naming the posting and the rule */
export function assertPostingsInChart(schema: ParsedSchema, postings: Posting[], where = 'postings'): void {
  postings.forEach((p, i) => {
    for (const side of ['source', 'destination'] as const) {
      const found = findAccount(schema.tree, p[side]);
      if ('violation' in found) throw violation(schema, `${where}[${i}].${side}`, p[side], found.violation);
    }
  });
}

/** An account a metadata write targets must be an account of the chart. @throws ApiError VALIDATION */
export function assertAccountInChart(schema: ParsedSchema, address: string, where: string): void {
  const found = findAccount(schema.tree, address);
  if ('violation' in found) throw violation(schema, where, address, found.violation);
}

/** The chart's default metadata of each account, for the accounts that have some (the addresses must be in the chart). */
export function chartDefaults(schema: ParsedSchema, addresses: string[]): Record<string, Record<string, string>> {
  const out: Record<string, Record<string, string>> = {};
  for (const address of addresses) {
    const found = findAccount(schema.tree, address);
    if ('account' in found) {
      const defaults = defaultMetadata(found.account);
      if (Object.keys(defaults).length > 0) out[address] = defaults;
    }
  }
  return out;
}

/** A transaction template of the schema, by name. @throws ApiError VALIDATION */
export function templateScript(schema: ParsedSchema | undefined, name: string): string {
  if (!schema) throw validationError(`script.template: "${name}" names a template of a schema: send schemaVersion too`);
  const template = schema.transactions?.[name];
  if (!template) {
    const known = Object.keys(schema.transactions ?? {}).sort();
    throw validationError(
      `script.template: schema "${schema.version}" has no transaction template "${name}"${known.length ? ` (templates: ${known.join(', ')})` : ''}`,
    );
  }
  return template.script;
}
