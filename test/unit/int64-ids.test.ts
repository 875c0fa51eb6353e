import { buildOpenApiDocument } from '../../api/openapi/document';
import { routesWithBuiltInPlugins } from '../support/routes';
import { int64IdSchema } from '../../api/schemas/common';
import { compileBody, compileParams } from '../../api/validation';
import { stringifyJson } from '../../lib/json';

const allRoutes = routesWithBuiltInPlugins();

const params = compileParams({ type: 'object', properties: { id: int64IdSchema('id') }, required: ['id'] });
const body = compileBody({ type: 'object', properties: { id: int64IdSchema('id') }, required: ['id'] });

describe('int64 ids', () => {
  it('accept every digit string from 0 to 2^63 - 1 in a path, unrounded', () => {
    for (const id of ['0', '1', '9007199254740993', '9223372036854775807']) {
      const input = { id };
      expect(params(input)).toBe(true);
      expect(BigInt(input.id)).toBe(BigInt(id));
    }
  });

  it.each(['9223372036854775808', '-1', '', ' 1', '1e3', '0x10', '1.0', 'abc'])('refuse %j in a path', (id) => {
    expect(params({ id })).toBe(false);
    expect(params.errors?.[0]?.message).toBe('must be an integer from 0 to 9223372036854775807');
  });

  it('accept numbers and BigInts in a body up to 2^63 - 1, and no strings there', () => {
    expect(body({ id: 5 })).toBe(true);
    expect(body({ id: 9223372036854775807n })).toBe(true);
    expect(body({ id: 9223372036854775808n })).toBe(false);
    expect(body({ id: -1 })).toBe(false);
    expect(body({ id: 1.5 })).toBe(false);
    expect(body({ id: '5' })).toBe(false);
  });

  it('print the exact bound in the OpenAPI document', () => {
    const text = stringifyJson(buildOpenApiDocument(allRoutes, { publicUrl: 'http://127.0.0.1:8080' }));
    expect(text).toContain('"maximum":9223372036854775807');
    expect(text).not.toContain('9223372036854776000');
  });
});
