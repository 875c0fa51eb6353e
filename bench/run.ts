import os from 'node:os';
import { benchPlatform } from './lib/platform';
import { cpuPerOperation, cpuSnapshot, machineTicks } from './lib/cpu';
import { report } from './lib/report';
import type { Measurement } from './lib/stats';
import { koaHelloWorld } from './scenarios/baselines';
import { scenarios } from './scenarios';

/**
 * `npm run bench`: starts a stack (or uses BENCH_API_URL's), runs every scenario next to its baseline measured in the
 * same run, prints one table and writes bench/results/*.json. BENCH_SCALE (default 1) multiplies the request counts.
 */
async function main(): Promise<void> {
  const scale = Number(process.env.BENCH_SCALE || 1);
  const only = process.env.BENCH_ONLY ? new RegExp(process.env.BENCH_ONLY) : undefined;
  const run = { startedAt: new Date(), loadAtStart: os.loadavg(), ticksAtStart: machineTicks() };
  const platform = await benchPlatform();
  const measurements: Measurement[] = [];
  const record = (m: Measurement) => {
    measurements.push(m);
    process.stdout.write(
      `[bench] ${m.scenario}: ${m.throughput.toFixed(1)} ${m.unit}, p50 ${m.p50Ms.toFixed(1)} ms, p99 ${m.p99Ms.toFixed(1)} ms, errors ${m.errors}\n`,
    );
  };
  try {
    for (const baseline of [() => koaHelloWorld(platform, 32, Math.round(20_000 * scale))]) {
      const cpu = cpuSnapshot();
      const m = await baseline();
      record({ ...m, notes: `CPU ms/op: ${cpuPerOperation(cpu, cpuSnapshot(), m.operations)}` });
    }
    for (const scenario of scenarios) {
      if (only && !only.test(scenario.name)) continue;
      for (const m of await scenario.run(platform, scale)) record(m);
    }
  } finally {
    await platform.stop();
  }
  process.stdout.write(`\n${report(measurements, run)}\n`);
}

main().catch((error) => {
  console.error(error);
  process.exit(1);
});
