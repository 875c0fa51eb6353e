import { addCpu, cpuSnapshot, measuredWindow, resetMeasuredWindow, type CpuSnapshot } from './cpu';
import { combineRounds, type Measurement } from './stats';

/**
 * Several loops measured in `rounds` interleaved rounds so all of them see the same drift of the machine; a ratio of
 * two windows minutes apart measures that drift as much as the code. Each round runs every row once, in the same
 * cyclic order, starting one row further than the round before (A B C, B C A, C A B, ...; with two rows A B, B A):
 * over as many rounds as rows, each row runs once in each position. `beforeEach` runs before each row's run, outside
 * its CPU count (e.g. letting the previous run's events settle). Returns each loop's runs combined (combineRounds),
 * each run on its own (`rounds`, for a row's notes) and the CPU their measured operations cost (warm-ups aside).
 */
export async function interleavedRounds<K extends string>(
  rounds: number,
  rows: readonly K[],
  measure: (row: K) => Promise<Measurement>,
  beforeEach: () => Promise<unknown> = async () => undefined,
): Promise<Record<K, { measurement: Measurement; rounds: Measurement[]; cpu: CpuSnapshot }>> {
  const measured = new Map<K, { rounds: Measurement[]; cpu: CpuSnapshot }>(rows.map((row) => [row, { rounds: [], cpu: new Map() }]));
  for (let round = 0; round < rounds; round += 1) {
    for (let i = 0; i < rows.length; i += 1) {
      const row = rows[(round + i) % rows.length];
      await beforeEach();
      resetMeasuredWindow();
      const before = cpuSnapshot();
      const entry = measured.get(row)!;
      entry.rounds.push(await measure(row));
      const after = cpuSnapshot();
      // The measured operations' window when the run marked it (httpLoad, measureLoop), otherwise the whole run.
      const marked = measuredWindow();
      addCpu(entry.cpu, marked?.before ?? before, marked?.after ?? after);
    }
  }
  return Object.fromEntries(
    [...measured].map(([row, { rounds: runs, cpu }]) => [row, { measurement: combineRounds(runs), rounds: runs, cpu }]),
  ) as Record<K, { measurement: Measurement; rounds: Measurement[]; cpu: CpuSnapshot }>;
}
