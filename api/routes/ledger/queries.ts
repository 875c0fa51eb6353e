import { runQuery, v2TransactionView } from '../../../areas/ledger';
import { validationError } from '../../../lib/errors';
import { cursorEnvelope } from '../../pagination';
import { wireLog } from './logs';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { defineRoute } from '../../routing';
import {
  anyObjectSchema,
  booleanSchema,
  dateTimeSchema,
  ignoredParam,
  listQuerySchema,
  mapSchema,
  objectSchema,
  stringSchema,
} from '../../schemas/common';

const ledgerName = () => stringSchema({ minLength: 1, maxLength: 63 });

export const runQueryRoute = defineRoute(
  {
    method: 'post',
    path: '/api/ledger/v2/{ledger}/queries/{id}/run',
    operationId: 'runQuery',
    tags: ['ledger'],
    summary: 'Run a query template of a ledger schema version',
    description:
      "Formance's runQuery. The template (`queries.{id}` of schema version `schemaVersion`) names a resource (accounts, transactions, logs, volumes) and a JSON filter whose `${var}` placeholders take the body's `vars` (else the template's defaults); the answer is that list's cursor page. A cursor carries the schema version; send the same `vars` with it.",
    responses: { 200: { description: "The page of the template's resource, shaped as that resource's list" } },
  },
  authenticate('ledger:read'),
  validate({
    params: objectSchema({ ledger: ledgerName(), id: stringSchema({ minLength: 1, maxLength: 256 }) }, ['ledger', 'id']),
    query: listQuerySchema({
      schemaVersion: stringSchema({ minLength: 1, maxLength: 256, description: 'The schema version holding the template (required).' }),
      expand: ignoredParam(stringSchema()),
      order: ignoredParam(stringSchema({ enum: ['asc', 'desc'] })),
      pit: ignoredParam(dateTimeSchema),
      reverse: ignoredParam(booleanSchema()),
      sort: ignoredParam(stringSchema()),
    }),
    body: objectSchema({ cursor: ignoredParam(stringSchema()), params: ignoredParam(anyObjectSchema()), vars: mapSchema(stringSchema()) }),
    bodyRequired: false,
  }),
  async function runQueryHandler(ctx) {
    const { params, body } = ctx.state.input;
    const list = ctx.state.input.list;
    const schemaVersion = list.filters.schemaVersion;
    if (schemaVersion === undefined) throw validationError('query.schemaVersion: required');
    const run = await runQuery(ctx.deps.db, params.ledger, { id: params.id, schemaVersion, vars: body?.vars }, list);
    switch (run.resource) {
      case 'accounts':
        ctx.body = cursorEnvelope(list, run.page, (a) => [a.address]);
        break;
      case 'transactions':
        ctx.body = cursorEnvelope(list, run.page, (tx) => [tx.id.toString()], v2TransactionView);
        break;
      case 'logs':
        ctx.body = cursorEnvelope(list, run.page, (log) => [log.id.toString()], wireLog);
        break;
      case 'volumes':
        ctx.body = cursorEnvelope(list, run.page, (v) => [v.account, v.asset]);
        break;
    }
  },
);
