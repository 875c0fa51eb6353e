import type { BenchPlatform } from '../lib/platform';
import type { Measurement } from '../lib/stats';

export interface Scenario {
  name: string;
  /** Returns one or more measurements; each names its baseline scenario (measured in the same run). */
  run(platform: BenchPlatform, scale: number): Promise<Measurement[]>;
}

/** Every area's benchmark scenarios, in the order the report lists them. */
export const scenarios: Scenario[] = [];
