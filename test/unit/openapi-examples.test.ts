import { buildOpenApiDocument } from '../../api/openapi/document';
import { REQUEST_EXAMPLES } from '../../api/openapi/request-examples';
import { allRoutes } from '../../api/routes';
import { compileBody, describeErrors } from '../../api/validation';
import { parseJson, stringifyJson } from '../../lib/json';

/**
 * Every request body in the OpenAPI document comes with an example, and every example is a body the API accepts: it is
 * validated, as the API receives it (JSON text parsed by lib/json), by the validator the API compiles from the same
 * schema (api/validation.ts).
 */
describe('OpenAPI request examples', () => {
  const withBody = allRoutes.filter((route) => route.schemas.body);
  const document = buildOpenApiDocument(allRoutes, { publicUrl: 'http://127.0.0.1:8080' });

  it('cover every operation that takes a body', () => {
    expect(withBody.length).toBeGreaterThan(70);
    expect(withBody.map((route) => route.spec.operationId).filter((id) => REQUEST_EXAMPLES[id] === undefined)).toEqual([]);
  });

  it('name only operations that take a body', () => {
    const known = new Set(withBody.map((route) => route.spec.operationId));
    expect(Object.keys(REQUEST_EXAMPLES).filter((id) => !known.has(id))).toEqual([]);
  });

  it.each(withBody.map((route) => [route.spec.operationId, route] as const))('%s: the example is a valid body', (operationId, route) => {
    const validate = compileBody(route.schemas.body!);
    const received = parseJson(stringifyJson(REQUEST_EXAMPLES[operationId]));
    const valid = validate(received);
    expect(valid ? 'valid' : describeErrors('body', validate.errors)).toBe('valid');
  });

  it('are served as the media type example of each request body', () => {
    const missing: string[] = [];
    for (const operations of Object.values(document.paths)) {
      for (const operation of Object.values(operations) as Array<{ operationId: string; requestBody?: { content: Record<string, { example?: unknown }> } }>) {
        if (!operation.requestBody) continue;
        const example = operation.requestBody.content['application/json'].example;
        if (example === undefined || stringifyJson(example) !== stringifyJson(REQUEST_EXAMPLES[operation.operationId])) missing.push(operation.operationId);
      }
    }
    expect(missing).toEqual([]);
  });
});
