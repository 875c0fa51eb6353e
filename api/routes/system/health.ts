import { openRoute } from '../../middleware/authenticate';
import { defineRoute } from '../../routing';
import { pingTemporal } from '../../../lib/temporal';

async function check(name: string, probe: () => Promise<unknown>, timeoutMs: number): Promise<[string, string]> {
  let timer: NodeJS.Timeout | undefined;
  try {
    await Promise.race([
      probe(),
      new Promise((_, reject) => {
        timer = setTimeout(() => reject(new Error(`no answer within ${timeoutMs} ms`)), timeoutMs);
      }),
    ]);
    return [name, 'ok'];
  } catch (error) {
    return [name, `down: ${(error as Error).message.split('\n')[0]}`];
  } finally {
    clearTimeout(timer);
  }
}

/** 200 when PostgreSQL and Temporal both answer; 503 naming the failing part otherwise. No auth: load balancers call it. */
export const healthRoute = defineRoute(
  {
    method: 'get',
    path: '/_healthcheck',
    operationId: 'healthcheck',
    summary: 'Health of the API and the parts it depends on',
    tags: ['system'],
    responses: {
      200: { description: 'All parts answer', schema: { type: 'object' } },
      503: { description: 'A part is down', schema: { type: 'object' } },
    },
  },
  openRoute(),
  async function healthcheck(ctx) {
    const { db, temporal } = ctx.deps;
    const results = await Promise.all([
      check('postgres', () => db.raw('SELECT 1'), 2000),
      check('temporal', () => pingTemporal(temporal.connection, 2000), 2500),
    ]);
    const parts = Object.fromEntries(results);
    const healthy = results.every(([, status]) => status === 'ok');
    ctx.status = healthy ? 200 : 503;
    ctx.body = { status: healthy ? 'ok' : 'unavailable', ...parts };
  },
);
