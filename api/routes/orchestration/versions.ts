import type { ChainMiddleware, OperationSpec, RouteDefinition } from '../../routing';
import { defineRoute } from '../../routing';

/**
 * Orchestration serves each operation under `/api/orchestration/v2/...` (the spec's paths) and, for Formance's v1
 * clients, under `/api/orchestration/...` with the same behaviour. `path` is given without the prefix.
 */
export function versionedRoutes(spec: Omit<OperationSpec, 'path'> & { path: string }, ...chain: ChainMiddleware[]): RouteDefinition[] {
  return [
    defineRoute({ ...spec, path: `/api/orchestration/v2${spec.path}` }, ...chain),
    defineRoute(
      {
        ...spec,
        path: `/api/orchestration${spec.path}`,
        operationId: `${spec.operationId}V1`,
        summary: `${spec.summary} (v1 path)`,
        // A v1 operation links to v1 operations.
        ...(spec.links ? { links: Object.fromEntries(Object.entries(spec.links).map(([id, link]) => [`${id}V1`, link])) } : {}),
      },
      ...chain,
    ),
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

export function versionedListRoutes(spec: Omit<OperationSpec, 'path'> & { path: string }, ...chain: ChainMiddleware[]): RouteDefinition[] {
  const [v2, v1] = versionedRoutes(spec, ...chain);
  const cursorSchema = spec.responses[200]?.schema as { properties?: { cursor?: { properties?: { data?: unknown } } } } | undefined;
  const responses = {
    ...v1.spec.responses,
    200: { description: `${spec.responses[200]?.description ?? 'List'} (with Formance v1's \`data\`)`, schema: { ...cursorSchema, properties: { ...cursorSchema?.properties, data: cursorSchema?.properties?.cursor?.properties?.data } } },
  };
  return [v2, { ...v1, spec: { ...v1.spec, responses }, chain: [v1DataEnvelope, ...v1.chain] }];
}
