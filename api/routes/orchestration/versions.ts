import type { ChainMiddleware, OperationSpec, RouteDefinition, RouteHandler, ValidateMiddleware } from '../../routing';
import { defineRoute } from '../../routing';
import type { ListRequest } from '../../pagination';

type VersionedSpec = Omit<OperationSpec, 'path'> & { path: string };

/**
 * Orchestration serves each operation under `/api/orchestration/v2/...` (the spec's paths) and, for Formance's v1
 * clients, under `/api/orchestration/...` with the same behaviour. `path` is given without the prefix. As with
 * defineRoute, the handler's input is typed from the schemas `validation` checks; a route without input has no
 * `validation`.
 */
export function versionedRoutes<I>(
  spec: VersionedSpec,
  guard: ChainMiddleware,
  validation: ValidateMiddleware<I>,
  handler: RouteHandler<I>,
): RouteDefinition[];
export function versionedRoutes(spec: VersionedSpec, guard: ChainMiddleware, handler: RouteHandler): RouteDefinition[];
export function versionedRoutes<I>(
  spec: VersionedSpec,
  guard: ChainMiddleware,
  ...members: [validation: ValidateMiddleware<I>, handler: RouteHandler<I>] | [handler: RouteHandler]
): RouteDefinition[] {
  const define = (operation: OperationSpec) =>
    members.length === 2 ? defineRoute(operation, guard, members[0], members[1]) : defineRoute(operation, guard, members[0]);
  return [
    define({ ...spec, path: `/api/orchestration/v2${spec.path}` }),
    define({
      ...spec,
      path: `/api/orchestration${spec.path}`,
      operationId: `${spec.operationId}V1`,
      summary: `${spec.summary} (v1 path)`,
      // A v1 operation links to v1 operations.
      ...(spec.links ? { links: Object.fromEntries(Object.entries(spec.links).map(([id, link]) => [`${id}V1`, link])) } : {}),
    }),
  ];
}

/**
 * Formance's v1 lists answer `{data: [...]}` where v2 answers a cursor envelope. The v1 path answers both: `data`
 * for Formance's v1 clients, `cursor` for the clients of this API that already page the v1 paths.
 */
const v1DataEnvelope: ChainMiddleware = async function v1DataEnvelope(ctx, next) {
  await next();
  const body = ctx.body as { cursor?: { data?: unknown } } | undefined;
  if (ctx.status === 200 && body?.cursor) ctx.body = { ...body, data: body.cursor.data };
};

/** A paginated list under both prefixes, its v1 path answering Formance v1's `data` as well; typed as versionedRoutes. */
export function versionedListRoutes<I extends { list: ListRequest<object> }>(
  spec: VersionedSpec,
  guard: ChainMiddleware,
  validation: ValidateMiddleware<I>,
  handler: RouteHandler<I>,
): RouteDefinition[] {
  const [v2, v1] = versionedRoutes(spec, guard, validation, handler);
  const cursorSchema = spec.responses[200]?.schema as { properties?: { cursor?: { properties?: { data?: unknown } } } } | undefined;
  const responses = {
    ...v1.spec.responses,
    200: {
      description: `${spec.responses[200]?.description ?? 'List'} (with Formance v1's \`data\`)`,
      schema: { ...cursorSchema, properties: { ...cursorSchema?.properties, data: cursorSchema?.properties?.cursor?.properties?.data } },
    },
  };
  return [v2, { ...v1, spec: { ...v1.spec, responses }, chain: [v1DataEnvelope, ...v1.chain] }];
}
