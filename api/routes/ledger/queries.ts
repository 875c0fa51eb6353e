import { runQuery } from '../../../areas/ledger';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { defineRoute } from '../../routing';
import { anyObjectSchema, booleanSchema, dateTimeSchema, ignoredParam, integerSchema, mapSchema, objectSchema, stringSchema } from '../../schemas/common';

const ledgerName = () => stringSchema({ minLength: 1, maxLength: 63 });

export const runQueryRoute = defineRoute(
  {
    method: 'post', path: '/api/ledger/v2/{ledger}/queries/{id}/run', operationId: 'runQuery', tags: ['ledger'],
    summary: 'Run a query template of a ledger schema version (templates are not stored yet: 404)',
    description: 'Formance\'s runQuery. Query templates come with ledger schemas, which this platform does not store yet, so every template is unknown (404 NOT_FOUND naming it). The parameters and body are Formance\'s and are validated.',
    responses: { 200: { description: 'The page of the template\'s resource' } },
  },
  authenticate('ledger:read'),
  validate({
    params: objectSchema({ ledger: ledgerName(), id: stringSchema({ minLength: 1, maxLength: 256 }) }, ['ledger', 'id']),
    query: objectSchema(
      {
        schemaVersion: stringSchema({ minLength: 1, maxLength: 256, description: 'The schema version holding the template.' }),
        cursor: stringSchema(),
        pageSize: integerSchema({ minimum: 1, maximum: 1000 }),
        expand: ignoredParam(stringSchema()),
        order: ignoredParam(stringSchema({ enum: ['asc', 'desc'] })),
        pit: ignoredParam(dateTimeSchema),
        reverse: ignoredParam(booleanSchema()),
        sort: ignoredParam(stringSchema()),
      },
      ['schemaVersion'],
    ),
    body: objectSchema({ cursor: stringSchema(), params: anyObjectSchema(), vars: mapSchema(stringSchema()) }),
    bodyRequired: false,
  }),
  async function runQueryHandler(ctx) {
    const { params, query } = ctx.state.input;
    await runQuery(ctx.deps.db, params.ledger, { id: params.id, schemaVersion: query.schemaVersion });
  },
);
