import type { AppContext } from '../../api/context';
import { openRoute } from '../../api/middleware/authenticate';
import { validate } from '../../api/middleware/validate';
import { versionedListRoutes } from '../../api/routes/orchestration/versions';
import { defineRoute, type RouteDefinition } from '../../api/routing';
import {
  arraySchema,
  bigIntegerSchema,
  booleanSchema,
  int64IdSchema,
  listQuerySchema,
  objectSchema,
  stringSchema,
  withMetadataFilters,
  type BodyOf,
  type ParamOf,
} from '../../api/schemas/common';

/**
 * A handler's input is typed from the schemas its route validates against. The compile-time half of this file is
 * checked by `npm run typecheck` (jest strips types): each `@ts-expect-error` fails the typecheck if the line it marks
 * ever compiles, e.g. if the input fell back to `any`. The run-time half proves the types tell the truth about what the
 * validator hands over, in particular for exact integers (digit strings in a path, number or BigInt in a body).
 */

type Equal<A, B> = (<T>() => T extends A ? 1 : 2) extends <T>() => T extends B ? 1 : 2 ? true : false;
const expectType = <A, B>(equal: Equal<A, B>) => equal;

const params = objectSchema({ id: int64IdSchema('An id') }, ['id']);
const query = objectSchema({ dryRun: booleanSchema() });
const body = objectSchema(
  {
    name: stringSchema({ minLength: 1 }),
    amount: bigIntegerSchema('An amount'),
    kind: stringSchema({ enum: ['PAYOUT', 'TRANSFER'] }),
    tags: arraySchema(stringSchema()),
  },
  ['name', 'amount'],
);

expectType<BodyOf<typeof body>, { name: string; amount: number | bigint; kind?: 'PAYOUT' | 'TRANSFER'; tags?: string[] }>(true);
expectType<ParamOf<typeof params>, { id: string }>(true);
expectType<ParamOf<typeof query>, { dryRun?: boolean }>(true);
// A schema written as a plain literal promises nothing.
expectType<BodyOf<{ type: 'string' }>, unknown>(true);

// @ts-expect-error a builder cannot be told another type than the one its type is derived from
stringSchema({ type: 'integer' });
// @ts-expect-error a required member must be one of the object's
objectSchema({ name: stringSchema() }, ['nmae']);

/** Holds type assertions about a handler's input: compiled, never run. */
const typeOnly = (_checks: () => void) => undefined;

const createRoute = defineRoute(
  {
    method: 'post',
    path: '/things/{id}',
    operationId: 'createThing',
    summary: 'Create a thing',
    tags: ['test'],
    responses: { 200: { description: 'Done' } },
  },
  openRoute(),
  validate({ params, query, body }),
  async function createThingHandler(ctx) {
    const { name, amount, kind } = ctx.state.input.body;
    typeOnly(() => {
      // @ts-expect-error a misspelt field does not exist on the body
      const _misspelt = ctx.state.input.body.nmae;
      // @ts-expect-error an amount may be a number or a BigInt: it is not a number
      const _number: number = amount;
      // @ts-expect-error a path id is a digit string, not a number
      const _id: number = ctx.state.input.params.id;
      // @ts-expect-error the query has no such parameter
      const _preview = ctx.state.input.query.preview;
      // @ts-expect-error a route that is not a list has no list
      const _list = ctx.state.input.list;
      // @ts-expect-error kind is one of its enum's values
      const _kind: 'CREDIT' | undefined = kind;
    });
    ctx.body = {
      name: name.toUpperCase(),
      kind: kind ?? 'TRANSFER',
      total: BigInt(amount) + BigInt(ctx.state.input.params.id),
      dryRun: ctx.state.input.query.dryRun === true,
    };
  },
);

const updateRoute = defineRoute(
  {
    method: 'put',
    path: '/things/{id}',
    operationId: 'updateThing',
    summary: 'Update a thing',
    tags: ['test'],
    responses: { 200: { description: 'Done' } },
  },
  openRoute(),
  validate({ params, body: objectSchema({ note: stringSchema() }), bodyRequired: false }),
  async function updateThingHandler(ctx) {
    typeOnly(() => {
      // @ts-expect-error an optional body may be absent
      const _note = ctx.state.input.body.note;
    });
    ctx.body = { note: ctx.state.input.body?.note ?? null };
  },
);

