import fs from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { stealSince, type machineTicks } from './cpu';
import type { Measurement } from './stats';

const fmt = (n: number, digits = 1) => (Number.isFinite(n) ? n.toFixed(digits) : '–');

/** Prints one table (with each scenario's ratio to its same-run baseline) and writes the JSON result file. */
export function report(
  measurements: Measurement[],
  run: { startedAt: Date; loadAtStart: number[]; ticksAtStart: ReturnType<typeof machineTicks> },
): string {
  const byName = new Map(measurements.map((m) => [m.scenario, m]));
  const rows = measurements.map((m) => {
    const base = m.baseline ? byName.get(m.baseline) : undefined;
    const ratio = base ? `${fmt((m.throughput / base.throughput) * 100, 0)}% of ${base.scenario}` : 'baseline';
    return `| ${m.scenario} | ${fmt(m.throughput)} ${m.unit} | ${fmt(m.p50Ms)} | ${fmt(m.p99Ms)} | ${m.errors} | ${ratio} | ${m.notes ?? ''} |`;
  });
  const machine = `${os.cpus().length} × ${os.cpus()[0]?.model.trim()}, ${Math.round(os.totalmem() / 2 ** 30)} GiB, Node ${process.version}, ${os.platform()}`;
  // The machine may be shared (other processes, tests): the load average says how quiet it was.
  const load = (l: number[]) => l.map((x) => x.toFixed(2)).join(' / ');
  const loadNote = `load average (1/5/15 min) at start ${load(run.loadAtStart)}, at end ${load(os.loadavg())}, CPU stolen by the hypervisor ${stealSince(run.ticksAtStart)}`;
  const table = [
    `Machine: ${machine}`,
    `Run: ${run.startedAt.toISOString()}, ${loadNote}, BENCH_SCALE=${process.env.BENCH_SCALE || 1}`,
    '',
    '| Scenario | Throughput | p50 ms | p99 ms | Errors | Ratio to baseline | Notes |',
    '|---|---|---|---|---|---|---|',
    ...rows,
  ].join('\n');
  const dir = path.join(__dirname, '..', 'results');
  fs.mkdirSync(dir, { recursive: true });
  const file = path.join(dir, `bench-${new Date().toISOString().replace(/[:.]/g, '-')}.json`);
  fs.writeFileSync(
    file,
    JSON.stringify(
      { date: run.startedAt.toISOString(), machine, load: loadNote, scale: Number(process.env.BENCH_SCALE || 1), measurements },
      null,
      2,
    ),
  );
  return `${table}\n\nJSON results: ${path.relative(process.cwd(), file)}`;
}
