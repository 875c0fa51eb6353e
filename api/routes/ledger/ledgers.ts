import {
  createLedger,
  deleteBucket,
  getLedger,
  ledgerMetrics,
  ledgerStorageInfo,
  listLedgers,
  restoreBucket,
  updateLedgerMetadata,
  type Ledger,
} from '../../../areas/ledger';
import { PLATFORM_VERSION } from '../../../lib/version';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { anyObjectSchema, cursorOf, dataOf, errorSchema, metadataSchema } from '../../schemas/common';
import {
  bucketParams,
  createLedgerBodySchema,
  ledgerListItemSchema,
  ledgerParams,
  ledgerSchema,
  listLedgersQuery,
  newLedgerParams,
  v2ConfigInfoSchema,
} from '../../schemas/ledger';
import { ledgerInfoSchema } from '../../schemas/ledger-v1';

const tags = ['ledger'];
/** The spec's Ledger (op 10's items): its four fields, and `deletedAt` for a ledger listed with `includeDeleted`. */
const ledgerListView = (l: Ledger) => ({
  name: l.name,
  addedAt: l.addedAt,
  bucket: l.bucket,
  metadata: l.metadata,
  ...(l.deletedAt ? { deletedAt: l.deletedAt } : {}),
});
/** A ledger read on its own: Formance's V2Ledger, with its id and effective features. */
const ledgerView = (l: Ledger) => ({ id: Number(l.id), ...ledgerListView(l), features: l.features });

export const listLedgersRoute = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/v2',
    operationId: 'listLedgers',
    summary: 'List ledgers, oldest first (op 10)',
    tags,
    responses: { 200: { description: 'Ledgers', schema: cursorOf(ledgerListItemSchema) } },
  },
  authenticate('ledger:read'),
  validate({ query: listLedgersQuery }),
  async function listLedgersHandler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(
      list,
      await listLedgers(ctx.deps.db, { ...list, includeDeleted: list.filters.includeDeleted === true }),
      (l: Ledger) => [l.id],
      ledgerListView,
    );
  },
);

export const createLedgerRoute = defineRoute(
  {
    method: 'post',
    path: '/api/ledger/v2/{ledger}',
    operationId: 'createLedger',
    summary: 'Create a ledger (an existing name is 400 LEDGER_ALREADY_EXISTS)',
    tags,
    responses: { 204: { description: 'Created' } },
  },
  authenticate('ledger:write'),
  validate({ params: newLedgerParams, body: createLedgerBodySchema, bodyRequired: false }),
  async function createLedgerHandler(ctx) {
    await createLedger(ctx.deps.db, ctx.state.input.params.ledger, ctx.state.input.body ?? {});
    ctx.status = 204;
  },
);

export const readLedgerRoute = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/v2/{ledger}',
    operationId: 'getLedger',
    summary: 'Read a ledger',
    tags,
    responses: { 200: { description: 'Ledger', schema: dataOf(ledgerSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams }),
  async function readLedgerHandler(ctx) {
    ctx.body = { data: ledgerView(await getLedger(ctx.deps.db, ctx.state.input.params.ledger)) };
  },
);

export const updateLedgerMetadataRoute = defineRoute(
  {
    method: 'put',
    path: '/api/ledger/v2/{ledger}/metadata',
    operationId: 'updateLedgerMetadata',
    summary: "Merge keys into a ledger's metadata",
    tags,
    responses: { 204: { description: 'Updated' } },
  },
  authenticate('ledger:write'),
  validate({ params: ledgerParams, body: metadataSchema }),
  async function updateLedgerMetadataHandler(ctx) {
    await updateLedgerMetadata(ctx.deps.db, ctx.state.input.params.ledger, ctx.state.input.body);
    ctx.status = 204;
  },
);

export const ledgerInfoRoute = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/v2/{ledger}/_info',
    operationId: 'getLedgerInfo',
    summary: "A ledger's storage migrations (every ledger shares the platform's schema)",
    tags,
    responses: { 200: { description: 'Info', schema: dataOf(ledgerInfoSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams }),
  async function ledgerInfoHandler(ctx) {
    const { ledger } = ctx.state.input.params;
    const migrations = await ledgerStorageInfo(ctx.deps.db, ledger);
    ctx.body = { data: { name: ledger, storage: { migrations: migrations.map((m) => ({ ...m, version: String(m.version) })) } } };
  },
);

export const serviceInfoRoute = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/_/info',
    operationId: 'getLedgerServiceInfo',
    summary: 'Ledger service information: name and version',
    tags,
    responses: { 200: { description: 'Info', schema: v2ConfigInfoSchema } },
  },
  authenticate('ledger:read'),
  validate({}),
  async function serviceInfoHandler(ctx) {
    // Formance's V2ConfigInfo is not wrapped in `data`.
    ctx.body = { server: 'ledger', version: PLATFORM_VERSION, experimentalFeatures: [] };
  },
);

export const metricsRoute = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/_/metrics',
    operationId: 'getLedgerMetrics',
    summary: 'Figures of the ledger service (docs/ledger.md lists them)',
    tags,
    responses: { 200: { description: 'Metrics by name', schema: anyObjectSchema() } },
  },
  authenticate('ledger:read'),
  validate({}),
  async function metricsHandler(ctx) {
    ctx.body = await ledgerMetrics(ctx.deps.db);
  },
);

export const deleteBucketRoute = defineRoute(
  {
    method: 'delete',
    path: '/api/ledger/v2/_/buckets/{bucket}',
    operationId: 'deleteBucket',
    tags,
    summary: 'Mark every ledger of a bucket deleted: hidden from the list, still readable, writes refused (a restore undoes it)',
    responses: { 204: { description: 'Deleted' }, 404: { description: 'No ledger is in that bucket', schema: errorSchema } },
  },
  authenticate('ledger:write'),
  validate({ params: bucketParams }),
  async function deleteBucketHandler(ctx) {
    await deleteBucket(ctx.deps.db, ctx.state.input.params.bucket);
    ctx.status = 204;
  },
);

export const restoreBucketRoute = defineRoute(
  {
    method: 'post',
    path: '/api/ledger/v2/_/buckets/{bucket}/restore',
    operationId: 'restoreBucket',
    tags,
    summary: "Undo a bucket's deletion",
    responses: { 204: { description: 'Restored' }, 404: { description: 'No ledger is in that bucket', schema: errorSchema } },
  },
  authenticate('ledger:write'),
  validate({ params: bucketParams }),
  async function restoreBucketHandler(ctx) {
    await restoreBucket(ctx.deps.db, ctx.state.input.params.bucket);
    ctx.status = 204;
  },
);

/** The `_` routes first: `_` is a reserved ledger name, but the router would otherwise try `/{ledger}/...` routes. */
export const ledgerAdminRoutes = [
  serviceInfoRoute,
  metricsRoute,
  deleteBucketRoute,
  restoreBucketRoute,
  listLedgersRoute,
  createLedgerRoute,
  readLedgerRoute,
  ledgerInfoRoute,
  updateLedgerMetadataRoute,
];
