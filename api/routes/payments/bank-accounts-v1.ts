import { bankAccountKey, createBankAccountV1, forwardBankAccountV1, listBankAccountsV1, updateBankAccountMetadata } from '../../../areas/payments';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { bankAccountSchema, forwardInputSchema, idParams } from '../../schemas/payments';
import { bankAccountInputV1Schema, bankAccountMetadataV1Schema, sortedListV1Query } from '../../schemas/payments-v1';
import { noContent, tags, temporalOf } from './common';

/** Formance's payments v1 bank accounts; the read (`GET /api/payments/bank-accounts/{id}`) is the spec's op 8 route. */
const base = '/api/payments/bank-accounts';
const params = idParams('bankAccountId');
const bankAccountV1Schema = { ...bankAccountSchema, required: [...(bankAccountSchema.required as string[]), 'country'] };

export const createBankAccountV1Route = defineRoute(
  {
    method: 'post',
    path: base,
    operationId: 'createBankAccountV1',
    summary: 'Create a bank account, forwarded to `connectorID` when given (v1)',
    tags,
    responses: { 200: { description: 'Bank account', schema: dataOf(bankAccountV1Schema) } },
  },
  authenticate('payments:write'),
  validate({ body: bankAccountInputV1Schema }),
  async function createBankAccountV1Handler(ctx) {
    const { metadata, ...body } = ctx.state.input.body;
    ctx.body = { data: await createBankAccountV1({ db: ctx.deps.db, temporal: temporalOf(ctx) }, { ...body, ...(metadata ? { metadata } : {}) }) };
  },
);

export const listBankAccountsV1Route = defineRoute(
  {
    method: 'get',
    path: base,
    operationId: 'listBankAccountsV1',
    summary: 'Bank accounts, newest first (v1)',
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(bankAccountV1Schema) } },
  },
  authenticate('payments:read'),
  validate({ query: sortedListV1Query }),
  async function listBankAccountsV1Handler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listBankAccountsV1(ctx.deps.db, list), bankAccountKey);
  },
);

export const forwardBankAccountV1Route = defineRoute(
  {
    method: 'post',
    path: `${base}/{bankAccountId}/forward`,
    operationId: 'forwardBankAccountV1',
    summary: 'Create the bank account at a connector (v1)',
    tags,
    responses: { 200: { description: 'Bank account with its related account', schema: dataOf(bankAccountV1Schema) } },
  },
  authenticate('payments:write'),
  validate({ params, body: forwardInputSchema }),
  async function forwardBankAccountV1Handler(ctx) {
    ctx.body = {
      data: await forwardBankAccountV1(
        { db: ctx.deps.db, temporal: temporalOf(ctx) },
        ctx.state.input.params.bankAccountId,
        ctx.state.input.body.connectorID,
      ),
    };
  },
);

export const updateBankAccountMetadataV1Route = defineRoute(
  {
    method: 'patch',
    path: `${base}/{bankAccountId}/metadata`,
    operationId: 'updateBankAccountMetadataV1',
    summary: 'Merge metadata into a bank account (v1)',
    tags,
    responses: noContent,
  },
  authenticate('payments:write'),
  validate({ params, body: bankAccountMetadataV1Schema }),
  async function updateBankAccountMetadataV1Handler(ctx) {
    await updateBankAccountMetadata(ctx.deps.db, ctx.state.input.params.bankAccountId, ctx.state.input.body.metadata ?? {});
    ctx.status = 204;
  },
);

export const bankAccountV1Routes = [createBankAccountV1Route, listBankAccountsV1Route, forwardBankAccountV1Route, updateBankAccountMetadataV1Route];
