const transform = {
  '^.+\\.(t|j|mj)s$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
};
/** Settings every tier shares. */
const base = {
  testEnvironment: 'node',
  transform,
  // jose, openid-client and cel-js ship only ES modules; swc turns them into CommonJS for jest's module registry.
  transformIgnorePatterns: ['/node_modules/(?!(jose|openid-client|oauth4webapi|@marcbachmann/cel-js)/)'],
};

/**
 * Three tiers (docs/operations.md, "Tests"). A project's global setup runs only when one of its files is selected, so
 * `npm run test:unit` and `npm run test:workflows` never start PostgreSQL, Temporal or the API.
 * @type {import('jest').Config}
 */
module.exports = {
  projects: [
    // Pure code: no database, no Temporal, no network beyond servers a test starts itself on 127.0.0.1.
    { ...base, displayName: 'unit', roots: ['<rootDir>/test/unit'], testMatch: ['**/*.test.ts'] },
    // Workflow code without the stack: on Temporal's time-skipping test server with activities mocked in the test
    // (test/workflows/support.ts), and the replay of committed histories (test/replay).
    {
      ...base,
      displayName: 'workflow',
      roots: ['<rootDir>/test'],
      testMatch: ['<rootDir>/test/{workflows,replay}/**/*.test.ts'],
      globalSetup: '<rootDir>/test/workflows/global-setup.ts',
      globalTeardown: '<rootDir>/test/workflows/global-teardown.ts',
      setupFiles: ['<rootDir>/test/workflows/setup-runtime.ts'],
    },
    // Everything else runs against one real platform (PostgreSQL, Temporal dev server, worker, API) for the whole run;
    // any new file under test/integration or test/contract joins this tier by its place alone.
    {
      ...base,
      displayName: 'integration',
      roots: ['<rootDir>/test'],
      testMatch: ['<rootDir>/test/{integration,contract}/**/*.test.ts'],
      globalSetup: '<rootDir>/test/support/global-setup.ts',
      globalTeardown: '<rootDir>/test/support/global-teardown.ts',
    },
  ],
  testSequencer: '<rootDir>/test/support/sequencer.js',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  // The integration tier's one platform serves every file, so a run that includes it takes files one after the other;
  // `npm run test:unit` and `npm run test:workflows` raise this on the command line.
  maxWorkers: 1,
  testTimeout: 60_000,
};
