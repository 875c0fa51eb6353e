import Koa from 'koa';
import Router, { type Layer } from '@koa/router';
import compose from 'koa-compose';
import { ApiError } from '../lib/errors';
import type { AppContext, AppDeps, AppState } from './context';
import { jsonBody } from './middleware/json-body';
import { requestLifecycle } from './middleware/request-context';
import { buildOpenApiDocument } from './openapi/document';
import { allRoutes } from './routes';
import { metricsAnswer } from '../lib/metrics';
import { toKoaPath, type RouteDefinition } from './routing';

/**
 * Builds the Koa application from its dependencies. No globals: tests build as many apps as they need, each against
 * the real database and Temporal server of the run.
 */
export function createApp(deps: AppDeps, routes: RouteDefinition[] = allRoutes): Koa {
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
    if (!table) tables.set(key, (table = { router: new Router<AppState, { deps: AppDeps }>(), routes: [] }));
    const layer = table.router.register(toKoaPath(route.spec.path), [route.spec.method.toUpperCase()], route.chain, {
      name: route.spec.operationId,
    });
    // One path gives one layer (an array of paths would give a router of them). Layer is a type-only export at run time.
    if (layer instanceof Router) throw new Error(`route ${route.spec.path}: expected one layer`);
    table.routes.push({ layer, chain: compose(route.chain as Koa.Middleware[]) });
  }

  // What no route answered: a 405 with Allow when the path is a route's under another method, a 404 otherwise.
  const unmatched = (ctx: Koa.Context): ApiError => {
    const allowed = new Set<string>();
    for (const layer of tables.get(routeTable(ctx.path))?.router.match(ctx.path, ctx.method).path ?? []) for (const m of layer.methods) allowed.add(m);
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
    return table ? dispatchFrom(table, 0, ctx as unknown as AppContext, next) : next();
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

/** A route table's router, which compiled its paths, and its routes in the order they were registered. */
interface RouteTable {
  router: Router<AppState, { deps: AppDeps }>;
  routes: Array<{ layer: Layer<AppState, { deps: AppDeps }>; chain: (ctx: AppContext, next: Koa.Next) => Promise<unknown> }>;
}

/**
 * Runs the chain of the table's first route matching the request's method and path, with that route's parameters set
 * as the router sets them. A chain that calls next goes on to the next matching route, and past the last one to `next`
 * (the 404 or 405): what router.routes() did, which composed the chains of every match in registration order. It is
 * dispatched here because router.routes() tested each route of the table through a `debug` call, built a match result
 * and composed the chains anew on every request: 2.0 us of the 21.7 a read by id cost the API in process, about 9%.
 */
function dispatchFrom(table: RouteTable, first: number, ctx: AppContext, next: Koa.Next): Promise<unknown> {
  const { path, method } = ctx;
  for (let index = first; index < table.routes.length; index += 1) {
    const { layer, chain } = table.routes[index];
    if (!layer.methods.includes(method) || !layer.match(path)) continue;
    ctx.captures = layer.captures(path);
    // Over the parameters of the routes that handed over, as the router merged them.
    ctx.params = ctx.request.params = layer.params(path, ctx.captures, ctx.params);
    ctx.routerPath = ctx._matchedRoute = layer.path as string;
    ctx.routerName = ctx._matchedRouteName = layer.name;
    return chain(ctx, () => dispatchFrom(table, index + 1, ctx, next));
  }
  return next();
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
