import { addCpu, cpuSnapshot, type CpuSnapshot } from './cpu';
import { combineRounds, type Measurement } from './stats';

/**
 * Two loops measured in `rounds` alternating rounds (A then B, then B then A, ...) so both see the same drift of the
 * machine; a ratio of two windows minutes apart measures that drift as much as the code. `beforeRound` runs before
 * each round, outside its CPU count (e.g. letting the previous round's events settle). Returns each loop's rounds
 * combined (combineRounds) and the CPU its rounds cost.
 */
export async function interleavedRounds<K extends string>(
  rounds: number,
  rows: readonly [K, K],
  measure: (row: K) => Promise<Measurement>,
  beforeRound: () => Promise<unknown> = async () => undefined,
): Promise<Record<K, { measurement: Measurement; cpu: CpuSnapshot }>> {
  const measured = new Map<K, { rounds: Measurement[]; cpu: CpuSnapshot }>(rows.map((row) => [row, { rounds: [], cpu: new Map() }]));
  for (let round = 0; round < rounds; round += 1) {
    for (const row of round % 2 === 0 ? rows : ([rows[1], rows[0]] as const)) {
      await beforeRound();
      const before = cpuSnapshot();
      const entry = measured.get(row)!;
      entry.rounds.push(await measure(row));
      addCpu(entry.cpu, before, cpuSnapshot());
    }
  }
  return Object.fromEntries(rows.map((row) => [row, { measurement: combineRounds(measured.get(row)!.rounds), cpu: measured.get(row)!.cpu }])) as Record<
    K,
    { measurement: Measurement; cpu: CpuSnapshot }
  >;
}
