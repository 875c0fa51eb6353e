import type { Scenario } from '..';
import { basePlatform } from '../../lib/base-platform';
import { authJson, settle } from '../../lib/helpers';
import { httpLoad } from '../../lib/http-load';
import { benchEnv, type BenchPlatform } from '../../lib/platform';
import { interleavedRounds } from '../../lib/rounds';
import type { Measurement } from '../../lib/stats';
import { WRITES, seedApiLedger, writePosting, type WriteShape } from '.';

/** Rounds per side and row: each row alternates this code and the base, starting on either side equally often. */
const ROUNDS = 8;
const SHAPES = ['spread', 'hot', 'world', 'hot-destination', 'spread c=1'] as const;
type Row = `${(typeof SHAPES)[number]} ${'this' | 'base'}`;

/**
 * Ledger writes of this code against another checkout's (BENCH_BASE, e.g. `git worktree add ../base HEAD~1` with its
 * own node_modules), side by side: both platforms run for the whole scenario, each on its own PostgreSQL and
 * Temporal, and every write shape (spread, hot source, from `world`, into one hot account at 32 clients, and spread
 * at one client) runs in interleaved rounds that alternate the two, so both see the same drift of the machine. Each
 * run settles its platform's events before the next starts. Without BENCH_BASE the scenario measures nothing.
 */
export const ledgerCompareScenario: Scenario = {
  name: 'ledger-compare',
  async run(platform, scale) {
    const baseDir = process.env.BENCH_BASE;
    if (!baseDir) return [];
    const base = await basePlatform(baseDir, benchEnv());
    try {
      const ledger = `bench-compare-${Date.now().toString(36)}`;
      const sides: Record<'this' | 'base', { platform: BenchPlatform; token: string }> = {
        this: { platform, token: await platform.token() },
        base: { platform: base, token: await base.token() },
      };
      for (const side of Object.values(sides)) await seedApiLedger(side.platform, side.token, ledger);
      const results: Measurement[] = [];
      for (const shapeRow of SHAPES) {
        const c = shapeRow === 'spread c=1' ? 1 : 32;
        const shape: WriteShape = shapeRow === 'spread c=1' ? 'spread' : shapeRow;
        const name = (side: 'this' | 'base') =>
          `ledger write ${shape} c=${c} (HTTP, ${side === 'this' ? 'this code' : `base ${baseDir}`}, ${ROUNDS} interleaved rounds)`;
        const rows = [`${shapeRow} this`, `${shapeRow} base`] as Row[];
        const measured = await interleavedRounds(ROUNDS, rows, async (row) => {
          const side = row.endsWith('base') ? 'base' : 'this';
          const { platform: target, token } = sides[side];
          const round = await httpLoad({
            scenario: name(side),
            url: `${target.apiUrl}/api/ledger/v2/${ledger}/transactions`,
            method: 'POST',
            connections: c,
            amount: Math.max(c, Math.round((WRITES[c] * scale) / 2)),
            headers: authJson(token),
            requestBody: () => JSON.stringify({ postings: [writePosting(shape)] }),
          });
          await settle(target);
          return round;
        });
        results.push({ ...measured[rows[1]].measurement });
        results.push({ ...measured[rows[0]].measurement, baseline: name('base') });
      }
      return results;
    } finally {
      await base.stop();
    }
  },
};
