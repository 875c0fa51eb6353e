import { createWallet, getWallet, getWalletSummary, listWallets, updateWalletMetadata } from '../../../areas/wallets';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { metadataFilters } from '../../schemas/ledger';
import {
  createWalletBody,
  listWalletsQuery,
  patchWalletBody,
  walletFundsSummarySchema,
  walletParams,
  walletSchema,
  walletSummarySchema,
} from '../../schemas/wallets';
import { idempotencyHeader, idempotencyKeyOf } from '../ledger/input';

const tags = ['wallets'];

export const createWalletRoute = defineRoute(
  {
    method: 'post',
    path: '/api/wallets/wallets',
    operationId: 'createWallet',
    summary: 'Create a wallet',
    tags,
    headers: idempotencyHeader,
    responses: { 201: { description: 'Created', schema: dataOf(walletSchema) } },
  },
  authenticate('wallets:write'),
  validate({ body: createWalletBody }),
  async function createWalletHandler(ctx) {
    ctx.status = 201;
    ctx.body = { data: await createWallet(ctx.deps.db, ctx.state.input.body, { idempotencyKey: idempotencyKeyOf(ctx) }) };
  },
);

export const listWalletsRoute = defineRoute(
  {
    method: 'get',
    path: '/api/wallets/wallets',
    operationId: 'listWallets',
    summary: 'List wallets (name and metadata[key] filters)',
    tags,
    responses: { 200: { description: 'Wallets', schema: cursorOf(walletSummarySchema) } },
  },
  authenticate('wallets:read'),
  validate({ query: listWalletsQuery }),
  async function listWalletsHandler(ctx) {
    const list = ctx.state.input.list;
    const { rest, metadata } = metadataFilters(list.filters);
    const page = await listWallets(ctx.deps.db, { name: rest.name, metadata }, list);
    ctx.body = cursorEnvelope(
      list,
      page,
      (w) => [w.seq],
      ({ seq: _seq, ...wallet }) => wallet,
    );
  },
);

export const readWalletRoute = defineRoute(
  {
    method: 'get',
    path: '/api/wallets/wallets/{id}',
    operationId: 'getWallet',
    summary: 'Read a wallet with its balances',
    tags,
    responses: { 200: { description: 'Wallet', schema: dataOf(walletSchema) } },
  },
  authenticate('wallets:read'),
  validate({ params: walletParams }),
  async function readWalletHandler(ctx) {
    ctx.body = { data: await getWallet(ctx.deps.db, ctx.state.input.params.id) };
  },
);

export const patchWalletRoute = defineRoute(
  {
    method: 'patch',
    path: '/api/wallets/wallets/{id}',
    operationId: 'updateWallet',
    summary: "Merge keys into a wallet's metadata",
    tags,
    responses: { 204: { description: 'Updated' } },
  },
  authenticate('wallets:write'),
  validate({ params: walletParams, body: patchWalletBody }),
  async function patchWalletHandler(ctx) {
    await updateWalletMetadata(ctx.deps.db, ctx.state.input.params.id, ctx.state.input.body.metadata);
    ctx.status = 204;
  },
);

export const walletSummaryRoute = defineRoute(
  {
    method: 'get',
    path: '/api/wallets/wallets/{id}/summary',
    operationId: 'getWalletSummary',
    summary: 'Balances with their assets, and available, expired, expirable and held funds per asset',
    tags,
    responses: { 200: { description: 'Summary', schema: dataOf(walletFundsSummarySchema) } },
  },
  authenticate('wallets:read'),
  validate({ params: walletParams }),
  async function walletSummaryHandler(ctx) {
    ctx.body = { data: await getWalletSummary(ctx.deps.db, ctx.state.input.params.id) };
  },
);

export const walletRoutes = [createWalletRoute, listWalletsRoute, readWalletRoute, patchWalletRoute, walletSummaryRoute];
