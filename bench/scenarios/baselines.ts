import { spawn } from 'node:child_process';
import path from 'node:path';
import { createTemporalClient } from '../../lib/temporal';
import { platformNoop } from '../../workflows/noop';
import { freePort } from '../../scripts/stack/ports';
import { pick } from '../lib/helpers';
import { httpLoad } from '../lib/http-load';
import type { BenchPlatform } from '../lib/platform';
import { measureLoop, type Measurement } from '../lib/stats';

export const KOA_BASELINE = 'koa hello-world (token verified)';
export const NOOP_WORKFLOW_BASELINE = 'temporal no-op workflow (start + result)';

/** Koa hello-world with token verification, in its own process, loaded like the API's reads by id. */
export async function koaHelloWorld(platform: BenchPlatform, connections: number, amount: number): Promise<Measurement> {
  const server = await startKoaHelloWorld(platform);
  try {
    return await server.load(connections, amount);
  } finally {
    server.stop();
  }
}

/**
 * Requests each server of a comparison serves before it is measured (the baseline and op 11 alike). 40,000 because the
 * API is not at its steady rate before then: after 5,000 reads its next rounds of 10,000 ran at about 65%, 75% and 80%
 * of the rate it held from some 35,000 reads on (V8 still optimizing its larger code and growing the young generation),
 * so a shorter warm-up measured how fast it warms up more than how fast it serves (docs/benchmarks.md, session 13).
 */
export const KOA_WARM_UP = 40_000;

/** The Koa hello-world server, warmed up and started once for several loads (rounds interleaved with another row). */
export async function startKoaHelloWorld(platform: BenchPlatform): Promise<{
  load(connections: number, amount: number, scenario?: string, options?: { pathPerRequest?: boolean }): Promise<Measurement>;
  stop(): void;
}> {
  const port = await freePort();
  // HELLO_NODE_ARGS: Node flags for this process (e.g. --cpu-prof), as PLATFORM_NODE_ARGS for the API's.
  const child = spawn(
    process.execPath,
    [...(process.env.HELLO_NODE_ARGS ?? '').split(' ').filter(Boolean), '--import', 'tsx', path.join(__dirname, '..', 'servers', 'hello-world.ts')],
    {
      env: { ...process.env, PORT: String(port), DATABASE_URL: platform.databaseUrl, ISSUER_BASE: platform.apiUrl },
      stdio: ['ignore', 'pipe', 'inherit'],
    },
  );
  // `pathPerRequest`: a different path per request (`/hello/<n>`, an id the route ignores), for comparisons with reads
  // whose load does the same (op 11): the load generator shares the machine's two cores with the server, and a fixed
  // request, built once, costs it less than requests built one by one.
  const load = (connections: number, amount: number, scenario = KOA_BASELINE, options: { pathPerRequest?: boolean } = {}) =>
    httpLoad({
      scenario,
      url: `http://127.0.0.1:${port}/hello`,
      connections,
      amount,
      headers: { Authorization: `Bearer ${token}` },
      ...(options.pathPerRequest ? { requestPath: () => `/hello/${pick(1_000_000)}` } : {}),
    });
  let token = '';
  try {
    await new Promise<void>((resolve, reject) => {
      child.stdout?.once('data', () => resolve());
      child.once('exit', (code) => reject(new Error(`hello-world server exited with ${code}`)));
    });
    token = await platform.token('ledger:read');
    // The rows it is compared with run on an API that has served thousands of requests; unwarmed, this process's
    // first measured second is spent compiling, which made op 11's ratio look better than it was. Both of the loads it
    // serves are warmed: a request with an id takes code (the parameter's route, its decoding) the fixed path does not,
    // and warmed on the fixed path alone, its rounds interleaved with op 11 still sped up over the first 30,000.
    await load(32, KOA_WARM_UP / 2);
    await load(32, KOA_WARM_UP / 2, KOA_BASELINE, { pathPerRequest: true });
  } catch (error) {
    child.kill('SIGTERM');
    throw error;
  }
  return { load, stop: () => child.kill('SIGTERM') };
}

/** Start a workflow that does nothing and wait for its result, through the same client and server as the API uses. */
export function noopWorkflow(platform: BenchPlatform, concurrency: number, total: number, scenario = NOOP_WORKFLOW_BASELINE): Promise<Measurement> {
  return workflowLoop(platform, concurrency, total, scenario, () => ({ type: platformNoop.name, args: [] }));
}

export const ONE_ACTIVITY_WORKFLOW = 'temporal workflow with one activity (platformSelfTest)';

/**
 * Start `platformSelfTest` (one regular activity: `SELECT now()`) and wait for its result: what one activity adds to a
 * workflow on this server and worker. Not a target; it shows how much of a run's cost is Temporal's share of one step.
 */
export function oneActivityWorkflow(platform: BenchPlatform, concurrency: number, total: number): Promise<Measurement> {
  return workflowLoop(platform, concurrency, total, ONE_ACTIVITY_WORKFLOW, (i) => ({ type: 'platformSelfTest', args: [`bench-${i}`] }));
}

async function workflowLoop(
  platform: BenchPlatform,
  concurrency: number,
  total: number,
  scenario: string,
  workflow: (i: number) => { type: string; args: unknown[] },
): Promise<Measurement> {
  const { client, connection } = await createTemporalClient({ address: platform.temporalAddress, namespace: 'default' });
  try {
    const run = Date.now();
    return await measureLoop({
      scenario,
      unit: 'runs/s',
      concurrency,
      total,
      warmup: 2 * concurrency,
      operation: (i) => {
        const { type, args } = workflow(i);
        return client.workflow.execute(type, {
          taskQueue: platform.taskQueue,
          workflowId: `bench-${scenario.split(' ')[1]}-${run}-${concurrency}-${i}`,
          args,
        });
      },
    });
  } finally {
    await connection.close();
  }
}
