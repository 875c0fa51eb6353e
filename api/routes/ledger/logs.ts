import type { IncomingMessage } from 'node:http';
import { Readable } from 'node:stream';
import { StringDecoder } from 'node:string_decoder';
import {
  exportLogs,
  importLogs,
  listLogPublicKeys,
  listLogs,
  logChainStatus,
  verifyLogChain,
  type LedgerLog,
  type StreamedLog,
} from '../../../areas/ledger';
import { ApiError } from '../../../lib/errors';
import { stringifyJson } from '../../../lib/json';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { ledgerParams } from '../../schemas/ledger';
import { importLogsQuery, listLogsQuery, logChainSchema, logSchema, logSigningKeysSchema, logVerificationSchema } from '../../schemas/ledger-logs';

const tags = ['ledger'];
/** An import is replayed in one database transaction; beyond this size, split the ledger's history otherwise. */
export const MAX_IMPORT_BYTES = 64 * 1024 * 1024;

/** Formance's model requires `hash`: a log the hasher has not reached yet reads `""` in the list (an export leaves it out). */
export const wireLog = (log: LedgerLog) => ({ id: log.id, type: log.type, data: log.data, date: log.date, hash: log.hash ?? '' });
const exportedLog = (log: StreamedLog) => ({
  id: log.id,
  type: log.type,
  data: log.data,
  date: log.date,
  ...(log.hash !== undefined ? { hash: log.hash } : {}),
  ...(log.checkpoint ? { checkpoint: log.checkpoint } : {}),
});

