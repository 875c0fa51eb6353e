import { getSchema, insertSchema, listSchemas, type LedgerSchema } from '../../../areas/ledger';

type Listed = { seq: string; schema: LedgerSchema };
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { cursorEnvelope } from '../../pagination';
import { defineRoute } from '../../routing';
import { cursorOf, dataOf } from '../../schemas/common';
import { listSchemasQuery, schemaDataSchema, schemaParams, schemaSchema, ledgerParams } from '../../schemas/ledger-schemas';
import { idempotencyHeader } from './input';

const tags = ['ledger'];

export const insertSchemaRoute = defineRoute(
  {
    method: 'post',
    path: '/api/ledger/v2/{ledger}/schemas/{version}',
    operationId: 'insertSchema',
    tags,
    headers: idempotencyHeader,
    summary: 'Insert a schema version: a chart of accounts and transaction templates that writes naming the version are checked against',
    description:
      'A version is immutable: inserting an existing one is 400 SCHEMA_ALREADY_EXISTS. The chart is checked and every template compiled first; the schema is written with an INSERTED_SCHEMA log.',
    responses: { 204: { description: 'Inserted' } },
  },
  authenticate('ledger:write'),
  validate({ params: schemaParams, body: schemaDataSchema }),
  async function insertSchemaHandler(ctx) {
    const { ledger, version } = ctx.state.input.params;
    await insertSchema(ctx.deps.db, ledger, version, ctx.state.input.body);
    ctx.status = 204;
  },
);

export const readSchemaRoute = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/v2/{ledger}/schemas/{version}',
    operationId: 'getSchema',
    summary: 'Read a schema version',
    tags,
    responses: { 200: { description: 'Schema', schema: dataOf(schemaSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: schemaParams }),
  async function readSchemaHandler(ctx) {
    const { ledger, version } = ctx.state.input.params;
    ctx.body = { data: await getSchema(ctx.deps.db, ledger, version) };
  },
);

export const listSchemasRoute = defineRoute(
  {
    method: 'get',
    path: '/api/ledger/v2/{ledger}/schemas',
    operationId: 'listSchemas',
    summary: 'List schema versions, newest first (`order=asc`: oldest first)',
    tags,
    responses: { 200: { description: 'Schemas', schema: cursorOf(schemaSchema) } },
  },
  authenticate('ledger:read'),
  validate({ params: ledgerParams, query: listSchemasQuery }),
  async function listSchemasHandler(ctx) {
    const list = ctx.state.input.list;
    const page = await listSchemas(ctx.deps.db, ctx.state.input.params.ledger, list.filters.order ?? 'desc', list);
    ctx.body = cursorEnvelope(
      list,
      page,
      (item: Listed) => [item.seq],
      (item: Listed) => item.schema,
    );
  },
);

export const schemaRoutes = [insertSchemaRoute, readSchemaRoute, listSchemasRoute];
