import http from 'node:http';
import type { AddressInfo } from 'node:net';
import { createApp } from '../../api/app';
import type { AppDeps } from '../../api/context';
import { openRoute } from '../../api/middleware/authenticate';
import { defineRoute, type RouteDefinition } from '../../api/routing';
import { createLogger } from '../../lib/logger';

/**
 * The API dispatches a request to the first route of its table matching its method and path (api/app.ts), as
 * @koa/router's routes() did: these cases pin the behaviour the routes rely on, on routes made for the test.
 */
const route = (method: 'get' | 'post', path: string, handler: RouteDefinition['chain'][number]): RouteDefinition =>
  defineRoute(
    { method, path, operationId: `${method} ${path}`, summary: 'test route', tags: ['test'], responses: { 200: { description: 'ok' } } },
    openRoute(),
    handler,
  );

const answer = (name: string) =>
  async function answerWith(ctx: Parameters<RouteDefinition['chain'][number]>[0]) {
    ctx.body = { route: name, params: ctx.params, routerName: ctx.routerName };
  };

const routes: RouteDefinition[] = [
  // Same table as the next two (group /api/ledger, five segments), registered first.
  route('get', '/api/ledger/{ledger}/things/{id}', async (ctx, next) => {
    // Hands over to the next matching route, as a router's route may.
    if (ctx.params.id === 'skip') return next();
    ctx.body = { route: 'first', params: ctx.params, routerName: ctx.routerName };
  }),
  route('post', '/api/ledger/{ledger}/things/{id}', answer('post')),
  route('get', '/api/ledger/v2/{ledger}/things', answer('v2')),
  // Matches every GET of the table, so only what the routes before it leave or hand over.
  route('get', '/api/ledger/{other}/{kind}/{id}', answer('second')),
];

describe('route dispatch', () => {
  let server: http.Server;
  let url: string;

  beforeAll(async () => {
    const deps = { config: { publicUrl: 'http://127.0.0.1' }, logger: createLogger('route-dispatch-test', 'silent') } as unknown as AppDeps;
    server = http.createServer(createApp(deps, routes).callback());
    await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
    url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  });

  afterAll(() => new Promise((resolve) => server.close(resolve)));

  it('runs the first route matching the path and method, with its decoded parameters and name', async () => {
    const response = await fetch(`${url}/api/ledger/main%20book/things/42`);
    expect(response.status).toBe(200);
    expect(await response.json()).toEqual({
      route: 'first',
      params: { ledger: 'main book', id: '42' },
      routerName: 'get /api/ledger/{ledger}/things/{id}',
    });
  });

  it('picks a route of the same table by method', async () => {
    const response = await fetch(`${url}/api/ledger/main/things/42`, { method: 'POST' });
    expect(await response.json()).toEqual({
      route: 'post',
      params: { ledger: 'main', id: '42' },
      routerName: 'post /api/ledger/{ledger}/things/{id}',
    });
  });

  it('goes on to the next matching route when a chain calls next, its parameters over those of the route before', async () => {
    const response = await fetch(`${url}/api/ledger/main/things/skip`);
    expect(await response.json()).toEqual({
      route: 'second',
      params: { ledger: 'main', other: 'main', kind: 'things', id: 'skip' },
      routerName: 'get /api/ledger/{other}/{kind}/{id}',
    });
  });

  it('matches case-insensitively and with a trailing slash, as the router does', async () => {
    const response = await fetch(`${url}/API/Ledger/v2/main/things/`);
    expect(await response.json()).toMatchObject({ route: 'v2', params: { ledger: 'main' } });
  });

  it('answers HEAD from a GET route, without a body', async () => {
    const response = await fetch(`${url}/api/ledger/main/things/42`, { method: 'HEAD' });
    expect(response.status).toBe(200);
    expect(await response.text()).toBe('');
  });

  it('answers 405 with Allow when only another method serves the path, and 404 when none does', async () => {
    const refused = await fetch(`${url}/api/ledger/v2/main/things`, { method: 'DELETE' });
    expect(refused.status).toBe(405);
    expect(refused.headers.get('allow')).toBe('HEAD, GET');
    expect(await refused.json()).toMatchObject({ errorCode: 'METHOD_NOT_ALLOWED' });
    const missing = await fetch(`${url}/api/ledger/main/other/1/2`);
    expect(missing.status).toBe(404);
    expect(await missing.json()).toMatchObject({ errorCode: 'NOT_FOUND' });
  });
});
