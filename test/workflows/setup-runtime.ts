import { DefaultLogger, Runtime } from '@temporalio/worker';

// Workflow and activity failures are what these tests provoke: only errors of the SDK itself are worth printing.
// Runtime.install throws once a runtime exists, and each test file has its own module registry but one process.
try {
  Runtime.install({ logger: new DefaultLogger('ERROR'), telemetryOptions: { logging: { filter: { core: 'ERROR', other: 'ERROR' } } } });
} catch {
  // Already installed by an earlier file of this worker process.
}
