const fs = require('node:fs');

/**
 * Ends the run with the plain line `N passed, N failed` so CI can count what ran. A test file that could not run at
 * all counts as one failure: it would otherwise vanish from the count. With TEST_SUMMARY_FILE set, the line is also
 * written there, for `.ci/run` to repeat after the steps that follow the tests.
 */
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const failed = results.numFailedTests + results.numRuntimeErrorTestSuites;
    const line = `${results.numPassedTests} passed, ${failed} failed\n`;
    process.stdout.write(`\n${line}`);
    if (process.env.TEST_SUMMARY_FILE) fs.writeFileSync(process.env.TEST_SUMMARY_FILE, line);
  }
}

module.exports = SummaryReporter;
