import {
  createPipeline,
  deletePipeline,
  getPipeline,
  listPipelines,
  presentPipeline,
  resetPipeline,
  startPipeline,
  stopPipeline,
  type PipelineRow,
} from '../../../areas/ledger';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { ledgerParams } from '../../schemas/ledger';
import { createPipelineBodySchema, pipelineParams, pipelineSchema, pipelinesListQuery } from '../../schemas/ledger-pipelines';

const tags = ['ledger'];
const base = '/api/ledger/v2/{ledger}/pipelines';

export const createPipelineRoute = defineRoute(
  {
    method: 'post',
    path: base,
    operationId: 'createPipeline',
    tags,
    summary: "Create and start a pipeline replicating the ledger's logs to an exporter",
    responses: { 201: { description: 'Created', schema: dataOf(pipelineSchema) } },
  },
  authenticate('ledger:write'),
  validate({ params: ledgerParams, body: createPipelineBodySchema }),
  async function createPipelineHandler(ctx) {
    const pipeline = await createPipeline(
      { db: ctx.deps.db, temporal: ctx.deps.temporal },
      ctx.state.input.params.ledger,
      ctx.state.input.body.exporterID,
    );
    ctx.status = 201;
    ctx.body = { data: pipeline };
  },
);

export const listPipelinesRoute = defineRoute(
  {
    method: 'get',
    path: base,
    operationId: 'listPipelines',
    summary: "List the ledger's pipelines, oldest first",
    tags,
    responses: { 200: { description: 'Pipelines', schema: cursorOf(pipelineSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams, query: pipelinesListQuery }),
  async function listPipelinesHandler(ctx) {
    const list = ctx.state.input.list;
    const page = await listPipelines(ctx.deps.db, ctx.state.input.params.ledger, list);
    ctx.body = cursorEnvelope(list, page, (row: PipelineRow) => [row.created_at, row.id], presentPipeline);
  },
);

export const getPipelineRoute = defineRoute(
  {
    method: 'get',
    path: `${base}/{pipelineID}`,
    operationId: 'getPipelineState',
    summary: 'Read a pipeline: enabled, and the last log the target holds',
    tags,
    responses: { 200: { description: 'The pipeline', schema: dataOf(pipelineSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: pipelineParams }),
  async function getPipelineHandler(ctx) {
    ctx.body = { data: await getPipeline(ctx.deps.db, ctx.state.input.params.ledger, ctx.state.input.params.pipelineID) };
  },
);

export const deletePipelineRoute = defineRoute(
  {
    method: 'delete',
    path: `${base}/{pipelineID}`,
    operationId: 'deletePipeline',
    summary: 'Stop and delete a pipeline',
    tags,
    responses: { 204: { description: 'Deleted' } },
  },
  authenticate('ledger:write'),
  validate({ params: pipelineParams }),
  async function deletePipelineHandler(ctx) {
    await deletePipeline({ db: ctx.deps.db, temporal: ctx.deps.temporal }, ctx.state.input.params.ledger, ctx.state.input.params.pipelineID);
    ctx.status = 204;
  },
);

const ACTIONS = {
  start: { use: startPipeline, operationId: 'startPipeline', summary: 'Start a stopped pipeline; it resumes after the last log the target holds' },
  stop: { use: stopPipeline, operationId: 'stopPipeline', summary: 'Stop a pipeline; its position is kept' },
  reset: { use: resetPipeline, operationId: 'resetPipeline', summary: 'Export the ledger again from its first log' },
} as const;

const actionRoute = (action: keyof typeof ACTIONS) =>
  defineRoute(
    {
      method: 'post',
      path: `${base}/{pipelineID}/${action}`,
      operationId: ACTIONS[action].operationId,
      summary: ACTIONS[action].summary,
      tags,
      responses: { 202: { description: 'Accepted' } },
    },
    authenticate('ledger:write'),
    validate({ params: pipelineParams }),
    async function pipelineActionHandler(ctx) {
      await ACTIONS[action].use({ db: ctx.deps.db, temporal: ctx.deps.temporal }, ctx.state.input.params.ledger, ctx.state.input.params.pipelineID);
      ctx.status = 202;
    },
  );

export const pipelineRoutes = [
  createPipelineRoute,
  listPipelinesRoute,
  getPipelineRoute,
  deletePipelineRoute,
  actionRoute('start'),
  actionRoute('stop'),
  actionRoute('reset'),
];
