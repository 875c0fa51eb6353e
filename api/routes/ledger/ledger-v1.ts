import {
  createTransactionV1,
  getMapping,
  ledgerNames,
  ledgerStats,
  ledgerStorageInfo,
  listLogs,
  logV1TypesExcluded,
  updateMapping,
  v1LogView,
  v1TransactionView,
  type LedgerLog,
} from '../../../areas/ledger';
import { isApiError } from '../../../lib/errors';
import { PLATFORM_VERSION } from '../../../lib/version';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { ledgerParams, ledgerStatsSchema } from '../../schemas/ledger';
import {
  configInfoSchema,
  ledgerInfoSchema,
  listLogsV1Query,
  mappingSchema,
  previewQuery,
  scriptResponseSchema,
  scriptV1BodySchema,
  v1LogSchema,
} from '../../schemas/ledger-v1';
import { v1ErrorCode } from './v1-errors';

const tags = ['ledger'];

export const ledgerServiceInfoV1Route = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/_info',
    operationId: 'getLedgerServiceInfoV1',
    summary: 'Ledger service information (v1): version and every ledger name',
    tags,
    responses: { 200: { description: 'Info', schema: dataOf(configInfoSchema) } },
  },
  authenticate('ledger:read'),
  validate({}),
  async function ledgerServiceInfoV1Handler(ctx) {
    ctx.body = {
      data: { server: 'ledger', version: PLATFORM_VERSION, config: { storage: { driver: 'postgres', ledgers: await ledgerNames(ctx.deps.db) } } },
    };
  },
);

export const ledgerInfoV1Route = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/{ledger}/_info',
    operationId: 'getLedgerInfoV1',
    summary: "A ledger's storage migrations (v1)",
    tags,
    responses: { 200: { description: 'Info', schema: dataOf(ledgerInfoSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams }),
  async function ledgerInfoV1Handler(ctx) {
    const { ledger } = ctx.state.input.params;
    const migrations = await ledgerStorageInfo(ctx.deps.db, ledger);
    ctx.body = { data: { name: ledger, storage: { migrations: migrations.map((m) => ({ ...m, version: String(m.version) })) } } };
  },
);

export const ledgerStatsV1Route = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/{ledger}/stats',
    operationId: 'readStatsV1',
    summary: 'How many accounts and transactions a ledger holds (v1)',
    tags,
    responses: { 200: { description: 'Stats', schema: dataOf(ledgerStatsSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams }),
  async function ledgerStatsV1Handler(ctx) {
    ctx.body = { data: await ledgerStats(ctx.deps.db, ctx.state.input.params.ledger) };
  },
);

export const listLogsV1Route = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/{ledger}/logs',
    operationId: 'listLogsV1',
    tags,
    summary: "List the ledger's logs, newest first, in v1's shapes",
    description:
      'A revert reads as the NEW_TRANSACTION of the revert transaction; DELETE_METADATA logs (no v1 type) are left out; `hash` is "" until hashed.',
    responses: { 200: { description: 'Logs', schema: cursorOf(v1LogSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams, query: listLogsV1Query }),
  async function listLogsV1Handler(ctx) {
    const { list } = ctx.state.input;
    const { startTime, endTime, after } = list.filters;
    const filters = {
      startTime: startTime ? new Date(startTime) : undefined,
      endTime: endTime ? new Date(endTime) : undefined,
      before: after !== undefined ? BigInt(after) : undefined,
      excludeTypes: [...logV1TypesExcluded],
    };
    const page = await listLogs(ctx.deps.db, ctx.state.input.params.ledger, filters, list);
    ctx.body = cursorEnvelope(list, page, (log: LedgerLog) => [log.id.toString()], v1LogView);
  },
);

export const getMappingV1Route = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/{ledger}/mapping',
    operationId: 'getMappingV1',
    summary: "The ledger's v1 mapping (`null` when never set)",
    tags,
    responses: { 200: { description: 'Mapping', schema: dataOf({ oneOf: [mappingSchema, { type: 'null' }] }) } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams }),
  async function getMappingV1Handler(ctx) {
    ctx.body = { data: await getMapping(ctx.deps.db, ctx.state.input.params.ledger) };
  },
);

export const updateMappingV1Route = defineRoute(
  {
    method: 'put',
    path: '/api/ledger/{ledger}/mapping',
    operationId: 'updateMappingV1',
    tags,
    summary: "Replace the ledger's v1 mapping; v1 writes then check its contracts",
    responses: { 200: { description: 'The saved mapping', schema: dataOf(mappingSchema) } },
  },
  authenticate('ledger:write'),
  validate({ params: ledgerParams, body: mappingSchema }),
  async function updateMappingV1Handler(ctx) {
    ctx.body = { data: await updateMapping(ctx.deps.db, ctx.state.input.params.ledger, ctx.state.input.body) };
  },
);

/**
 * v1's script: 200 with `{transaction}`, or 200 with the error in the body (`{errorCode, errorMessage}`, v1's codes),
 * as Formance v1 answers; a malformed request is still a 400 and a server fault still a 5xx.
 */
export const runScriptV1Route = defineRoute(
  {
    method: 'post',
    path: '/api/ledger/{ledger}/script',
    operationId: 'runScriptV1',
    tags,
    summary: 'Run a Numscript (v1): 200 with the transaction or the error',
    responses: { 200: { description: 'The transaction, or the error', schema: scriptResponseSchema } },
  },
  authenticate('ledger:write'),
  validate({ params: ledgerParams, query: previewQuery, body: scriptV1BodySchema }),
  async function runScriptV1Handler(ctx) {
    const { params, query, body } = ctx.state.input;
    if (body.plain.trim() === '') {
      ctx.body = { errorCode: 'NO_SCRIPT', errorMessage: 'no script to execute' };
      return;
    }
    const input = {
      script: { plain: body.plain, vars: body.vars ?? {} },
      ...(body.reference !== undefined ? { reference: body.reference } : {}),
      ...(body.metadata ? { metadata: body.metadata } : {}),
    };
    try {
      const { transaction } = await createTransactionV1(ctx.deps.db, params.ledger, input, { dryRun: query.preview === true });
      ctx.body = { transaction: v1TransactionView(transaction) };
    } catch (error) {
      if (!isApiError(error) || error.status >= 500) throw error;
      ctx.body = { errorCode: v1ErrorCode(error.code), errorMessage: error.message };
    }
  },
);

export const ledgerV1Routes = [
  ledgerServiceInfoV1Route,
  ledgerInfoV1Route,
  ledgerStatsV1Route,
  listLogsV1Route,
  getMappingV1Route,
  updateMappingV1Route,
  runScriptV1Route,
];