const listRoute = defineRoute(
  { method: 'get', path: '/things', operationId: 'listThings', summary: 'List things', tags: ['test'], responses: { 200: { description: 'Done' } } },
  openRoute(),
  validate({ query: withMetadataFilters(listQuerySchema({ name: stringSchema() })) }),
  async function listThingsHandler(ctx) {
    const { filters, pageSize } = ctx.state.input.list;
    expectType<
      typeof filters,
      Omit<{ pageSize?: number; cursor?: string; name?: string } & { [key: `metadata[${string}]`]: string }, 'pageSize' | 'cursor'>
    >(true);
    typeOnly(() => {
      // @ts-expect-error the page size is not a filter
      const _pageSize = filters.pageSize;
    });
    ctx.body = { name: filters.name ?? null, pageSize };
  },
);

// A v1/v2 list is typed like any route, and must be a paginated list: the v1 path rewraps its cursor envelope.
versionedListRoutes(
  {
    method: 'get',
    path: '/things',
    operationId: 'listThingsVersioned',
    summary: 'List things',
    tags: ['test'],
    responses: { 200: { description: 'Done' } },
  },
  openRoute(),
  validate({ query: listQuerySchema({ name: stringSchema() }) }),
  async function listVersionedThingsHandler(ctx) {
    const { filters } = ctx.state.input.list;
    expectType<typeof filters, { name?: string }>(true);
    ctx.body = { name: filters.name ?? null };
  },
);
versionedListRoutes(
  { method: 'get', path: '/things', operationId: 'notAList', summary: 'Not a list', tags: ['test'], responses: { 200: { description: 'Done' } } },
  openRoute(),
  // @ts-expect-error a query without the paginated marker gives no list
  validate({ query: objectSchema({ name: stringSchema() }) }),
  async function notAListHandler() {},
);

// A handler reads only the input its route validates; without validate there is none to read.
defineRoute(
  { method: 'get', path: '/plain', operationId: 'plain', summary: 'No input', tags: ['test'], responses: { 200: { description: 'Done' } } },
  openRoute(),
  async function plainHandler(ctx) {
    typeOnly(() => {
      // @ts-expect-error no schema, no members
      const _name = ctx.state.input.body.name;
    });
  },
);

/** Runs a route's chain on a minimal context, as the router would after matching it. */
async function run(route: RouteDefinition, request: { params?: Record<string, string>; query?: Record<string, string>; body?: unknown }) {
  const ctx = {
    params: request.params ?? {},
    query: request.query ?? {},
    request: { body: request.body },
    state: {},
    routerPath: route.spec.path,
    deps: { cursorKey: Buffer.alloc(32) },
  } as unknown as AppContext;
  const dispatch = (i: number): Promise<unknown> => Promise.resolve(i < route.chain.length ? route.chain[i](ctx, () => dispatch(i + 1)) : undefined);
  await dispatch(0);
  return ctx;
}

describe('typed route input', () => {
  it('hands the handler the validated body, query and params its types describe', async () => {
    const ctx = await run(createRoute, {
      params: { id: '9223372036854775807' },
      query: { dryRun: 'true' },
      body: { name: 'box', amount: 9007199254740993n, kind: 'PAYOUT' },
    });
    expect(ctx.body).toEqual({ name: 'BOX', kind: 'PAYOUT', total: 9223372036854775807n + 9007199254740993n, dryRun: true });
    const input = ctx.state.input as { params: { id: unknown }; body: { amount: unknown } };
    // What the types say: a path id keeps its digits, a body amount is what the JSON parser gave.
    expect(input.params.id).toBe('9223372036854775807');
    expect(input.body.amount).toBe(9007199254740993n);
  });

  it('refuses what the types exclude before the handler runs', async () => {
    await expect(run(createRoute, { params: { id: '1' }, body: { nmae: 'box', amount: 1 } })).rejects.toThrow(/^body: /);
    await expect(run(createRoute, { params: { id: '1' }, body: { name: 'box', amount: '1' } })).rejects.toThrow(/body\.amount/);
    await expect(run(createRoute, { params: { id: 'x' }, body: { name: 'box', amount: 1 } })).rejects.toThrow(/path\.id/);
  });

  it('leaves an optional body undefined when none is sent', async () => {
    expect((await run(updateRoute, { params: { id: '1' } })).body).toEqual({ note: null });
    expect((await run(updateRoute, { params: { id: '1' }, body: { note: 'hi' } })).body).toEqual({ note: 'hi' });
  });

  it('gives a list its filters without the page', async () => {
    expect((await run(listRoute, { query: { name: 'a', pageSize: '5', 'metadata[k]': 'v' } })).body).toEqual({ name: 'a', pageSize: 5 });
  });
});
