import type { Scenario } from '.';
import { NOOP_WORKFLOW_BASELINE, noopWorkflow, oneActivityWorkflow } from './baselines';
import { cpuDelta, cpuPerOperation, cpuSnapshot, type CpuSnapshot } from '../lib/cpu';
import { authJson, call, settle } from '../lib/helpers';
import { combineRounds, measureLoop, type Measurement } from '../lib/stats';

const SOURCES = 64;
const CONCURRENCY = 16;
const ROUNDS = 3;
const SEQUENTIAL_BASELINE = 'temporal no-op workflow (start + result, c=1)';

/**
 * A one-stage workflow (`send` account to account, 1 USD/2 from `orch:src:${n}` to `orch:dst:${n}` in one ledger)
 * run with `wait=true` (op 12), at the same concurrency as the no-op Temporal workflow baseline, which is started and
 * awaited through the same client and server. An operation counts only if the instance ended without error.
 * Throughput is measured saturated (c=16, where latency is mostly queueing: c / rate); the latency of one run is
 * measured with one client at a time (c=1), next to the no-op workflow measured the same way. A workflow with one
 * trivial activity, loaded the same way, shows what a single step costs Temporal and the worker before any of the
 * platform's own work.
 */
export const orchestrationScenario: Scenario = {
  name: 'orchestration',
  async run(platform, scale) {
    const token = await platform.token();
    const ledger = `bench-orch-${Date.now().toString(36)}`;
    await call(platform, token, 'POST', `/api/ledger/v2/${ledger}`);
    const postings = Array.from({ length: SOURCES }, (_, n) => ({
      source: 'world',
      destination: `orch:src:${n}`,
      amount: 1_000_000_000,
      asset: 'USD/2',
    }));
    await call(platform, token, 'POST', `/api/ledger/v2/${ledger}/transactions`, { postings });
    const { data: workflow } = await call(platform, token, 'POST', '/api/orchestration/v2/workflows', {
      name: 'bench-send',
      stages: [
        {
          send: {
            source: { account: { id: 'orch:src:${n}', ledger } },
            destination: { account: { id: 'orch:dst:${n}', ledger } },
            amount: { asset: 'USD/2', amount: 1 },
          },
        },
      ],
    });
    await settle(platform);
    const headers = authJson(token);
    const loop = {
      unit: 'runs/s',
      warmup: 2 * CONCURRENCY,
      operation: async (i: number) => {
        const response = await fetch(`${platform.apiUrl}/api/orchestration/v2/workflows/${workflow.id}/instances?wait=true`, {
          method: 'POST',
          headers,
          body: JSON.stringify({ n: String(Math.abs(i) % SOURCES) }),
        });
        const body = (await response.json()) as { data?: { terminated: boolean; error?: string } };
        if (response.status !== 200 || !body.data?.terminated || body.data.error)
          throw new Error(`run answered ${response.status}: ${JSON.stringify(body).slice(0, 800)}`);
      },
    };
    // The floors are measured here, in rounds interleaved with the runs they are compared with (no-op, one activity,
    // runs; three times): the machine's speed drifts by 10-25% within a minute, and a ratio of one early window to
    // one later window measured that drift as much as the code. Each loop's CPU is summed over its rounds.
    const rounds = { noop: [] as Measurement[], one: [] as Measurement[], runs: [] as Measurement[] };
    const cpu = { noop: new Map() as CpuSnapshot, one: new Map() as CpuSnapshot, runs: new Map() as CpuSnapshot };
    const timed = async (into: CpuSnapshot, loop: () => Promise<Measurement>) => {
      const before = cpuSnapshot();
      const measured = await loop();
      const after = cpuSnapshot();
      for (const [key, seconds] of cpuDelta(before, after)) into.set(key, (into.get(key) ?? 0) + seconds);
      await settle(platform);
      return measured;
    };
    for (let round = 0; round < ROUNDS; round++) {
      rounds.noop.push(await timed(cpu.noop, () => noopWorkflow(platform, CONCURRENCY, Math.round((600 * scale) / ROUNDS))));
      rounds.one.push(await timed(cpu.one, () => oneActivityWorkflow(platform, CONCURRENCY, Math.round((300 * scale) / ROUNDS))));
      rounds.runs.push(
        await timed(cpu.runs, () =>
          measureLoop({
            ...loop,
            scenario: `orchestration one-stage send, wait=true (c=${CONCURRENCY})`,
            concurrency: CONCURRENCY,
            total: Math.round((300 * scale) / ROUNDS),
          }),
        ),
      );
    }
    const [noop, oneActivity, measurement] = [combineRounds(rounds.noop), combineRounds(rounds.one), combineRounds(rounds.runs)];
    // Warm-ups included: their CPU is in the sums.
    const perOperation = (sums: CpuSnapshot, measured: Measurement) =>
      cpuPerOperation(new Map(), sums, measured.operations + ROUNDS * 2 * CONCURRENCY);
    const noopNote = `${ROUNDS} rounds; CPU ms/op: ${perOperation(cpu.noop, noop)}`;
    const oneNote = `${ROUNDS} rounds; CPU ms/op: ${perOperation(cpu.one, oneActivity)}`;
    const cpuNote = `${ROUNDS} rounds; CPU ms/run incl. its events: ${perOperation(cpu.runs, measurement)}`;
    const sequentialNoop = await noopWorkflow(platform, 1, Math.round(100 * scale), SEQUENTIAL_BASELINE);
    const sequential = await measureLoop({
      ...loop,
      scenario: 'orchestration one-stage send, wait=true (c=1)',
      concurrency: 1,
      total: Math.round(100 * scale),
    });
    await settle(platform);
    return [
      { ...noop, notes: noopNote },
      { ...oneActivity, baseline: NOOP_WORKFLOW_BASELINE, notes: oneNote },
      { ...measurement, baseline: NOOP_WORKFLOW_BASELINE, notes: cpuNote },
      sequentialNoop,
      { ...sequential, baseline: SEQUENTIAL_BASELINE },
    ];
  },
};
