import http from 'node:http';
import Koa from 'koa';
import Router from '@koa/router';
import { createJwtVerifier, localKeySet } from '../../api/auth/verifier';
import { authenticate } from '../../api/middleware/authenticate';
import { loadSigningKeys, publicJwk } from '../../areas/auth';
import { createDb } from '../../db/knex';

/**
 * The floor for "read by id": a bare Koa app that verifies the Bearer token exactly as the API does (same verifier,
 * same keys) and answers a constant. Started as its own process so it does not share a CPU with the load generator.
 */
async function main(): Promise<void> {
  const db = createDb(process.env.DATABASE_URL as string, { poolMax: 1 });
  const keys = await loadSigningKeys(db);
  await db.destroy();
  const verifier = createJwtVerifier({
    issuer: `${process.env.ISSUER_BASE}/api/auth`,
    audience: `${process.env.ISSUER_BASE}/api`,
    keys: localKeySet(keys.map(publicJwk)),
  });
  const app = new Koa();
  Object.assign(app.context, { deps: { verifier } });
  app.use(async (ctx, next) => {
    ctx.state = { ...ctx.state };
    await next();
  });
  const router = new Router();
  // With or without an id, which it ignores: the load compared with op 11 asks a different path per request, as op 11's does.
  router.get(['/hello', '/hello/:id'], authenticate('ledger:read') as any, (ctx) => {
    ctx.body = { data: { hello: 'world' } };
  });
  app.use(router.routes());
  const server = http.createServer(app.callback());
  server.listen(Number(process.env.PORT), '127.0.0.1', () => process.stdout.write('ready\n'));
}

// An exit on SIGTERM, not the default kill, so a --cpu-prof given through HELLO_NODE_ARGS gets written.
process.on('SIGTERM', () => process.exit(0));
main().catch((error) => {
  console.error(error);
  process.exit(1);
});
