/** @type {import('jest').Config} */
module.exports = {
  testEnvironment: 'node',
  roots: ['<rootDir>/test'],
  testMatch: ['**/*.test.ts'],
  transform: {
    '^.+\\.(t|j|mj)s$': ['@swc/jest', { jsc: { parser: { syntax: 'typescript' }, target: 'es2022' }, module: { type: 'commonjs' } }],
  },
  // jose, openid-client and cel-js ship only ES modules; swc turns them into CommonJS for jest's module registry.
  transformIgnorePatterns: ['/node_modules/(?!(jose|openid-client|oauth4webapi|@marcbachmann/cel-js)/)'],
  globalSetup: '<rootDir>/test/support/global-setup.ts',
  globalTeardown: '<rootDir>/test/support/global-teardown.ts',
  testSequencer: '<rootDir>/test/support/sequencer.js',
  reporters: ['default', '<rootDir>/test/support/summary-reporter.js'],
  // One platform (PostgreSQL, Temporal, worker, API) serves the whole run, so test files run one after the other.
  maxWorkers: 1,
  testTimeout: 60_000,
};
