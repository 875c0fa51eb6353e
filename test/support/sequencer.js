const Sequencer = require('@jest/test-sequencer').default;

/** The tier of a test file, by its jest project: the fast tiers first, so a broken unit fails a run in seconds. */
const TIER_ORDER = ['unit', 'workflow', 'integration'];
const tierOf = (test) => {
  const index = TIER_ORDER.indexOf(test.context.config.displayName?.name);
  return index < 0 ? TIER_ORDER.length : index;
};

/** Jest's default order (failed first, then slowest first) within each tier; unit, then workflow, then integration. */
class TierSequencer extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    return TIER_ORDER.map((_, tier) => sorted.filter((test) => tierOf(test) === tier))
      .concat([sorted.filter((test) => tierOf(test) === TIER_ORDER.length)])
      .flat();
  }
}

module.exports = TierSequencer;
