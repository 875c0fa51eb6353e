import { createWorkflow, deleteWorkflow, getWorkflow, listWorkflows, presentWorkflow } from '../../../areas/orchestration';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { cursorOf, dataOf, listQuerySchema } from '../../schemas/common';
import { workflowConfigSchema, workflowParams, workflowSchema } from '../../schemas/orchestration';
import { versionedListRoutes, versionedRoutes } from './versions';

const tags = ['orchestration'];

export const workflowRoutes = [
  ...versionedRoutes(
    {
      method: 'post',
      path: '/workflows',
      operationId: 'createWorkflow',
      summary: 'Create a workflow; the whole config is validated (400 names the stage index and field)',
      tags,
      responses: { 201: { description: 'Created', schema: dataOf(workflowSchema) } },
    },
    authenticate('orchestration:write'),
    validate({ body: workflowConfigSchema }),
    async function createWorkflowHandler(ctx) {
      ctx.status = 201;
      ctx.body = { data: await createWorkflow(ctx.deps.db, ctx.state.input.body) };
    },
  ),
  ...versionedListRoutes(
    {
      method: 'get',
      path: '/workflows',
      operationId: 'listWorkflows',
      summary: 'List workflows, newest first',
      tags,
      responses: { 200: { description: 'Workflows', schema: cursorOf(workflowSchema) } },
    },
    authenticate('orchestration:read'),
    validate({ query: listQuerySchema() }),
    async function listWorkflowsHandler(ctx) {
      const list = ctx.state.input.list;
      ctx.body = cursorEnvelope(list, await listWorkflows(ctx.deps.db, list), (row) => [row.created_at, row.id], presentWorkflow);
    },
  ),
  ...versionedRoutes(
    {
      method: 'get',
      path: '/workflows/{workflowID}',
      operationId: 'readWorkflow',
      summary: 'Read a workflow',
      tags,
      responses: { 200: { description: 'Workflow', schema: dataOf(workflowSchema) } },
    },
    authenticate('orchestration:read'),
    validate({ params: workflowParams }),
    async function readWorkflowHandler(ctx) {
      ctx.body = { data: await getWorkflow(ctx.deps.db, ctx.state.input.params.workflowID) };
    },
  ),
  ...versionedRoutes(
    {
      method: 'delete',
      path: '/workflows/{workflowID}',
      operationId: 'deleteWorkflow',
      summary: 'Delete a workflow (its running instances go on)',
      tags,
      responses: { 204: { description: 'Deleted' } },
    },
    authenticate('orchestration:write'),
    validate({ params: workflowParams }),
    async function deleteWorkflowHandler(ctx) {
      await deleteWorkflow(ctx.deps.db, ctx.state.input.params.workflowID);
      ctx.status = 204;
    },
  ),
];
