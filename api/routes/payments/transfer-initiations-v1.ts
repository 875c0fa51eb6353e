import {
  connectorTransferV1,
  createTransferInitiationV1,
  deleteTransferInitiationV1,
  getTransferInitiationV1,
  listTransferInitiationsV1,
  retryTransferInitiationV1,
  reverseTransferInitiationV1,
  transferInitiationV1Key,
  updateTransferInitiationStatusV1,
} from '../../../areas/payments';
import type { AppContext } from '../../context';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf, objectSchema, stringSchema } from '../../schemas/common';
import { idParams } from '../../schemas/payments';
import {
  accountsListV1Query,
  connectorTransferV1Schema,
  providerParams,
  reverseInputV1Schema,
  transferInitiationInputV1Schema,
  transferInitiationV1Schema,
  transferStatusInputV1Schema,
} from '../../schemas/payments-v1';
import { noContent, tags, temporalOf } from './common';

/** Formance's payments v1 transfer initiations, over the platform's payment initiations (areas/payments/initiations/transfer-initiations-v1.ts). */
const base = '/api/payments/transfer-initiations';
const params = idParams('transferId');
const deps = (ctx: Pick<AppContext, 'deps'>) => ({ db: ctx.deps.db, temporal: temporalOf(ctx) });

export const createTransferInitiationV1Route = defineRoute(
  {
    method: 'post',
    path: base,
    operationId: 'createTransferInitiationV1',
    summary: 'Create a transfer or payout; `validated: true` sends it at once (v1)',
    tags,
    responses: { 200: { description: 'Transfer initiation', schema: dataOf(transferInitiationV1Schema) } },
  },
  authenticate('payments:write'),
  validate({ body: transferInitiationInputV1Schema }),
  async function createTransferInitiationV1Handler(ctx) {
    const { provider: _provider, ...body } = ctx.state.input.body;
    ctx.body = { data: await createTransferInitiationV1(deps(ctx), { ...body, amount: BigInt(body.amount) }) };
  },
);

export const listTransferInitiationsV1Route = defineRoute(
  {
    method: 'get',
    path: base,
    operationId: 'listTransferInitiationsV1',
    summary: 'Transfer initiations, newest first (v1)',
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(transferInitiationV1Schema) } },
  },
  authenticate('payments:read'),
  validate({ query: accountsListV1Query }),
  async function listTransferInitiationsV1Handler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listTransferInitiationsV1(ctx.deps.db, list), transferInitiationV1Key);
  },
);

export const readTransferInitiationV1Route = defineRoute(
  {
    method: 'get',
    path: `${base}/{transferId}`,
    operationId: 'readTransferInitiationV1',
    summary: 'A transfer initiation with its adjustments and payments (v1)',
    tags,
    responses: { 200: { description: 'Transfer initiation', schema: dataOf(transferInitiationV1Schema) } },
  },
  authenticate('payments:read'),
  validate({ params }),
  async function readTransferInitiationV1Handler(ctx) {
    ctx.body = { data: await getTransferInitiationV1(ctx.deps.db, ctx.state.input.params.transferId) };
  },
);

export const deleteTransferInitiationV1Route = defineRoute(
  {
    method: 'delete',
    path: `${base}/{transferId}`,
    operationId: 'deleteTransferInitiationV1',
    summary: 'Delete a transfer initiation still waiting for validation (v1)',
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params }),
  async function deleteTransferInitiationV1Handler(ctx) {
    await deleteTransferInitiationV1(ctx.deps.db, ctx.state.input.params.transferId);
    ctx.status = 204;
  },
);

export const updateTransferInitiationStatusV1Route = defineRoute(
  {
    method: 'post',
    path: `${base}/{transferId}/status`,
    operationId: 'updateTransferInitiationStatusV1',
    summary: 'Validate or reject a transfer initiation (v1)',
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params, body: transferStatusInputV1Schema }),
  async function updateTransferInitiationStatusV1Handler(ctx) {
    await updateTransferInitiationStatusV1(deps(ctx), ctx.state.input.params.transferId, ctx.state.input.body.status);
    ctx.status = 204;
  },
);

export const retryTransferInitiationV1Route = defineRoute(
  {
    method: 'post',
    path: `${base}/{transferId}/retry`,
    operationId: 'retryTransferInitiationV1',
    summary: 'Retry a FAILED transfer initiation (v1)',
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params }),
  async function retryTransferInitiationV1Handler(ctx) {
    await retryTransferInitiationV1(deps(ctx), ctx.state.input.params.transferId);
    ctx.status = 204;
  },
);

export const reverseTransferInitiationV1Route = defineRoute(
  {
    method: 'post',
    path: `${base}/{transferId}/reverse`,
    operationId: 'reverseTransferInitiationV1',
    summary: 'Reverse a PROCESSED transfer initiation, wholly or partly, and wait for the provider',
    tags,
    description: 'The v3 reversal, awaited (up to 30 s): 204 once REVERSED; 400 when refused at once or by the provider.',
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params, body: reverseInputV1Schema }),
  async function reverseTransferInitiationV1Handler(ctx) {
    const {
      body,
      params: { transferId },
    } = ctx.state.input;
    await reverseTransferInitiationV1(deps(ctx), transferId, { ...body, amount: BigInt(body.amount) });
    ctx.status = 204;
  },
);

export const connectorTransferV1Route = defineRoute(
  {
    method: 'post',
    path: '/api/payments/connectors/{connector}/transfers',
    operationId: 'connectorTransferV1',
    summary: "Transfer between two accounts of the provider's connector (v1)",
    tags,
    description: "A TRANSFER initiation through the provider's newest installed connector, sent at once; the answer is its id.",
    responses: { 200: { description: "The transfer initiation's id", schema: objectSchema({ id: stringSchema() }, ['id']) } },
  },
  authenticate('payments:write'),
  validate({ params: providerParams, body: connectorTransferV1Schema }),
  async function connectorTransferV1Handler(ctx) {
    const body = ctx.state.input.body;
    ctx.body = { id: await connectorTransferV1(deps(ctx), ctx.state.input.params.connector, { ...body, amount: BigInt(body.amount) }) };
  },
);

export const transferInitiationV1Routes = [
  createTransferInitiationV1Route,
  listTransferInitiationsV1Route,
  readTransferInitiationV1Route,
  deleteTransferInitiationV1Route,
  updateTransferInitiationStatusV1Route,
  retryTransferInitiationV1Route,
  reverseTransferInitiationV1Route,
  connectorTransferV1Route,
];
