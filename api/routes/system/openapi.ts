import { openRoute } from '../../middleware/authenticate';
import { defineRoute } from '../../routing';

/** The OpenAPI 3.1 document, built once per app from the same route definitions the router and validators use. */
export const openApiRoute = defineRoute(
  {
    method: 'get',
    path: '/api/openapi.json',
    operationId: 'openApiDocument',
    summary: 'The OpenAPI 3.1 document of this API',
    tags: ['system'],
    responses: { 200: { description: 'OpenAPI document', schema: { type: 'object' } } },
  },
  openRoute(),
  async function openApiDocument(ctx) {
    ctx.body = ctx.deps.openApiDocument;
  },
);
