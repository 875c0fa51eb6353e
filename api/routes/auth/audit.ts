import { listAuditEntries } from '../../../areas/auth';
import { cursorEnvelope } from '../../pagination';
import { authenticate } from '../../middleware/authenticate';
import { validate } from '../../middleware/validate';
import { defineRoute } from '../../routing';
import { arraySchema, cursorOf, dateTimeSchema, integerSchema, listQuerySchema, mapSchema, objectSchema, stringSchema } from '../../schemas/common';

const auditEntrySchema = objectSchema(
  {
    id: stringSchema({ format: 'uuid' }),
    at: dateTimeSchema,
    clientId: stringSchema({ description: 'The calling client; absent when the request had no valid token.' }),
    scopes: arraySchema(stringSchema()),
    method: stringSchema(),
    route: stringSchema({ description: "The route template, as in this document's paths." }),
    targets: mapSchema(stringSchema(), { description: 'The path parameters: ids of what the request targeted.' }),
    status: integerSchema(),
    requestId: stringSchema({ description: 'The X-Request-Id of the request, in every log line it wrote.' }),
    traceId: stringSchema({ description: "The request's OpenTelemetry trace id (32 hex digits); present only when the API traces." }),
    durationMs: { type: 'number', description: 'Time to the answer, in milliseconds.' },
  },
  ['id', 'at', 'scopes', 'method', 'route', 'targets', 'status', 'requestId', 'durationMs'],
);

const listAuditQuery = {
  ...listQuerySchema({
    clientId: stringSchema({ minLength: 1, description: "Only this client's requests." }),
    route: stringSchema({ minLength: 1, description: 'Only this route template, e.g. `/api/auth/clients/{clientId}`.' }),
    status: integerSchema({ minimum: 100, maximum: 599, description: 'Only answers with this status.' }),
    startTime: { ...dateTimeSchema, description: 'Only requests at or after startTime.' },
    endTime: { ...dateTimeSchema, description: 'Only requests before endTime.' },
  }),
  additionalProperties: false,
} as const;

export const listAuditEntriesRoute = defineRoute(
  {
    method: 'get',
    path: '/api/auth/audit/entries',
    operationId: 'listAuditEntries',
    summary: 'The audit trail: state-changing requests, newest first (client, route, status and time filters)',
    tags: ['auth'],
    responses: { 200: { description: 'Audit entries', schema: cursorOf(auditEntrySchema) } },
  },
  authenticate('auth:read'),
  validate({ query: listAuditQuery }),
  async function listAuditEntriesHandler(ctx) {
    const list = ctx.state.input.list;
    const { clientId, route, status, startTime, endTime } = list.filters;
    const page = await listAuditEntries(
      ctx.deps.db,
      { clientId, route, status, startTime: startTime ? new Date(startTime) : undefined, endTime: endTime ? new Date(endTime) : undefined },
      list,
    );
    ctx.body = cursorEnvelope(
      list,
      page,
      (entry) => [entry.seq],
      ({ seq: _seq, ...entry }) => entry,
    );
  },
);

export const auditRoutes = [listAuditEntriesRoute];
