import {
  createRule,
  deleteRule,
  evaluateRule,
  EVALUATION_RESULTS,
  type EvaluationFilters,
  getEvaluation,
  getRule,
  listEvaluations,
  listRules,
  patchRule,
  presentEvaluation,
  presentRule,
  type RuleFilters,
  TEMPLATE_KINDS,
} from '../../../areas/reconciliation';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { listFilters } from './query-filter';
import { cursorOf, dataOf, errorSchema } from '../../schemas/common';
import {
  evaluateRuleSchema,
  evaluationIdParams,
  evaluationListQuery,
  evaluationSchema,
  ruleIdParams,
  ruleInputSchema,
  ruleListQuery,
  rulePatchSchema,
  ruleSchema,
} from '../../schemas/reconciliation-rules';

const tags = ['reconciliation'];
const base = '/api/reconciliation/rules';
const ruleResponse = { description: 'The rule', schema: dataOf(ruleSchema) };

export const createRuleRoute = defineRoute(
  {
    method: 'post',
    path: base,
    operationId: 'reconciliationV1CreateRule',
    tags,
    responses: { 201: ruleResponse },
    summary: 'Create a rule; a cron schedule becomes a Temporal Schedule (400 on a bad spec, condition or cron)',
  },
  authenticate('reconciliation:write'),
  validate({ body: ruleInputSchema }),
  async function createRuleHandler(ctx) {
    ctx.status = 201;
    ctx.body = { data: await createRule(ctx.deps, ctx.state.input.body) };
  },
);

export const listRulesRoute = defineRoute(
  {
    method: 'get',
    path: base,
    operationId: 'reconciliationV1ListRules',
    summary: 'List rules, newest first',
    tags,
    responses: { 200: { description: 'Rules', schema: cursorOf(ruleSchema) } },
  },
  authenticate('reconciliation:read'),
  validate({ query: ruleListQuery }),
  async function listRulesHandler(ctx) {
    const list = ctx.state.input.list;
    const filters = listFilters(list.filters.query, { templateKind: TEMPLATE_KINDS, enabled: 'boolean', name: 'string' }) as RuleFilters;
    const page = await listRules(ctx.deps.db, { ...list, filters });
    ctx.body = cursorEnvelope(list, page, (row) => [row.seq], presentRule);
  },
);

export const getRuleRoute = defineRoute(
  { method: 'get', path: `${base}/{ruleID}`, operationId: 'reconciliationV1GetRule', summary: 'Read a rule', tags, responses: { 200: ruleResponse } },
  authenticate('reconciliation:read'),
  validate({ params: ruleIdParams }),
  async function getRuleHandler(ctx) {
    ctx.body = { data: await getRule(ctx.deps.db, ctx.state.input.params.ruleID) };
  },
);

export const patchRuleRoute = defineRoute(
  {
    method: 'patch',
    path: `${base}/{ruleID}`,
    operationId: 'reconciliationV1PatchRule',
    tags,
    responses: { 200: ruleResponse },
    summary: 'Change a rule; its schedule follows (enabled=false pauses it, an on-demand schedule deletes it)',
  },
  authenticate('reconciliation:write'),
  validate({ params: ruleIdParams, body: rulePatchSchema }),
  async function patchRuleHandler(ctx) {
    ctx.body = { data: await patchRule(ctx.deps, ctx.state.input.params.ruleID, ctx.state.input.body) };
  },
);

export const deleteRuleRoute = defineRoute(
  {
    method: 'delete',
    path: `${base}/{ruleID}`,
    operationId: 'reconciliationV1DeleteRule',
    summary: 'Delete a rule and its schedule; its evaluations and alerts stay',
    tags,
    responses: { 204: { description: 'Deleted' } },
  },
  authenticate('reconciliation:write'),
  validate({ params: ruleIdParams }),
  async function deleteRuleHandler(ctx) {
    await deleteRule(ctx.deps, ctx.state.input.params.ruleID);
    ctx.status = 204;
  },
);

export const evaluateRuleRoute = defineRoute(
  {
    method: 'post',
    path: `${base}/{ruleID}/evaluate`,
    operationId: 'reconciliationV1EvaluateRule',
    tags,
    summary: 'Evaluate a rule now (409 when it is disabled); failures open or count alerts as a scheduled run does',
    responses: {
      200: { description: 'The evaluation', schema: dataOf(evaluationSchema) },
      409: { description: 'The rule is disabled', schema: errorSchema },
    },
  },
  authenticate('reconciliation:write'),
  validate({ params: ruleIdParams, body: evaluateRuleSchema, bodyRequired: false }),
  async function evaluateRuleHandler(ctx) {
    ctx.body = { data: await evaluateRule(ctx.deps.db, ctx.state.input.params.ruleID, ctx.state.input.body ?? {}) };
  },
);

export const listEvaluationsRoute = defineRoute(
  {
    method: 'get',
    path: '/api/reconciliation/evaluations',
    operationId: 'reconciliationV1ListEvaluations',
    summary: 'List evaluations, newest first',
    tags,
    responses: { 200: { description: 'Evaluations', schema: cursorOf(evaluationSchema) } },
  },
  authenticate('reconciliation:read'),
  validate({ query: evaluationListQuery }),
  async function listEvaluationsHandler(ctx) {
    const list = ctx.state.input.list;
    const filters = listFilters(list.filters.query, { ruleID: 'string', result: EVALUATION_RESULTS }) as EvaluationFilters;
    ctx.body = cursorEnvelope(list, await listEvaluations(ctx.deps.db, { ...list, filters }), (row) => [row.seq], presentEvaluation);
  },
);

export const getEvaluationRoute = defineRoute(
  {
    method: 'get',
    path: '/api/reconciliation/evaluations/{evaluationID}',
    operationId: 'reconciliationV1GetEvaluation',
    summary: 'Read an evaluation',
    tags,
    responses: { 200: { description: 'The evaluation', schema: dataOf(evaluationSchema) } },
  },
  authenticate('reconciliation:read'),
  validate({ params: evaluationIdParams }),
  async function getEvaluationHandler(ctx) {
    ctx.body = { data: await getEvaluation(ctx.deps.db, ctx.state.input.params.evaluationID) };
  },
);

export const ruleRoutes = [
  createRuleRoute,
  listRulesRoute,
  getRuleRoute,
  patchRuleRoute,
  deleteRuleRoute,
  evaluateRuleRoute,
  listEvaluationsRoute,
  getEvaluationRoute,
];
