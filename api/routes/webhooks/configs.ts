import {
  changeSecret,
  createConfig,
  deleteConfig,
  getEndpointStats,
  listConfigs,
  presentConfig,
  recoverDeliveries,
  setConfigActive,
  testConfig,
  updateConfig,
} from '../../../areas/webhooks';
import { idempotencyHeader, idempotencyKeyOf } from '../ledger/input';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import {
  configInputSchema,
  configListQuery,
  configUpdateSchema,
  endpointStatsSchema,
  idParams,
  recoverBody,
  recoverResultSchema,
  secretChangeSchema,
  webhookAttemptSchema,
  webhookConfigSchema,
} from '../../schemas/webhooks';

const tags = ['webhooks'];
const configResponse = { 200: { description: 'The config', schema: dataOf(webhookConfigSchema) } };
const base = '/api/webhooks/configs';

export const listConfigsRoute = defineRoute(
  {
    method: 'get',
    path: base,
    operationId: 'listWebhookConfigs',
    summary: 'List webhook configs, most recently updated first',
    tags,
    responses: { 200: { description: 'Configs', schema: cursorOf(webhookConfigSchema) } },
  },
  authenticate('webhooks:read'),
  validate({ query: configListQuery }),
  async function listConfigsHandler(ctx) {
    const list = ctx.state.input.list;
    const page = await listConfigs(ctx.deps.db, list);
    ctx.body = cursorEnvelope(list, page, (row) => [row.updated_at, row.id], presentConfig);
  },
);

export const createConfigRoute = defineRoute(
  {
    method: 'post',
    path: base,
    operationId: 'createWebhookConfig',
    summary: 'Subscribe an endpoint to event types (200, as Formance)',
    tags,
    responses: configResponse,
  },
  authenticate('webhooks:write'),
  validate({ body: configInputSchema }),
  async function createConfigHandler(ctx) {
    ctx.body = { data: await createConfig(ctx.deps.db, ctx.state.input.body) };
  },
);

export const updateConfigRoute = defineRoute(
  {
    method: 'put',
    path: `${base}/{id}`,
    operationId: 'updateWebhookConfig',
    summary: "Replace a config's endpoint, event types and name",
    tags,
    responses: configResponse,
  },
  authenticate('webhooks:write'),
  validate({ params: idParams, body: configUpdateSchema }),
  async function updateConfigHandler(ctx) {
    ctx.body = { data: await updateConfig(ctx.deps.db, ctx.state.input.params.id, ctx.state.input.body) };
  },
);

export const deleteConfigRoute = defineRoute(
  {
    method: 'delete',
    path: `${base}/{id}`,
    operationId: 'deleteWebhookConfig',
    summary: 'Delete a config (200 with an empty body, as Formance)',
    tags,
    responses: { 200: { description: 'Deleted' } },
  },
  authenticate('webhooks:write'),
  validate({ params: idParams }),
  async function deleteConfigHandler(ctx) {
    await deleteConfig(ctx.deps.db, ctx.state.input.params.id);
    ctx.status = 200;
    ctx.body = '';
  },
);

const activation = (active: boolean) =>
  defineRoute(
    {
      method: 'put',
      path: `${base}/{id}/${active ? 'activate' : 'deactivate'}`,
      operationId: active ? 'activateWebhookConfig' : 'deactivateWebhookConfig',
      summary: active ? 'Activate a config (op 18)' : 'Deactivate a config: its pending retries stop',
      tags,
      responses: configResponse,
    },
    authenticate('webhooks:write'),
    validate({ params: idParams }),
    async function setActiveHandler(ctx) {
      ctx.body = { data: await setConfigActive(ctx.deps.db, ctx.state.input.params.id, active) };
    },
  );
export const activateConfigRoute = activation(true);
export const deactivateConfigRoute = activation(false);

export const changeSecretRoute = defineRoute(
  {
    method: 'put',
    path: `${base}/{id}/secret/change`,
    operationId: 'changeWebhookSecret',
    summary: "Change a config's signing secret (op 17)",
    tags,
    responses: configResponse,
  },
  authenticate('webhooks:write'),
  validate({ params: idParams, body: secretChangeSchema, bodyRequired: false }),
  async function changeSecretHandler(ctx) {
    ctx.body = { data: await changeSecret(ctx.deps.db, ctx.state.input.params.id, ctx.state.input.body?.secret) };
  },
);

export const testConfigRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{id}/test`,
    operationId: 'testWebhookConfig',
    summary: 'Send a test webhook once (op 16); the attempt reports the outcome, failures included',
    tags,
    responses: { 200: { description: 'The attempt', schema: dataOf(webhookAttemptSchema) } },
  },
  authenticate('webhooks:read'),
  validate({ params: idParams }),
  async function testConfigHandler(ctx) {
    const attempt = await testConfig(ctx.deps, ctx.state.input.params.id);
    ctx.body = { data: attempt };
  },
);

export const configStatsRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{id}/stats`,
    operationId: 'readWebhookConfigStats',
    summary: "A config's endpoint state (healthy, backoff, disabled, inactive) and delivery counts",
    tags,
    responses: { 200: { description: 'The stats', schema: dataOf(endpointStatsSchema) } },
  },
  authenticate('webhooks:read'),
  validate({ params: idParams }),
  async function configStatsHandler(ctx) {
    ctx.body = { data: await getEndpointStats(ctx.deps.db, ctx.state.input.params.id) };
  },
);

export const recoverConfigRoute = defineRoute(
  {
    method: 'post',
    path: `${base}/{id}/recover`,
    operationId: 'recoverWebhookConfig',
    summary:
      "Resend a config's failed deliveries created since a date (Svix's recover), through its endpoint's queue; 409 when the config is inactive",
    tags,
    headers: idempotencyHeader,
    responses: { 200: { description: 'How many deliveries were queued again', schema: dataOf(recoverResultSchema) } },
  },
  authenticate('webhooks:write'),
  validate({ params: idParams, body: recoverBody }),
  async function recoverConfigHandler(ctx) {
    const { since, until } = ctx.state.input.body;
    const window = { since: new Date(since), ...(until !== undefined ? { until: new Date(until) } : {}) };
    ctx.body = { data: await recoverDeliveries(ctx.deps, ctx.state.input.params.id, window, idempotencyKeyOf(ctx)) };
  },
);

export const configRoutes = [
  listConfigsRoute,
  createConfigRoute,
  updateConfigRoute,
  deleteConfigRoute,
  activateConfigRoute,
  deactivateConfigRoute,
  changeSecretRoute,
  testConfigRoute,
  configStatsRoute,
  recoverConfigRoute,
];
