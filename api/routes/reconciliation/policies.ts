import {
  createPolicy,
  deletePolicy,
  getPolicy,
  getReconciliation,
  listPolicies,
  listReconciliations,
  policyKey,
  reconcile,
  reconciliationKey,
} from '../../../areas/reconciliation';
import { authenticate } from '../../middleware/authenticate';
import { idempotencyHeader, idempotencyKeyOf } from '../ledger/input';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import {
  policyInputSchema,
  policyListQuery,
  policyParams,
  policySchema,
  reconcileInputSchema,
  reconciliationListQuery,
  reconciliationParams,
  reconciliationSchema,
} from '../../schemas/reconciliation-policies';

const tags = ['reconciliation'];
const base = '/api/reconciliation';

export const createPolicyRoute = defineRoute(
  {
    method: 'post',
    path: `${base}/policies`,
    operationId: 'createPolicy',
    summary: 'Create a reconciliation policy: ledger accounts (a ledger and a filter) against a payments pool',
    tags,
    headers: idempotencyHeader,
    responses: { 201: { description: 'Created', schema: dataOf(policySchema) } },
  },
  authenticate('reconciliation:write'),
  validate({ body: policyInputSchema }),
  async function createPolicyHandler(ctx) {
    ctx.status = 201;
    ctx.body = { data: await createPolicy(ctx.deps.db, ctx.state.input.body, { idempotencyKey: idempotencyKeyOf(ctx) }) };
  },
);

export const listPoliciesRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/policies`,
    operationId: 'listPolicies',
    summary: 'List policies, newest first',
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(policySchema) } },
  },
  authenticate('reconciliation:read'),
  validate({ query: policyListQuery }),
  async function listPoliciesHandler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listPolicies(ctx.deps.db, list.filters.query, list), policyKey);
  },
);

export const getPolicyRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/policies/{policyID}`,
    operationId: 'getPolicy',
    summary: 'Read a policy',
    tags,
    responses: { 200: { description: 'Policy', schema: dataOf(policySchema) } },
  },
  authenticate('reconciliation:read'),
  validate({ params: policyParams }),
  async function getPolicyHandler(ctx) {
    ctx.body = { data: await getPolicy(ctx.deps.db, ctx.state.input.params.policyID) };
  },
);

export const deletePolicyRoute = defineRoute(
  {
    method: 'delete',
    path: `${base}/policies/{policyID}`,
    operationId: 'deletePolicy',
    summary: 'Delete a policy (its reconciliations stay)',
    tags,
    responses: { 204: { description: 'Deleted' } },
  },
  authenticate('reconciliation:write'),
  validate({ params: policyParams }),
  async function deletePolicyHandler(ctx) {
    await deletePolicy(ctx.deps.db, ctx.state.input.params.policyID);
    ctx.status = 204;
  },
);

export const reconcileRoute = defineRoute(
  {
    method: 'post',
    path: `${base}/policies/{policyID}/reconciliation`,
    operationId: 'reconcile',
    summary: "Reconcile a policy: the ledger's balances at one past instant against the pool's at another; the result is stored",
    tags,
    headers: idempotencyHeader,
    responses: { 200: { description: 'The reconciliation', schema: dataOf(reconciliationSchema) } },
  },
  authenticate('reconciliation:write'),
  validate({ params: policyParams, body: reconcileInputSchema }),
  async function reconcileHandler(ctx) {
    const { reconciledAtLedger, reconciledAtPayments } = ctx.state.input.body;
    ctx.body = {
      data: await reconcile(
        ctx.deps.db,
        ctx.state.input.params.policyID,
        { reconciledAtLedger: new Date(reconciledAtLedger), reconciledAtPayments: new Date(reconciledAtPayments) },
        { idempotencyKey: idempotencyKeyOf(ctx) },
      ),
    };
  },
);

export const listReconciliationsRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/reconciliations`,
    operationId: 'listReconciliations',
    summary: 'List reconciliations, newest first',
    tags,
    responses: { 200: { description: 'Cursor', schema: cursorOf(reconciliationSchema) } },
  },
  authenticate('reconciliation:read'),
  validate({ query: reconciliationListQuery }),
  async function listReconciliationsHandler(ctx) {
    const list = ctx.state.input.list;
    ctx.body = cursorEnvelope(list, await listReconciliations(ctx.deps.db, list.filters.query, list), reconciliationKey);
  },
);

export const getReconciliationRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/reconciliations/{reconciliationID}`,
    operationId: 'getReconciliation',
    summary: 'Read a reconciliation',
    tags,
    responses: { 200: { description: 'The reconciliation', schema: dataOf(reconciliationSchema) } },
  },
  authenticate('reconciliation:read'),
  validate({ params: reconciliationParams }),
  async function getReconciliationHandler(ctx) {
    ctx.body = { data: await getReconciliation(ctx.deps.db, ctx.state.input.params.reconciliationID) };
  },
);

export const policyRoutes = [
  createPolicyRoute,
  listPoliciesRoute,
  getPolicyRoute,
  deletePolicyRoute,
  reconcileRoute,
  listReconciliationsRoute,
  getReconciliationRoute,
];
