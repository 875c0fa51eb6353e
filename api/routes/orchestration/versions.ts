import type { ChainMiddleware, OperationSpec, RouteDefinition, RouteHandler, ValidateMiddleware } from '../../routing';
import { defineRoute } from '../../routing';

/**
 * Orchestration serves each operation under `/api/orchestration/v2/...` (the spec's paths) and, for Formance's v1
 * clients, under `/api/orchestration/...` with the same behaviour. `path` is given without the prefix.
 */
export function versionedRoutes<I>(
  spec: Omit<OperationSpec, 'path'> & { path: string },
  guard: ChainMiddleware,
  validation: ValidateMiddleware<I>,
  handler: RouteHandler<I>,
): RouteDefinition[] {
  return [
    defineRoute({ ...spec, path: `/api/orchestration/v2${spec.path}` }, guard, validation, handler),
    defineRoute(
      {
        ...spec,
        path: `/api/orchestration${spec.path}`,
        operationId: `${spec.operationId}V1`,
        summary: `${spec.summary} (v1 path)`,
        // A v1 operation links to v1 operations.
        ...(spec.links ? { links: Object.fromEntries(Object.entries(spec.links).map(([id, link]) => [`${id}V1`, link])) } : {}),
      },
      guard,
      validation,
      handler,
    ),
  ];
}
