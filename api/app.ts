import Koa from 'koa';
import Router from '@koa/router';
import { ApiError } from '../lib/errors';
import type { AppDeps, AppState } from './context';
import { jsonBody } from './middleware/json-body';
import { requestLifecycle } from './middleware/request-context';
import { buildOpenApiDocument } from './openapi/document';
import { allRoutes } from './routes';
import { toKoaPath, type RouteDefinition } from './routing';

/**
 * Builds the Koa application from its dependencies. No globals: tests build as many apps as they need, each against
 * the real database and Temporal server of the run.
 */
export function createApp(deps: AppDeps, routes: RouteDefinition[] = allRoutes): Koa {
  const app = new Koa();
  app.proxy = process.env.TRUST_PROXY === 'true';
  app.silent = true; // errors are logged by the error handler, with the request id
  deps.openApiDocument = buildOpenApiDocument(routes, deps.config);
  Object.assign(app.context, { deps });

  // One router per route table (see routeTable): @koa/router tests every route of its table against each request, so a
  // single table of all ~260 routes cost a read by id more API CPU than its own query.
  const routers = new Map<string, Router<AppState, { deps: AppDeps }>>();
  for (const route of routes) {
    const table = routeTable(route.spec.path);
    if (table.includes('{')) throw new Error(`route ${route.spec.path}: an area segment cannot be a parameter (see routeGroup)`);
    let router = routers.get(table);
    if (!router) routers.set(table, (router = new Router<AppState, { deps: AppDeps }>()));
    router.register(toKoaPath(route.spec.path), [route.spec.method.toUpperCase()], route.chain, {
      name: route.spec.operationId,
    });
  }
  const dispatchers = new Map([...routers].map(([table, router]) => [table, router.routes()]));

  // What no route answered: a 405 with Allow when the path is a route's under another method, a 404 otherwise.
  const unmatched = (ctx: Koa.Context): ApiError => {
    const allowed = new Set<string>();
    for (const layer of routers.get(routeTable(ctx.path))?.match(ctx.path, ctx.method).path ?? []) for (const m of layer.methods) allowed.add(m);
    if (allowed.size > 0) {
      if (allowed.has('GET')) allowed.add('HEAD');
      return new ApiError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}`, { headers: { Allow: [...allowed].join(', ') } });
    }
    return new ApiError('NOT_FOUND', `no route for ${ctx.method} ${ctx.path}`);
  };

  app.use(requestLifecycle(deps.logger, unmatched));
  for (const mount of deps.mounts ?? []) app.use(mount);
  app.use(jsonBody());
  app.use(function routeByTable(ctx, next) {
    const dispatch = dispatchers.get(routeTable(ctx.path));
    return dispatch ? dispatch(ctx as Parameters<typeof dispatch>[0], next) : next();
  });
  return app;
}

/**
 * A path's area: its first two segments under /api (`/api/ledger`), its first segment otherwise. No route's first
 * segments are parameters, so a request can only match routes of its own group; lower-cased because the routers
 * match paths case-insensitively.
 */
export function routeGroup(path: string): string {
  // Slices of the path rather than a lower-cased copy split in four: this runs on every request.
  const firstEnd = path.indexOf('/', 1);
  const first = path.slice(1, firstEnd === -1 ? undefined : firstEnd).toLowerCase();
  if (first !== 'api') return `/${first}`;
  if (firstEnd === -1) return '/api/';
  const secondEnd = path.indexOf('/', firstEnd + 1);
  return `/api/${path.slice(firstEnd + 1, secondEnd === -1 ? undefined : secondEnd).toLowerCase()}`;
}

/**
 * A path's route table: its group and its number of segments, a trailing slash aside (the routers accept one). No
 * route parameter spans a slash, so a request can only match the routes of its own table: a read by id is tested
 * against the twenty or so routes of its shape instead of its area's seventy.
 */
export function routeTable(path: string): string {
  const end = path.length > 1 && path.endsWith('/') ? path.length - 1 : path.length;
  let segments = 0;
  for (let i = 0; i < end; i += 1) if (path.charCodeAt(i) === 47 /* '/' */) segments += 1;
  return `${routeGroup(path)} ${segments}`;
}
