import { abortInstance, getInstance, listInstances, runWorkflow, sendEvent } from '../../../areas/orchestration';
import { readInstanceHistory, readStageHistory, v1StageHistory } from '../../../areas/orchestration';
import type { ChainMiddleware } from '../../routing';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { cursorOf, dataOf } from '../../schemas/common';
import {
  eventBodySchema,
  instanceHistoryEntrySchema,
  instanceListQuery,
  instanceParams,
  instanceSchema,
  runQuerySchema,
  stageHistoryEntrySchema,
  stageParams,
  variablesSchema,
  workflowParams,
} from '../../schemas/orchestration';
import { versionedListRoutes, versionedRoutes } from './versions';

const tags = ['orchestration'];
const noContent = { 204: { description: 'Done' } };

/** The v1 path of op 14 answers Formance v1's shapes of step outputs (v1StageHistory). */
const v1StageOutputs: ChainMiddleware = async function v1StageOutputs(ctx, next) {
  await next();
  const body = ctx.body as { data?: Parameters<typeof v1StageHistory>[0] } | undefined;
  if (ctx.status === 200 && Array.isArray(body?.data)) ctx.body = { ...body, data: v1StageHistory(body.data) };
};

function withV1StageOutputs([v2, v1]: ReturnType<typeof versionedRoutes>) {
  return [v2, { ...v1, chain: [v1StageOutputs, ...v1.chain] }];
}

export const instanceRoutes = [
  ...versionedRoutes(
    {
      method: 'post',
      path: '/workflows/{workflowID}/instances',
      operationId: 'runWorkflow',
      summary: 'Run a workflow (op 12); with wait=true, answer once the run has ended (at most 60 s)',
      tags,
      responses: { 200: { description: 'The instance', schema: dataOf(instanceSchema) } },
      // The instance lives under /instances, not under the workflow's path: its operations are linked explicitly.
      links: Object.fromEntries(
        ['readInstance', 'readInstanceHistory', 'sendInstanceEvent', 'abortInstance'].map((id) => [
          id,
          { parameters: { 'path.instanceID': '$response.body#/data/id' } },
        ]),
      ),
    },
    authenticate('orchestration:write'),
    validate({ params: workflowParams, query: runQuerySchema, body: variablesSchema, bodyRequired: false }),
    async function runWorkflowHandler(ctx) {
      const { params, query, body } = ctx.state.input;
      const wait = /^(true|1)$/i.test(query.wait ?? '');
      ctx.body = { data: await runWorkflow(ctx.deps, params.workflowID, body ?? {}, { wait }) };
    },
  ),
  ...versionedListRoutes(
    {
      method: 'get',
      path: '/instances',
      operationId: 'listInstances',
      summary: 'List instances, newest first',
      tags,
      responses: { 200: { description: 'Instances', schema: cursorOf(instanceSchema) } },
    },
    authenticate('orchestration:read'),
    validate({ query: instanceListQuery }),
    async function listInstancesHandler(ctx) {
      const list = ctx.state.input.list;
      const { page, present } = await listInstances(ctx.deps.db, list);
      ctx.body = cursorEnvelope(list, page, (row) => [row.created_at, row.id], present);
    },
  ),
  ...versionedRoutes(
    {
      method: 'get',
      path: '/instances/{instanceID}',
      operationId: 'readInstance',
      summary: 'Read an instance with its stage statuses',
      tags,
      responses: { 200: { description: 'Instance', schema: dataOf(instanceSchema) } },
    },
    authenticate('orchestration:read'),
    validate({ params: instanceParams }),
    async function readInstanceHandler(ctx) {
      ctx.body = { data: await getInstance(ctx.deps.db, ctx.state.input.params.instanceID) };
    },
  ),
  ...versionedRoutes(
    {
      method: 'post',
      path: '/instances/{instanceID}/events',
      operationId: 'sendInstanceEvent',
      summary: 'Send an event; one sent before its wait_event stage is kept for it',
      tags,
      responses: noContent,
    },
    authenticate('orchestration:write'),
    validate({ params: instanceParams, body: eventBodySchema }),
    async function sendEventHandler(ctx) {
      await sendEvent(ctx.deps, ctx.state.input.params.instanceID, ctx.state.input.body.name);
      ctx.status = 204;
    },
  ),
  ...versionedRoutes(
    {
      method: 'put',
      path: '/instances/{instanceID}/abort',
      operationId: 'abortInstance',
      summary: 'Abort a running instance',
      tags,
      responses: noContent,
    },
    authenticate('orchestration:write'),
    validate({ params: instanceParams }),
    async function abortInstanceHandler(ctx) {
      await abortInstance(ctx.deps, ctx.state.input.params.instanceID);
      ctx.status = 204;
    },
  ),
  ...versionedRoutes(
    {
      method: 'get',
      path: '/instances/{instanceID}/history',
      operationId: 'readInstanceHistory',
      summary: "Stages of an instance, from Temporal's history (op 13)",
      tags,
      responses: { 200: { description: 'Stage entries', schema: dataOf({ type: 'array', items: instanceHistoryEntrySchema }) } },
    },
    authenticate('orchestration:read'),
    validate({ params: instanceParams }),
    async function readInstanceHistoryHandler(ctx) {
      ctx.body = { data: await readInstanceHistory(ctx.deps, ctx.state.input.params.instanceID) };
    },
  ),
  ...withV1StageOutputs(
    versionedRoutes(
      {
        method: 'get',
        path: '/instances/{instanceID}/stages/{number}/history',
        operationId: 'readStageHistory',
        summary: 'Activities of one stage with attempts and retries, from Temporal (op 14)',
        tags,
        responses: { 200: { description: 'Activity entries', schema: dataOf({ type: 'array', items: stageHistoryEntrySchema }) } },
      },
      authenticate('orchestration:read'),
      validate({ params: stageParams }),
      async function readStageHistoryHandler(ctx) {
        const { instanceID, number } = ctx.state.input.params;
        ctx.body = { data: await readStageHistory(ctx.deps, instanceID, number) };
      },
    ),
  ),
];
