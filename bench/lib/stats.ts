import { markMeasuredEnd, markMeasuredStart } from './cpu';
/** Throughput and latency of one scenario, as the report prints them. */
export interface Measurement {
  scenario: string;
  /** Operations per second over the measured window. */
  throughput: number;
  unit: string;
  p50Ms: number;
  p99Ms: number;
  operations: number;
  errors: number;
  baseline?: string;
  notes?: string;
}

export function percentile(sortedMs: number[], p: number): number {
  if (sortedMs.length === 0) return NaN;
  const index = Math.min(sortedMs.length - 1, Math.max(0, Math.ceil((p / 100) * sortedMs.length) - 1));
  return sortedMs[index];
}

/**
 * Runs `operation` from `concurrency` loops until `total` operations have been made (bounded, never open-ended) and
 * measures each one. Used where autocannon does not fit: Temporal client calls and multi-step scenarios.
 */
export async function measureLoop(options: {
  scenario: string;
  unit: string;
  concurrency: number;
  total: number;
  /** Operations run (at the same concurrency) before measuring. */
  warmup?: number;
  operation: (i: number) => Promise<void>;
}): Promise<Measurement> {
  // Warm-up at the measured concurrency: connection pools, worker slots and caches grow to what the load needs (a
  // sequential warm-up left the first concurrent Temporal runs 0.6-0.8 s slow, which showed up as the p99).
  let warm = 0;
  await Promise.all(
    Array.from({ length: Math.min(options.concurrency, options.warmup ?? 0) }, async () => {
      while (warm < (options.warmup ?? 0)) await options.operation(-1 - warm++);
    }),
  );
  const latencies: number[] = [];
  let next = 0;
  let errors = 0;
  let firstError: unknown;
  markMeasuredStart();
  const started = process.hrtime.bigint();
  await Promise.all(
    Array.from({ length: options.concurrency }, async () => {
      while (next < options.total) {
        const i = next++;
        const t0 = process.hrtime.bigint();
        try {
          await options.operation(i);
          latencies.push(Number(process.hrtime.bigint() - t0) / 1e6);
        } catch (error) {
          errors += 1;
          firstError ??= error;
        }
      }
    }),
  );
  const seconds = Number(process.hrtime.bigint() - started) / 1e9;
  markMeasuredEnd();
  latencies.sort((a, b) => a - b);
  if (firstError) console.error(`[bench] ${options.scenario}: ${errors} errors, first: ${String(firstError)}`);
  const measurement: Measurement = {
    scenario: options.scenario,
    unit: options.unit,
    throughput: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    operations: latencies.length,
    errors,
  };
  rememberSamples(measurement, latencies, seconds);
  return measurement;
}

/** The raw latencies and measured seconds of each measureLoop or httpLoad result, for combineRounds (kept out of the report). */
const samples = new WeakMap<Measurement, { latencies: number[]; seconds: number }>();

export function rememberSamples(measurement: Measurement, sortedLatencies: number[], seconds: number): void {
  samples.set(measurement, { latencies: sortedLatencies, seconds });
}

/**
 * One measurement from several rounds of the same loop (measureLoop or httpLoad results): operations over the rounds' summed
 * measured time, percentiles over all their latencies. Rounds of two loops interleaved (A B A B ...) see the same
 * drift of the machine, which a ratio of one A window to one later B window does not (docs/benchmarks.md).
 */
export function combineRounds(rounds: Measurement[]): Measurement {
  const all = rounds.map((round) => {
    const sample = samples.get(round);
    if (!sample) throw new Error(`${round.scenario}: not a measureLoop or httpLoad result`);
    return sample;
  });
  const latencies = all.flatMap((s) => s.latencies).sort((a, b) => a - b);
  const seconds = all.reduce((sum, s) => sum + s.seconds, 0);
  return {
    ...rounds[0],
    throughput: latencies.length / seconds,
    p50Ms: percentile(latencies, 50),
    p99Ms: percentile(latencies, 99),
    operations: latencies.length,
    errors: rounds.reduce((sum, r) => sum + r.errors, 0),
  };
}
