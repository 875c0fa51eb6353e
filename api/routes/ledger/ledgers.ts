import { createLedger, getLedger, listLedgers, updateLedgerMetadata, type Ledger } from '../../../areas/ledger';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf, metadataSchema } from '../../schemas/common';
import { createLedgerBodySchema, ledgerParams, ledgerSchema, listLedgersQuery, newLedgerParams } from '../../schemas/ledger';

const tags = ['ledger'];
const ledgerView = (l: Ledger) => ({ name: l.name, addedAt: l.addedAt, bucket: l.bucket, metadata: l.metadata });

export const listLedgersRoute = defineRoute(
  { method: 'get', path: '/api/ledger/v2', operationId: 'listLedgers', summary: 'List ledgers, oldest first (op 10)', tags, responses: { 200: { description: 'Ledgers', schema: cursorOf(ledgerSchema) } } },
  authenticate('ledger:read'),
  validate({ query: listLedgersQuery }),
  async function listLedgersHandler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listLedgers(ctx.deps.db, list), (l: Ledger) => [l.id], ledgerView);
  },
);

export const createLedgerRoute = defineRoute(
  { method: 'post', path: '/api/ledger/v2/{ledger}', operationId: 'createLedger', summary: 'Create a ledger (an existing name is 400 LEDGER_ALREADY_EXISTS)', tags, responses: { 204: { description: 'Created' } } },
  authenticate('ledger:write'),
  validate({ params: newLedgerParams, body: createLedgerBodySchema, bodyRequired: false }),
  async function createLedgerHandler(ctx) {
    await createLedger(ctx.deps.db, ctx.state.input.params.ledger, ctx.state.input.body ?? {});
    ctx.status = 204;
  },
);

export const readLedgerRoute = defineRoute(
  { method: 'get', path: '/api/ledger/v2/{ledger}', operationId: 'getLedger', summary: 'Read a ledger', tags, responses: { 200: { description: 'Ledger', schema: dataOf(ledgerSchema) } } },
  authenticate('ledger:read'),
  validate({ params: ledgerParams }),
  async function readLedgerHandler(ctx) {
    ctx.body = { data: ledgerView(await getLedger(ctx.deps.db, ctx.state.input.params.ledger)) };
  },
);

export const updateLedgerMetadataRoute = defineRoute(
  { method: 'put', path: '/api/ledger/v2/{ledger}/metadata', operationId: 'updateLedgerMetadata', summary: 'Merge keys into a ledger\'s metadata', tags, responses: { 204: { description: 'Updated' } } },
  authenticate('ledger:write'),
  validate({ params: ledgerParams, body: metadataSchema }),
  async function updateLedgerMetadataHandler(ctx) {
    await updateLedgerMetadata(ctx.deps.db, ctx.state.input.params.ledger, ctx.state.input.body);
    ctx.status = 204;
  },
);

export const ledgerAdminRoutes = [listLedgersRoute, createLedgerRoute, readLedgerRoute, updateLedgerMetadataRoute];
