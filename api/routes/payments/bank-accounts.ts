import { bankAccountKey, getBankAccount, listBankAccounts } from '../../../areas/payments';
import { forwardBankAccount } from '../../../areas/payments';
import { createBankAccount, updateBankAccountMetadata } from '../../../areas/payments';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { bankAccountInputSchema, bankAccountSchema, forwardInputSchema, idParams, taskSchema } from '../../schemas/payments';
import { v3MetadataBody, v3PlainListQuery } from '../../schemas/payments-v3';
import { idempotencyHeader, idempotencyKey, noContent, tags, temporalOf } from './common';

const params = idParams('bankAccountId');

export const createBankAccountRoute = defineRoute(
  {
    method: 'post',
    path: '/api/payments/v3/bank-accounts',
    operationId: 'createBankAccount',
    summary: 'Create a bank account (IBAN or account number)',
    tags,
    headers: idempotencyHeader,
    responses: { 201: { description: 'Created', schema: dataOf({ type: 'string', format: 'uuid' }) } },
  },
  authenticate('payments:write'),
  validate({ body: bankAccountInputSchema }),
  async function createBankAccountHandler(ctx) {
    ctx.status = 201;
    ctx.body = { data: await createBankAccount(ctx.deps.db, ctx.state.input.body, { idempotencyKey: idempotencyKey(ctx) }) };
  },
);

/** The read is served on the v3 path and on the older one. */
const readBankAccount = (path: string, operationId: string) =>
  defineRoute(
    {
      method: 'get',
      path,
      operationId,
      summary: 'Read a bank account (op 8); IBAN and account number are masked',
      tags,
      responses: { 200: { description: 'Bank account', schema: dataOf(bankAccountSchema) } },
    },
    authenticate('payments:read'),
    validate({ params }),
    async function readBankAccountHandler(ctx) {
      ctx.body = { data: await getBankAccount(ctx.deps.db, ctx.state.input.params.bankAccountId) };
    },
  );
export const readBankAccountRoute = readBankAccount('/api/payments/bank-accounts/{bankAccountId}', 'readBankAccount');
export const readBankAccountV3Route = readBankAccount('/api/payments/v3/bank-accounts/{bankAccountId}', 'readBankAccountV3');

export const listBankAccountsRoute = defineRoute(
  {
    method: 'get',
    path: '/api/payments/v3/bank-accounts',
    operationId: 'listBankAccounts',
    summary: 'List bank accounts, newest first',
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(bankAccountSchema) } },
  },
  authenticate('payments:read'),
  validate({ query: v3PlainListQuery }),
  async function listBankAccountsHandler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listBankAccounts(ctx.deps.db, list), bankAccountKey);
  },
);

export const updateBankAccountMetadataRoute = defineRoute(
  {
    method: 'patch',
    path: '/api/payments/v3/bank-accounts/{bankAccountId}/metadata',
    operationId: 'updateBankAccountMetadata',
    summary: "Merge `metadata` into a bank account's",
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params, body: v3MetadataBody }),
  async function updateBankAccountMetadataHandler(ctx) {
    await updateBankAccountMetadata(ctx.deps.db, ctx.state.input.params.bankAccountId, ctx.state.input.body.metadata ?? {});
    ctx.status = 204;
  },
);

export const forwardBankAccountRoute = defineRoute(
  {
    method: 'post',
    path: '/api/payments/v3/bank-accounts/{bankAccountId}/forward',
    operationId: 'forwardBankAccount',
    summary: 'Create the bank account at a connector (runs on Temporal)',
    tags,
    responses: { 202: { description: "The forward's task (read it with getTask)", schema: dataOf(taskSchema) } },
  },
  authenticate('payments:write'),
  validate({ params, body: forwardInputSchema }),
  async function forwardBankAccountHandler(ctx) {
    const deps = { db: ctx.deps.db, temporal: temporalOf(ctx) };
    ctx.status = 202;
    ctx.body = { data: await forwardBankAccount(deps, ctx.state.input.params.bankAccountId, ctx.state.input.body.connectorID) };
  },
);

export const bankAccountRoutes = [
  createBankAccountRoute,
  readBankAccountRoute,
  readBankAccountV3Route,
  listBankAccountsRoute,
  updateBankAccountMetadataRoute,
  forwardBankAccountRoute,
];
