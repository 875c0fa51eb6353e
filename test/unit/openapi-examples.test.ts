import { buildOpenApiDocument } from '../../api/openapi/document';
import { REQUEST_EXAMPLES, RESPONSE_EXAMPLES } from '../../api/openapi/request-examples';
import { routesWithBuiltInPlugins } from '../support/routes';
import { compileBody, describeErrors } from '../../api/validation';
import { parseJson, stringifyJson } from '../../lib/json';

const allRoutes = routesWithBuiltInPlugins();

/**
 * Every request body in the OpenAPI document comes with an example, and every example is a body the API accepts: it is
 * validated, as the API receives it (JSON text parsed by lib/json), by the validator the API compiles from the same
 * schema (api/validation.ts). The few response examples are held to their response schemas the same way.
 */
describe('OpenAPI examples', () => {
  const withBody = allRoutes.filter((route) => route.schemas.body);
  const document = buildOpenApiDocument(allRoutes, { publicUrl: 'http://127.0.0.1:8080' });
  // A route built at start (a connector plugin's install) carries its own example; the others are in the catalogue.
  const exampleOf = (operationId: string) => {
    const route = allRoutes.find((r) => r.spec.operationId === operationId);
    return route?.spec.requestExample ?? REQUEST_EXAMPLES[operationId];
  };

  it('cover every operation that takes a body', () => {
    expect(withBody.length).toBeGreaterThan(70);
    expect(withBody.map((route) => route.spec.operationId).filter((id) => exampleOf(id) === undefined)).toEqual([]);
  });

  it('name only operations that take a body', () => {
    const known = new Set(withBody.map((route) => route.spec.operationId));
    expect(Object.keys(REQUEST_EXAMPLES).filter((id) => !known.has(id))).toEqual([]);
  });

  it.each(withBody.map((route) => [route.spec.operationId, route] as const))('%s: the example is a valid body', (operationId, route) => {
    const validate = compileBody(route.schemas.body!);
    const received = parseJson(stringifyJson(exampleOf(operationId)));
    const valid = validate(received);
    expect(valid ? 'valid' : describeErrors('body', validate.errors)).toBe('valid');
  });

  it('are served as the media type example of each request body', () => {
    const missing: string[] = [];
    for (const operations of Object.values(document.paths)) {
      for (const operation of Object.values(operations) as Array<{
        operationId: string;
        requestBody?: { content: Record<string, { example?: unknown }> };
      }>) {
        if (!operation.requestBody) continue;
        const example = operation.requestBody.content['application/json'].example;
        if (example === undefined || stringifyJson(example) !== stringifyJson(exampleOf(operation.operationId))) missing.push(operation.operationId);
      }
    }
    expect(missing).toEqual([]);
  });

  const responseCases = Object.entries(RESPONSE_EXAMPLES).flatMap(([operationId, byStatus]) =>
    Object.entries(byStatus).map(([status, example]) => [`${operationId} ${status}`, operationId, Number(status), example] as const),
  );

  it.each(responseCases)('%s: the response example matches its schema', (_name, operationId, status, example) => {
    const schema = allRoutes.find((route) => route.spec.operationId === operationId)?.spec.responses[status]?.schema;
    expect(schema).toBeDefined();
    const validate = compileBody(schema!);
    const valid = validate(parseJson(stringifyJson(example)));
    expect(valid ? 'valid' : describeErrors('response', validate.errors)).toBe('valid');
  });
});
