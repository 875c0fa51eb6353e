import type { Config } from '../../lib/config';
import { ALL_SCOPES } from '../middleware/authenticate';
import type { JsonSchema, RouteDefinition } from '../routing';
import { errorSchema } from '../schemas/common';
import { REQUEST_EXAMPLES, RESPONSE_EXAMPLES } from './request-examples';

const ERROR_RESPONSES: Record<number, string> = {
  400: 'Invalid request (VALIDATION or a domain error code).',
  401: 'Missing or invalid access token.',
  403: 'The token lacks the required scope (insufficient_scope).',
  404: 'Not found.',
  413: 'Body larger than 1 MiB.',
  415: 'Body is not JSON.',
  429: 'Too many requests; retry after Retry-After seconds.',
  500: 'Internal error (generic message; the cause is logged with the request id).',
};

/** Strips the validator-only markers from a schema before it goes into the document. */
function clean(schema: unknown): unknown {
  if (Array.isArray(schema)) return schema.map(clean);
  if (!schema || typeof schema !== 'object') return schema;
  return Object.fromEntries(
    Object.entries(schema as Record<string, unknown>)
      .filter(([k]) => k !== 'x-paginated')
      .map(([k, v]) => [k, clean(v)]),
  );
}

function parametersOf(route: RouteDefinition) {
  const params: unknown[] = [];
  for (const [where, schema] of [
    ['path', route.schemas.params],
    ['query', route.schemas.query],
  ] as const) {
    const props = (schema?.properties ?? {}) as Record<string, JsonSchema>;
    const required = new Set((schema?.required as string[]) ?? []);
    for (const [name, prop] of Object.entries(props)) {
      params.push({ name, in: where, required: where === 'path' || required.has(name), schema: clean(prop), description: prop.description });
    }
  }
  for (const [name, header] of Object.entries(route.spec.headers ?? {})) {
    params.push({ name, in: 'header', required: false, description: header.description, schema: header.schema });
  }
  return params;
}

const pathParams = (path: string) => [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);

/**
 * Where a create's answer carries the new id: `{data: {id, ...}}` (most areas) or `{data: "<id>"}` (payments v3, as
 * Formance answers there).
 */
function createdIdPointer(schema: JsonSchema | undefined): string | undefined {
  const data = (schema?.properties as Record<string, JsonSchema> | undefined)?.data;
  if ((data?.properties as Record<string, unknown> | undefined)?.id) return '$response.body#/data/id';
  return data?.type === 'string' ? '$response.body#/data' : undefined;
}

/**
 * OpenAPI links from each create (a POST answering the new id on path P) to the operations on `P/{param}...`: the new
 * id fills `{param}`, the create's own path parameters fill theirs. Clients and generators read them as "what to
 * call next"; schemathesis's stateful phase follows them to reach the reads and changes of resources it created.
 */
function linksOf(route: RouteDefinition, routes: RouteDefinition[], idPointer: string): Record<string, unknown> | undefined {
  const { spec } = route;
  if (spec.method !== 'post') return undefined;
  const own = new Set(pathParams(spec.path));
  const links: Record<string, unknown> = {};
  for (const target of routes) {
    const rest = target.spec.path.startsWith(`${spec.path}/{`) ? target.spec.path.slice(spec.path.length + 1) : undefined;
    const idParam = rest ? /^\{(\w+)\}/.exec(rest)?.[1] : undefined;
    if (!idParam || own.has(idParam)) continue;
    const others = pathParams(target.spec.path).filter((name) => name !== idParam);
    if (!others.every((name) => own.has(name))) continue;
    links[target.spec.operationId] = {
      operationId: target.spec.operationId,
      parameters: Object.fromEntries([[`path.${idParam}`, idPointer], ...others.map((name) => [`path.${name}`, `$request.path.${name}`])]),
    };
  }
  return Object.keys(links).length > 0 ? links : undefined;
}

/** A request body's media type: its schema and, when the catalogue has one, an example a client can send as is. */
function requestMedia(route: RouteDefinition) {
  const example = route.spec.requestExample ?? REQUEST_EXAMPLES[route.spec.operationId];
  return { schema: clean(route.schemas.body), ...(example !== undefined ? { example } : {}) };
}

function responseExample(operationId: string, status: string) {
  const example = RESPONSE_EXAMPLES[operationId]?.[Number(status)];
  return example !== undefined ? { example } : {};
}

/** One OpenAPI 3.1 document built from the route definitions: what is served is what is validated. */
export function buildOpenApiDocument(routes: RouteDefinition[], config: Pick<Config, 'publicUrl'>) {
  const paths: Record<string, Record<string, unknown>> = {};
  for (const route of routes) {
    const { spec } = route;
    const responses: Record<string, unknown> = {};
    for (const [status, response] of Object.entries(spec.responses)) {
      const idPointer = Number(status) < 300 ? createdIdPointer(response.schema) : undefined;
      const declared =
        Number(status) < 300 && spec.links
          ? Object.fromEntries(Object.entries(spec.links).map(([operationId, link]) => [operationId, { operationId, ...link }]))
          : {};
      const merged = { ...(idPointer ? linksOf(route, routes, idPointer) : {}), ...declared };
      const links = Object.keys(merged).length > 0 ? merged : undefined;
      responses[status] = {
        description: response.description,
        ...(response.headers ? { headers: response.headers } : {}),
        ...(response.schema
          ? { content: { 'application/json': { schema: clean(response.schema), ...responseExample(spec.operationId, status) } } }
          : {}),
        ...(links ? { links } : {}),
      };
    }
    const errorStatuses = route.scope === null ? [400, 500] : [400, 401, 403, 404, 429, 500];
    if (route.schemas.body) errorStatuses.push(413, 415);
    for (const status of errorStatuses) {
      responses[status] ??= {
        description: ERROR_RESPONSES[status],
        content: { 'application/json': { schema: { $ref: '#/components/schemas/Error' } } },
      };
    }
    paths[spec.path] ??= {};
    paths[spec.path][spec.method] = {
      operationId: spec.operationId,
      summary: spec.summary,
      ...(spec.description ? { description: spec.description } : {}),
      tags: spec.tags,
      parameters: parametersOf(route),
      ...(route.schemas.body
        ? { requestBody: { required: route.schemas.bodyRequired ?? true, content: { 'application/json': requestMedia(route) } } }
        : {}),
      responses,
      security: route.scope === null ? [] : [{ oauth2: [route.scope] }],
      ...(route.scope ? { 'x-required-scope': route.scope } : {}),
    };
  }
  return {
    openapi: '3.1.0',
    info: {
      title: 'Financial Platform API',
      version: '0.1.0',
      description:
        'Ledger, wallets, payments, orchestration on Temporal, webhooks and OAuth 2.0 clients. Amounts are JSON integers of any size. ' +
        'Errors are `{errorCode, errorMessage, details?}`. Lists take `pageSize` (1..1000, default 15) and an opaque `cursor` sent alone.',
    },
    servers: [{ url: config.publicUrl }],
    paths,
    components: {
      schemas: { Error: errorSchema },
      securitySchemes: {
        oauth2: {
          type: 'oauth2',
          description: 'Access tokens from the client_credentials grant. `<area>:write` implies `<area>:read`.',
          flows: {
            clientCredentials: {
              tokenUrl: `${config.publicUrl}/api/auth/oauth/token`,
              scopes: Object.fromEntries(ALL_SCOPES.map((s) => [s, `${s.endsWith('write') ? 'Change' : 'Read'} the ${s.split(':')[0]} area`])),
            },
          },
        },
      },
    },
  };
}
