import { buildOpenApiDocument } from '../../api/openapi/document';
import { routesWithBuiltInPlugins } from '../support/routes';

const allRoutes = routesWithBuiltInPlugins();

/**
 * Structural rules of the OpenAPI document that a schema composed from pieces can break without any route failing:
 * a client generator or a fuzzer refuses the whole document (schemathesis did, on a hold's `asset` listed twice).
 */
function requiredLists(node: unknown, path: string, out: Array<{ path: string; required: unknown[] }>): typeof out {
  if (Array.isArray(node)) node.forEach((item, i) => requiredLists(item, `${path}[${i}]`, out));
  else if (node && typeof node === 'object') {
    for (const [key, value] of Object.entries(node)) {
      if (key === 'required' && Array.isArray(value)) out.push({ path, required: value });
      else requiredLists(value, `${path}.${key}`, out);
    }
  }
  return out;
}

describe('OpenAPI schemas', () => {
  const lists = requiredLists(buildOpenApiDocument(allRoutes, { publicUrl: 'http://127.0.0.1:8080' }), '$', []);

  it('list every required member once', () => {
    expect(lists.length).toBeGreaterThan(100);
    expect(lists.filter(({ required }) => new Set(required).size !== required.length).map(({ path }) => path)).toEqual([]);
  });
});
