import { notFound, validationError } from '../../../lib/errors';
import { stringifyJson } from '../../../lib/json';
import type { Page, PageRequest } from '../../../db/pagination';
import { listAccounts, type LedgerAccount } from './accounts';
import { listLogs } from '../logs/logs';
import type { LedgerLog } from '../logs/log';
import { findSchema } from '../rules/schemas';
import { listTransactions } from './transactions';
import type { Executor, LedgerTransaction } from '../types';
import { listVolumes, type VolumesWithBalance } from './volumes-list';

const RESOURCES = ['accounts', 'transactions', 'logs', 'volumes'] as const;
type Resource = (typeof RESOURCES)[number];

/** Formance's V2QueryTemplate, as a ledger schema version stores it under `queries`. */
export interface QueryTemplate {
  resource?: Resource;
  description?: string;
  params?: Record<string, unknown>;
  body?: unknown;
  vars?: Record<string, { type?: string; default?: unknown }>;
}

export type QueryRun =
  | { resource: 'accounts'; page: Page<LedgerAccount> }
  | { resource: 'transactions'; page: Page<LedgerTransaction> }
  | { resource: 'logs'; page: Page<LedgerLog> }
  | { resource: 'volumes'; page: Page<VolumesWithBalance> };

const isRecord = (value: unknown): value is Record<string, unknown> => typeof value === 'object' && value !== null && !Array.isArray(value);

/** The template `id` of the ledger's schema version; the schema version must exist. @throws ApiError NOT_FOUND */
export async function findQueryTemplate(db: Executor, ledger: string, schemaVersion: string, id: string): Promise<QueryTemplate> {
  const schema = await findSchema(db, ledger, schemaVersion);
  const template = isRecord(schema.queries) ? schema.queries[id] : undefined;
  if (!isRecord(template)) throw notFound(`query template "${id}" not found in schema version "${schemaVersion}" of ledger "${ledger}"`);
  return template as QueryTemplate;
}

/**
 * Replaces `${name}` in every string of the template's body by the variable's value (the request's, else the
 * template's default). A string that is only a placeholder takes the value as it is, so a number default stays a
 * number; a placeholder inside a longer string is interpolated. @throws ApiError VALIDATION (a variable with no value)
 */
export function bindVariables(body: unknown, declared: QueryTemplate['vars'], given: Record<string, string>): unknown {
  const values: Record<string, unknown> = {};
  for (const [name, spec] of Object.entries(declared ?? {})) {
    if (given[name] !== undefined) values[name] = given[name];
    else if (spec?.default !== undefined) values[name] = spec.default;
  }
  const undeclared = Object.keys(given).find((name) => !(name in (declared ?? {})));
  if (undeclared !== undefined) throw validationError(`vars.${undeclared}: the template declares no such variable`);
  const valueOf = (name: string) => {
    if (!(name in values)) throw validationError(`vars.${name}: required by the template (it has no default)`);
    return values[name];
  };
  const bind = (node: unknown): unknown => {
    if (typeof node === 'string') {
      const whole = /^\$\{([A-Za-z_][A-Za-z0-9_]*)\}$/.exec(node);
      if (whole) return valueOf(whole[1]);
      return node.replace(/\$\{([A-Za-z_][A-Za-z0-9_]*)\}/g, (_m, name: string) => String(valueOf(name)));
    }
    if (Array.isArray(node)) return node.map(bind);
    if (isRecord(node)) return Object.fromEntries(Object.entries(node).map(([k, v]) => [k, bind(v)]));
    return node;
  };
  return bind(body);
}

/**
 * Formance's runQuery: the template's body, with its variables bound, is the JSON filter of its resource's list
 * (accounts, transactions, logs or volumes), paged like that list. The template's `params` are not applied.
 * @throws ApiError LEDGER_NOT_FOUND, NOT_FOUND (schema version, template), VALIDATION (variables, resource, filter)
 */
export async function runQuery(
  db: Executor,
  ledger: string,
  request: { id: string; schemaVersion: string; vars?: Record<string, string> },
  page: PageRequest,
): Promise<QueryRun> {
  const template = await findQueryTemplate(db, ledger, request.schemaVersion, request.id);
  const resource = template.resource;
  if (resource === undefined || !RESOURCES.includes(resource)) {
    throw validationError(`query template "${request.id}": resource must be one of ${RESOURCES.join(', ')}`);
  }
  const bound = template.body === undefined ? undefined : bindVariables(template.body, template.vars, request.vars ?? {});
  const query = bound === undefined || (isRecord(bound) && Object.keys(bound).length === 0) ? undefined : stringifyJson(bound);
  switch (resource) {
    case 'accounts':
      return { resource, page: await listAccounts(db, ledger, { query }, page) };
    case 'transactions':
      return { resource, page: await listTransactions(db, ledger, { query }, page) };
    case 'logs':
      return { resource, page: await listLogs(db, ledger, { query }, page) };
    case 'volumes':
      return { resource, page: await listVolumes(db, ledger, { query }, page) };
  }
}
