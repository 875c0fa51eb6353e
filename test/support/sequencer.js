const Sequencer = require('@jest/test-sequencer').default;

/**
 * Jest's default order (failed first, then slowest first), except that the API fuzz test runs last: the resources it
 * leaves behind (random ledgers, clients, webhook configs with unreachable endpoints) must not disturb other tests.
 */
class FuzzLastSequencer extends Sequencer {
  async sort(tests) {
    const sorted = await super.sort(tests);
    const isFuzz = (test) => /[\\/]hardening[\\/]fuzz\.test\.ts$/.test(test.path);
    return [...sorted.filter((t) => !isFuzz(t)), ...sorted.filter(isFuzz)];
  }
}

module.exports = FuzzLastSequencer;
