import { listOccurrences, presentOccurrence } from '../../../areas/orchestration';
import { createTrigger, deleteTrigger, getTriggerRow, listTriggers, presentTrigger, testTrigger } from '../../../areas/orchestration';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { anyObjectSchema, cursorOf, dataOf, listQuerySchema } from '../../schemas/common';
import {
  occurrenceSchema,
  triggerInputSchema,
  triggerListQuery,
  triggerParams,
  triggerSchema,
  triggerTestResultSchema,
} from '../../schemas/orchestration';
import { versionedListRoutes, versionedRoutes } from './versions';

const tags = ['orchestration'];

export const triggerRoutes = [
  ...versionedRoutes(
    {
      method: 'post',
      path: '/triggers',
      operationId: 'createTrigger',
      summary: 'Create a trigger (op 15); filter and vars are CEL over `event`',
      tags,
      responses: { 201: { description: 'Created', schema: dataOf(triggerSchema) } },
    },
    authenticate('orchestration:write'),
    validate({ body: triggerInputSchema }),
    async function createTriggerHandler(ctx) {
      ctx.status = 201;
      ctx.body = { data: await createTrigger(ctx.deps.db, ctx.state.input.body) };
    },
  ),
  ...versionedListRoutes(
    {
      method: 'get',
      path: '/triggers',
      operationId: 'listTriggers',
      summary: 'List triggers (filter name: substring, any case)',
      tags,
      responses: { 200: { description: 'Triggers', schema: cursorOf(triggerSchema) } },
    },
    authenticate('orchestration:read'),
    validate({ query: triggerListQuery }),
    async function listTriggersHandler(ctx) {
      const list = ctx.state.input.list;
      ctx.body = cursorEnvelope(list, await listTriggers(ctx.deps.db, list), (row) => [row.created_at, row.id], presentTrigger);
    },
  ),
  ...versionedRoutes(
    {
      method: 'get',
      path: '/triggers/{triggerID}',
      operationId: 'readTrigger',
      summary: 'Read a trigger',
      tags,
      responses: { 200: { description: 'Trigger', schema: dataOf(triggerSchema) } },
    },
    authenticate('orchestration:read'),
    validate({ params: triggerParams }),
    async function readTriggerHandler(ctx) {
      ctx.body = { data: presentTrigger(await getTriggerRow(ctx.deps.db, ctx.state.input.params.triggerID)) };
    },
  ),
  ...versionedRoutes(
    {
      method: 'delete',
      path: '/triggers/{triggerID}',
      operationId: 'deleteTrigger',
      summary: 'Delete a trigger',
      tags,
      responses: { 204: { description: 'Deleted' } },
    },
    authenticate('orchestration:write'),
    validate({ params: triggerParams }),
    async function deleteTriggerHandler(ctx) {
      await deleteTrigger(ctx.deps.db, ctx.state.input.params.triggerID);
      ctx.status = 204;
    },
  ),
  ...versionedListRoutes(
    {
      method: 'get',
      path: '/triggers/{triggerID}/occurrences',
      operationId: 'listTriggerOccurrences',
      summary: 'Occurrences of a trigger, newest first',
      tags,
      responses: { 200: { description: 'Occurrences', schema: cursorOf(occurrenceSchema) } },
    },
    authenticate('orchestration:read'),
    validate({ params: triggerParams, query: listQuerySchema() }),
    async function listOccurrencesHandler(ctx) {
      const list = ctx.state.input.list;
      ctx.body = cursorEnvelope(
        list,
        await listOccurrences(ctx.deps.db, ctx.state.input.params.triggerID, list),
        (row) => [row.date, row.id],
        presentOccurrence,
      );
    },
  ),
  ...versionedRoutes(
    {
      method: 'post',
      path: '/triggers/{triggerID}/test',
      operationId: 'testTrigger',
      summary: "Evaluate a trigger's filter and vars against a sample payload (starts nothing)",
      tags,
      responses: { 200: { description: 'Evaluation', schema: dataOf(triggerTestResultSchema) } },
    },
    authenticate('orchestration:write'),
    validate({ params: triggerParams, body: anyObjectSchema({ description: 'A sample event payload' }) }),
    async function testTriggerHandler(ctx) {
      ctx.body = { data: await testTrigger(ctx.deps.db, ctx.state.input.params.triggerID, ctx.state.input.body) };
    },
  ),
];
