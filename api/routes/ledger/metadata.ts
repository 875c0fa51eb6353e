import { deleteAccountMetadata, deleteLedgerMetadata, deleteTransactionMetadata } from '../../../areas/ledger';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { defineRoute } from '../../routing';
import { extendObject, stringSchema, type Schema } from '../../schemas/common';
import { accountParams, ledgerParams, txParams } from '../../schemas/ledger';

const tags = ['ledger'];
const withKey = <T, P>(params: Schema<T, P>) =>
  extendObject(params, { key: stringSchema({ minLength: 1, maxLength: 1000, description: 'The metadata key to remove.' }) }, ['key']);

export const deleteAccountMetadataRoute = defineRoute(
  {
    method: 'delete',
    path: '/api/ledger/v2/{ledger}/accounts/{address}/metadata/{key}',
    operationId: 'deleteAccountMetadata',
    tags,
    summary: "Remove a key from an account's metadata (an absent key is a no-op)",
    responses: { 204: { description: 'Removed' } },
  },
  authenticate('ledger:write'),
  validate({ params: withKey(accountParams) }),
  async function deleteAccountMetadataHandler(ctx) {
    const { ledger, address, key } = ctx.state.input.params;
    await deleteAccountMetadata(ctx.deps.db, ledger, address, key);
    ctx.status = 204;
  },
);

export const deleteTransactionMetadataRoute = defineRoute(
  {
    method: 'delete',
    path: '/api/ledger/v2/{ledger}/transactions/{id}/metadata/{key}',
    operationId: 'deleteTransactionMetadata',
    tags,
    summary: "Remove a key from a transaction's metadata (an absent key is a no-op)",
    responses: { 204: { description: 'Removed' } },
  },
  authenticate('ledger:write'),
  validate({ params: withKey(txParams('id')) }),
  async function deleteTransactionMetadataHandler(ctx) {
    const { ledger, id, key } = ctx.state.input.params;
    await deleteTransactionMetadata(ctx.deps.db, ledger, BigInt(id), key);
    ctx.status = 204;
  },
);

export const deleteLedgerMetadataRoute = defineRoute(
  {
    method: 'delete',
    path: '/api/ledger/v2/{ledger}/metadata/{key}',
    operationId: 'deleteLedgerMetadata',
    tags,
    summary: "Remove a key from a ledger's metadata (an absent key is a no-op)",
    responses: { 204: { description: 'Removed' } },
  },
  authenticate('ledger:write'),
  validate({ params: withKey(ledgerParams) }),
  async function deleteLedgerMetadataHandler(ctx) {
    const { ledger, key } = ctx.state.input.params;
    await deleteLedgerMetadata(ctx.deps.db, ledger, key);
    ctx.status = 204;
  },
);

export const metadataRoutes = [deleteLedgerMetadataRoute, deleteAccountMetadataRoute, deleteTransactionMetadataRoute];