export const listLogsRoute = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/v2/{ledger}/logs',
    operationId: 'listLogs',
    summary: "List the ledger's logs, newest first",
    tags,
    responses: { 200: { description: 'Logs', schema: cursorOf(logSchema) } },
  },
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
  {
    method: 'get',
    path: '/api/ledger/v2/{ledger}/logs/chain',
    operationId: 'readLogChain',
    summary: 'How far the hasher has gone: the last hashed log and the lag',
    tags,
    responses: { 200: { description: 'Chain status', schema: dataOf(logChainSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams }),
  async function logChainHandler(ctx) {
    ctx.body = { data: await logChainStatus(ctx.deps.db, ctx.state.input.params.ledger) };
  },
);

export const verifyLogsRoute = defineRoute(
  {
    method: 'post',
    path: '/api/ledger/v2/{ledger}/logs/verify',
    operationId: 'verifyLogs',
    tags,
    summary: 'Recompute the hash chain, replay the log and compare it with the stored state',
    description:
      "Reads every log in id order and recomputes each hash; logs the hasher has not reached yet are counted but not checked. It also replays the log through the ledger's rules and compares the result with what is stored (volumes per account and asset, account and transaction metadata, transactions and their ids), in one read-only snapshot that does not block writes. Each difference is a mismatch with its kind (HASH_MISMATCH, SEQUENCE_GAP, VOLUME_MISMATCH, METADATA_MISMATCH, TRANSACTION_MISMATCH). A broken chain or any mismatch is a 200 with `valid: false`.",
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
    method: 'post',
    path: '/api/ledger/v2/{ledger}/logs/export',
    operationId: 'exportLogs',
    tags,
    summary: 'Export every log, oldest first, as newline-delimited JSON',
    description:
      "One V2Log per line (application/octet-stream, as Formance). Every 100th log (ids 99, 199, ...) and the last hashed one carry `checkpoint: {keyId, signature}`, an Ed25519 signature of the chain head under the platform's log signing key. Logs not hashed yet carry no `hash`, and an import refuses them: export once `GET .../logs/chain` shows a lag of 0.",
    responses: { 200: { description: 'The logs' } },
  },
  authenticate('ledger:write'),
  validate({ params: ledgerParams }),
  async function exportLogsHandler(ctx) {
    const logs = exportLogs(ctx.deps.db, ctx.state.input.params.ledger);
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

const tooLarge = () => new ApiError('PAYLOAD_TOO_LARGE', `a log import is at most ${MAX_IMPORT_BYTES} bytes`);

/** The lines of a body, split as its chunks arrive, at most MAX_IMPORT_BYTES (413 beyond). */
async function* bodyLines(request: IncomingMessage): AsyncGenerator<string[]> {
  if (Number(request.headers['content-length'] ?? 0) > MAX_IMPORT_BYTES) throw tooLarge();
  const decoder = new StringDecoder('utf8');
  let bytes = 0;
  let rest = '';
  for await (const chunk of request as AsyncIterable<Buffer>) {
    bytes += chunk.length;
    if (bytes > MAX_IMPORT_BYTES) throw tooLarge();
    const lines = (rest + decoder.write(chunk)).split('\n');
    rest = lines.pop()!;
    yield lines;
  }
  rest += decoder.end();
  if (rest !== '') yield [rest];
}

/**
 * An import's lines (the JSON parser leaves this body unread: api/middleware/json-body.ts). The body is read as fast as
 * it arrives, a line array per chunk, whatever the pace of the replay: Node's requestTimeout bounds how long a request
 * takes to arrive, and a replay that held the body back (backpressure) would have it cut at 120 s. The body is never
 * held whole, nor parsed as one document: each line is parsed by the import when it gets to it. Once the import stops
 * (a refused log), the rest of the body is read and dropped, so the answer can still be sent.
 */
function importLines(request: IncomingMessage): AsyncGenerator<string> {
  const queue: string[][] = [];
  let finished = false;
  let failure: unknown;
  let stopped = false;
  let wake: (() => void) | undefined;
  const signal = () => {
    wake?.();
    wake = undefined;
  };
  void (async () => {
    try {
      for await (const lines of bodyLines(request)) {
        if (!stopped) queue.push(lines);
        signal();
      }
    } catch (error) {
      failure = error;
    } finally {
      finished = true;
      signal();
    }
  })();
  return (async function* lines() {
    try {
      for (;;) {
        if (failure !== undefined) throw failure;
        const next = queue.shift();
        if (next) {
          yield* next;
          continue;
        }
        if (finished) return;
        await new Promise<void>((resolve) => (wake = resolve));
      }
    } finally {
      stopped = true;
      queue.length = 0;
    }
  })();
}

export const importLogsRoute = defineRoute(
  {
    method: 'post',
    path: '/api/ledger/v2/{ledger}/logs/import',
    operationId: 'importLogs',
    tags,
    summary: 'Import an export into an empty ledger',
    description:
      "The body is an export (application/octet-stream or application/x-ndjson, up to 64 MiB), read and replayed as it arrives, in one database transaction. Every log must extend the chain, every checkpoint must be signed by a trusted key (the platform's, or `publicKey`), the last log must carry one, and every log must be exactly what replaying it through the ledger's rules writes. Anything else, or a ledger that is not empty, is 400 `IMPORT` naming the first offending log (`errorDetails.logId`), and nothing is written; a client that goes away rolls the import back.",
    responses: { 204: { description: 'Imported (as Formance: no body; `GET .../logs/chain` counts the logs)' } },
  },
  authenticate('ledger:write'),
  validate({ params: ledgerParams, query: importLogsQuery }),
  async function importLogsHandler(ctx) {
    const { publicKey } = ctx.state.input.query;
    // A client that leaves before the answer aborts the import, which then rolls back instead of committing for nobody.
    const left = new AbortController();
    ctx.res.once('close', () => {
      if (!ctx.res.writableFinished) left.abort();
    });
    await importLogs(ctx.deps.db, ctx.state.input.params.ledger, importLines(ctx.req), {
      ...(publicKey !== undefined ? { publicKeys: publicKey.split(',') } : {}),
      signal: left.signal,
    });
    ctx.status = 204;
  },
);

export const logSigningKeysRoute = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/v2/_/log-signing-keys',
    operationId: 'listLogSigningKeys',
    tags,
    summary: "The public keys that sign the logs' checkpoints, newest (current) first",
    description:
      "Every key the deployment has used, so checkpoints signed before a rotation still verify. Give them to another deployment's import (`publicKey`) to import this one's exports there.",
    responses: { 200: { description: 'The keys', schema: dataOf(logSigningKeysSchema) } },
  },
  authenticate('ledger:read'),
  async function listLogSigningKeysHandler(ctx) {
    ctx.body = { data: await listLogPublicKeys(ctx.deps.db) };
  },
);

export const logRoutes = [listLogsRoute, logChainRoute, verifyLogsRoute, exportLogsRoute, importLogsRoute, logSigningKeysRoute];
