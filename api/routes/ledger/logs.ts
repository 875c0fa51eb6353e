import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import getRawBody from 'raw-body';
import { importLogs, listLogs, logChainStatus, streamLogs, verifyLogChain, type LedgerLog } from '../../../areas/ledger';
import { ApiError } from '../../../lib/errors';
import { stringifyJson } from '../../../lib/json';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { ledgerParams } from '../../schemas/ledger';
import { listLogsQuery, logChainSchema, logSchema, logVerificationSchema } from '../../schemas/ledger-logs';

const tags = ['ledger'];
/** An import is replayed in one database transaction; beyond this size, split the ledger's history otherwise. */
export const MAX_IMPORT_BYTES = 64 * 1024 * 1024;

/** Formance's model requires `hash`: a log the hasher has not reached yet reads `""` in the list (an export leaves it out). */
export const wireLog = (log: LedgerLog) => ({ id: log.id, type: log.type, data: log.data, date: log.date, hash: log.hash ?? '' });
const exportedLog = (log: LedgerLog) => ({ id: log.id, type: log.type, data: log.data, date: log.date, ...(log.hash !== undefined ? { hash: log.hash } : {}) });

export const listLogsRoute = defineRoute(
  { method: 'get', path: '/api/ledger/v2/{ledger}/logs', operationId: 'listLogs', summary: "List the ledger's logs, newest first", tags, responses: { 200: { description: 'Logs', schema: cursorOf(logSchema) } } },
  authenticate('ledger:read'),
  validate({ params: ledgerParams, query: listLogsQuery }),
  async function listLogsHandler(ctx) {
    const { list } = ctx.state.input;
    const { startTime, endTime, query } = list.filters;
    const filters = { startTime: startTime ? new Date(startTime) : undefined, endTime: endTime ? new Date(endTime) : undefined, query };
    const page = await listLogs(ctx.deps.db, ctx.state.input.params.ledger, filters, list);
    ctx.body = cursorEnvelope(list, page, (log: LedgerLog) => [log.id.toString()], wireLog);
  },
);

export const logChainRoute = defineRoute(
  { method: 'get', path: '/api/ledger/v2/{ledger}/logs/chain', operationId: 'readLogChain', summary: 'How far the hasher has gone: the last hashed log and the lag', tags, responses: { 200: { description: 'Chain status', schema: dataOf(logChainSchema) } } },
  authenticate('ledger:read'),
  validate({ params: ledgerParams }),
  async function logChainHandler(ctx) {
    ctx.body = { data: await logChainStatus(ctx.deps.db, ctx.state.input.params.ledger) };
  },
);

export const verifyLogsRoute = defineRoute(
  {
    method: 'post', path: '/api/ledger/v2/{ledger}/logs/verify', operationId: 'verifyLogs', tags,
    summary: 'Recompute the hash chain and report the first broken log',
    description: 'Reads every log in id order and recomputes each hash; logs the hasher has not reached yet are counted but not checked. A broken chain is a 200 with `valid: false`.',
    responses: { 200: { description: 'Verification', schema: dataOf(logVerificationSchema) } },
  },
  authenticate('ledger:write'),
  validate({ params: ledgerParams }),
  async function verifyLogsHandler(ctx) {
    ctx.body = { data: await verifyLogChain(ctx.deps.db, ctx.state.input.params.ledger) };
  },
);

export const exportLogsRoute = defineRoute(
  {
    method: 'post', path: '/api/ledger/v2/{ledger}/logs/export', operationId: 'exportLogs', tags,
    summary: 'Export every log, oldest first, as newline-delimited JSON',
    description: 'One V2Log per line (application/octet-stream, as Formance). Logs not hashed yet carry no `hash`, and an import refuses them: export once `GET .../logs/chain` shows a lag of 0.',
    responses: { 200: { description: 'The logs' } },
  },
  authenticate('ledger:write'),
  validate({ params: ledgerParams }),
  async function exportLogsHandler(ctx) {
    const logs = streamLogs(ctx.deps.db, ctx.state.input.params.ledger, { stopAtGap: true });
    // The first read answers LEDGER_NOT_FOUND as a status, before any byte is sent.
    const first = await logs.next();
    async function* lines() {
      if (!first.done) yield `${stringifyJson(exportedLog(first.value))}\n`;
      for await (const log of logs) yield `${stringifyJson(exportedLog(log))}\n`;
    }
    ctx.type = 'application/octet-stream';
    ctx.body = Readable.from(lines());
  },
);

/** Reads an import's body, the raw text the JSON parser left unread (api/middleware/json-body.ts). */
async function readImport(request: IncomingMessage): Promise<string> {
  try {
    return await getRawBody(request, { length: request.headers['content-length'] || undefined, limit: MAX_IMPORT_BYTES, encoding: 'utf8' });
  } catch (error) {
    if ((error as { type?: string }).type === 'entity.too.large') throw new ApiError('PAYLOAD_TOO_LARGE', `a log import is at most ${MAX_IMPORT_BYTES} bytes`);
    throw error;
  }
}

export const importLogsRoute = defineRoute(
  {
    method: 'post', path: '/api/ledger/v2/{ledger}/logs/import', operationId: 'importLogs', tags,
    summary: 'Import an export into an empty ledger',
    description: 'The body is an export (application/octet-stream or application/x-ndjson, up to 64 MiB). Its chain is verified first; then every log is replayed through the write path in one transaction. A gap, a hash that does not verify, a log that does not apply or a ledger that is not empty is 400 `IMPORT` naming the first offending log (`details.logId`), and nothing is written.',
    responses: { 204: { description: 'Imported (as Formance: no body; `GET .../logs/chain` counts the logs)' } },
  },
  authenticate('ledger:write'),
  validate({ params: ledgerParams }),
  async function importLogsHandler(ctx) {
    const text = await readImport(ctx.req);
    await importLogs(ctx.deps.db, ctx.state.input.params.ledger, text);
    ctx.status = 204;
  },
);

export const logRoutes = [listLogsRoute, logChainRoute, verifyLogsRoute, exportLogsRoute, importLogsRoute];
