import Koa from 'koa';
import Router from '@koa/router';
import { ApiError } from '../lib/errors';
import type { AppDeps, AppState } from './context';
import { jsonBody } from './middleware/json-body';
import { requestLifecycle } from './middleware/request-context';
import { buildOpenApiDocument } from './openapi/document';
import { apiRoutes } from './routes';
import { metricsAnswer } from '../lib/metrics';
import { toKoaPath, type RouteDefinition } from './routing';

/**
 * Builds the Koa application from its dependencies. No globals: tests build as many apps as they need, each against
 * the real database and Temporal server of the run.
 */
export function createApp(deps: AppDeps, routes: RouteDefinition[] = apiRoutes()): Koa {
  const app = new Koa();
  app.proxy = deps.config.trustProxy;
  app.silent = true; // errors are logged by the error handler, with the request id
  deps.openApiDocument = buildOpenApiDocument(routes, deps.config);
  Object.assign(app.context, { deps });

  // One table per area and number of segments (see routeTable): a request is only ever tested against the twenty or so
  // routes of its shape instead of all ~260.
  const tables = new Map<string, RouteTable>();
  for (const route of routes) {
    const key = routeTable(route.spec.path);
    if (key.includes('{')) throw new Error(`route ${route.spec.path}: an area segment cannot be a parameter (see routeGroup)`);
    let table = tables.get(key);
    if (!table) {
      const router = new Router<AppState, { deps: AppDeps }>();
      tables.set(key, (table = { router, dispatch: router.routes() as unknown as Koa.Middleware }));
    }
    table.router.register(toKoaPath(route.spec.path), [route.spec.method.toUpperCase()], route.chain, { name: route.spec.operationId });
  }

  // What no route answered: a 405 with Allow when the path is a route's under another method, a 404 otherwise.
  const unmatched = (ctx: Koa.Context): ApiError => {
    const allowed = new Set<string>();
    for (const layer of tables.get(routeTable(ctx.path))?.router.match(ctx.path, ctx.method).path ?? [])
      for (const m of layer.methods) allowed.add(m);
    if (allowed.size > 0) {
      if (allowed.has('GET')) allowed.add('HEAD');
      return new ApiError('METHOD_NOT_ALLOWED', `${ctx.method} is not allowed on ${ctx.path}`, { headers: { Allow: [...allowed].join(', ') } });
    }
    return new ApiError('NOT_FOUND', `no route for ${ctx.method} ${ctx.path}`);
  };

  app.use(requestLifecycle(deps.logger, unmatched, deps.audit));
  // Prometheus scrapes without a token: API_METRICS=off when the API's port is reachable by anyone who should not
  // read request rates and pool figures (docs/operations.md, Observability).
  if (deps.config.apiMetrics) app.use(serveMetrics);
  for (const mount of deps.mounts ?? []) app.use(mount);
  app.use(jsonBody());
  app.use(function routeByTable(ctx, next) {
    const table = tables.get(routeTable(ctx.path));
    return table ? table.dispatch(ctx, next) : next();
  });
  return app;
}

/** `GET /metrics`: the process's Prometheus metrics in the text exposition format. */
async function serveMetrics(ctx: Koa.Context, next: Koa.Next): Promise<unknown> {
  if (ctx.path !== '/metrics' || (ctx.method !== 'GET' && ctx.method !== 'HEAD')) return next();
  const { contentType, body } = await metricsAnswer();
  ctx.type = contentType;
  ctx.body = body;
}

/** A route table's router and its dispatch middleware (router.routes(), built once). */
interface RouteTable {
  router: Router<AppState, { deps: AppDeps }>;
  dispatch: Koa.Middleware;
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
